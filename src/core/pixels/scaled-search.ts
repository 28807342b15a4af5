/**
 * A crop searched on a screen of another pixel density (docs/transfer.md): the crop resized by
 * each of a few scales, each searched on the whole screen outside the system bars
 * (src/core/pixels/moved-crop.ts), and the scales' findings combined into one.
 */
import type { Rect } from "../ground/geometry.js";
import type { CropVerdict } from "./crop.js";
import type { RawImage } from "./images.js";
import { searchMoved, type CropScreen } from "./moved-crop.js";
import { loadSharp } from "./sharp.js";

/** What the scaled search found. */
export type ScaledFinding =
  /** One place, which every scale that matched agrees on; `scale` is the best one's. */
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
 * Search `crop` on `screen` at each of `scales`. The finding is `unique` only when every scale
 * that matched found exactly one place and those places overlap; any scale finding twins, or two
 * scales finding different places, is `ambiguous`.
 */
export async function searchScaled(
  screen: RawImage,
  crop: RawImage,
  { scales, device, verdict }: { scales: readonly number[]; device: CropScreen; verdict: CropVerdict },
): Promise<ScaledFinding> {
  const uniques: Extract<ScaledFinding, { kind: "unique" }>[] = [];
  const twins: Rect[] = [];
  let fits = false;
  for (const scale of scales) {
    const resized = await resizeRaw(crop, scale);
    const { top, bottom, left, right } = device.insets;
    if (resized.width > screen.width - left - right || resized.height > screen.height - top - bottom) continue;
    fits = true;
    const place = { x: 0, y: 0, width: resized.width, height: resized.height };
    const finding = await searchMoved(screen, resized, place, device, verdict);
    if (finding.kind === "unique") {
      uniques.push({ kind: "unique", rect: finding.rect, scale, diffRatio: finding.shift.diffRatio });
    }
    if (finding.kind === "ambiguous") twins.push(...finding.rects);
  }
  if (twins.length) return { kind: "ambiguous", rects: distinct([...twins, ...uniques.map((u) => u.rect)]) };
  if (!uniques.length) return { kind: "none", fits };
  const best = uniques.reduce((a, b) => (b.diffRatio < a.diffRatio ? b : a));
  if (uniques.every((u) => overlaps(u.rect, best.rect))) return best;
  return { kind: "ambiguous", rects: distinct(uniques.map((u) => u.rect)) };
}

/** Whether the centre of `a` lies inside `b` (one place found at two scales). */
function overlaps(a: Rect, b: Rect): boolean {
  const cx = a.x + a.width / 2;
  const cy = a.y + a.height / 2;
  return cx >= b.x && cx < b.x + b.width && cy >= b.y && cy < b.y + b.height;
}

/** Rects with overlapping ones (the same place at two scales) kept once. */
function distinct(rects: Rect[]): Rect[] {
  const kept: Rect[] = [];
  for (const r of rects) if (!kept.some((k) => overlaps(r, k) || overlaps(k, r))) kept.push(r);
  return kept;
}
