/*
 * A stored element's image against the same element on another screen (docs/transfer.md): the
 * stored image resized to the element's bounds there, then the share of pixels of either image
 * with no like-coloured pixel nearby in the other. Resizing to the element's own bounds follows
 * a change of aspect ratio (a button 519x153 px at 3x drawn 330x80 px at 2x); the neighbourhood
 * absorbs what the resize cannot (a label keeps its font size, corners keep their radius), while
 * a dialog or another colour over the element leaves most pixels without a like neighbour.
 */
import type { Size } from "../ground/geometry.js";
import type { RawImage } from "./image-decode.js";
import { colourDelta, MAX_YIQ_DELTA, words } from "./pixel-diff.js";
import { loadSharp } from "./sharp.js";

/** How {@link unmatchedShare} looks. */
export interface NearMatchOptions {
  /** How far a like pixel may lie, in pixels each way (a square neighbourhood). */
  radius: number;
  /** pixelmatch's per-pixel threshold (0-1): colours within it are alike. */
  threshold: number;
  /** Counting stops once more than this share of pixels has no like neighbour (the result is then a lower bound). */
  stopAbove: number;
}

/** Resize RGBA pixels to exactly `size` (the aspect ratio may change). */
export async function resizeRawTo(raw: RawImage, size: Size): Promise<RawImage> {
  const width = Math.max(1, Math.round(size.width));
  const height = Math.max(1, Math.round(size.height));
  if (width === raw.width && height === raw.height) return raw;
  const sharp = await loadSharp();
  const data = await sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: 4 } })
    .resize(width, height, { fit: "fill" })
    .ensureAlpha()
    .raw()
    .toBuffer();
  return { data, width, height };
}

/**
 * The larger of the two shares of pixels (of `a` in `b`, of `b` in `a`) that have no pixel of
 * like colour within `radius` at the same place in the other image. Both are the same size.
 */
export function unmatchedShare(a: RawImage, b: RawImage, options: NearMatchOptions): number {
  if (a.width !== b.width || a.height !== b.height) {
    throw new Error(`unmatchedShare needs images of one size, got ${a.width}x${a.height} and ${b.width}x${b.height}.`);
  }
  const one = unmatchedIn(a, b, options);
  return one > options.stopAbove ? one : Math.max(one, unmatchedIn(b, a, options));
}

function unmatchedIn(a: RawImage, b: RawImage, { radius, threshold, stopAbove }: NearMatchOptions): number {
  const { width, height } = a;
  const total = width * height;
  const pa = words(a.data, total);
  const pb = words(b.data, total);
  const maxDelta = MAX_YIQ_DELTA * threshold * threshold;
  const stopAt = Math.floor(stopAbove * total);
  let unmatched = 0;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = y * width + x;
      const p = pa[i]!;
      // The same place first: most pixels of a matching element match there.
      if (p === pb[i] || Math.abs(colourDelta(p, pb[i]!, i * 4)) <= maxDelta) continue;
      if (!likeNear(p, pb, x, y, { width, height, radius, maxDelta })) unmatched++;
      if (unmatched > stopAt) return unmatched / total;
    }
  }
  return unmatched / total;
}

/** Whether `pixel` has a pixel of like colour within `radius` of (x, y) in `other`. */
function likeNear(
  pixel: number,
  other: Uint32Array,
  x: number,
  y: number,
  { width, height, radius, maxDelta }: { width: number; height: number; radius: number; maxDelta: number },
): boolean {
  const x0 = Math.max(0, x - radius);
  const x1 = Math.min(width - 1, x + radius);
  for (let yy = Math.max(0, y - radius); yy <= Math.min(height - 1, y + radius); yy++) {
    for (let j = yy * width + x0; j <= yy * width + x1; j++) {
      const q = other[j]!;
      if (q === pixel || Math.abs(colourDelta(pixel, q, j * 4)) <= maxDelta) return true;
    }
  }
  return false;
}
