/*
 * A crop searched on a screen of another pixel density (docs/transfer.md): the crop resized by
 * each of a few scales in turn, searched on the whole screen outside the system bars
 * (src/core/pixels/moved-crop.ts), until one scale finds it.
 */
import type { Rect } from "../ground/geometry.js";
import type { CropVerdict } from "./crop.js";
import type { RawImage } from "./images.js";
import { searchMoved, type CropScreen } from "./moved-crop.js";
import { loadSharp } from "./sharp.js";

/** What the scaled search found. */
export type ScaledFinding =
  /** One place, at `scale`. */
  | { kind: "unique"; rect: Rect; scale: number; diffRatio: number }
  /** Two or more places match: twins. */
  | { kind: "ambiguous"; rects: Rect[] }
  /** Nothing matched; `fits` is false when the resized crop did not fit the screen at any scale. */
  | { kind: "none"; fits: boolean };

/** Resize RGBA pixels by `scale` (at least 1 pixel a side). */
export async function resizeRaw(raw: RawImage, scale: number): Promise<RawImage> {
  const sharp = await loadSharp();
  const width = Math.max(1, Math.round(raw.width * scale));
  const height = Math.max(1, Math.round(raw.height * scale));
  if (width === raw.width && height === raw.height) return raw;
  const data = await sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: 4 } })
    .resize(width, height, { fit: "fill" })
    .ensureAlpha()
    .raw()
    .toBuffer();
  return { data, width, height };
}

/**
 * Search `crop` on `screen` at each of `scales` in turn, until one finds it: the first scale that
 * finds one place (`unique`) or two (`ambiguous`, twins) decides; the next scales are tried only
 * when nothing matched, so the expected scale goes first.
 */
export async function searchScaled(
  screen: RawImage,
  crop: RawImage,
  { scales, device, verdict }: { scales: readonly number[]; device: CropScreen; verdict: CropVerdict },
): Promise<ScaledFinding> {
  let fits = false;
  for (const scale of scales) {
    const resized = await resizeRaw(crop, scale);
    const { top, bottom, left, right } = device.insets;
    if (resized.width > screen.width - left - right || resized.height > screen.height - top - bottom) continue;
    fits = true;
    const place = { x: 0, y: 0, width: resized.width, height: resized.height };
    const finding = await searchMoved(screen, resized, place, device, verdict);
    if (finding.kind === "unique") {
      return { kind: "unique", rect: finding.rect, scale, diffRatio: finding.shift.diffRatio };
    }
    if (finding.kind === "ambiguous") return { kind: "ambiguous", rects: finding.rects };
  }
  return { kind: "none", fits };
}
