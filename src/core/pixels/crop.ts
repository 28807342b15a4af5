/*
 * What every crop search shares: how a crop is judged, and cutting a rectangle out of a
 * decoded image.
 */
import type { Rect } from "../ground/geometry.js";
import type { RawImage } from "./image-decode.js";

// Taps use one such verdict for replays and every crop search: CROP_VERDICT in src/core/flows/shared/crop-verdict.ts.
/**
 * How a crop is judged at a place: pixelmatch's per-pixel `threshold` (0-1) and the share of the
 * crop's pixels that may differ there (a tap uses threshold 0.1 and 1%).
 */
export interface CropVerdict {
  threshold: number;
  maxDiffRatio: number;
}

/** A copy of `rect` of a decoded image (`rect` must lie inside it). */
export function cutRegion(raw: RawImage, rect: Rect): RawImage {
  const data = Buffer.alloc(rect.width * rect.height * 4);
  for (let row = 0; row < rect.height; row++) {
    const from = ((rect.y + row) * raw.width + rect.x) * 4;
    raw.data.copy(data, row * rect.width * 4, from, from + rect.width * 4);
  }
  return { data, width: rect.width, height: rect.height };
}
