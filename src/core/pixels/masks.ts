/*
 * Regions a screenshot comparison ignores, and pixel checks that honour them:
 * system bars from the device description, boxes the model marked as varying,
 * the caller's own masks. All in screenshot pixels.
 */
import type { Rect, Sides, Size } from "../ground/geometry.js";
import type { RawImage } from "./image-decode.js";

/** The status bar and the navigation bar / home indicator (on any side in landscape), as rectangles. */
export function systemBarMasks(device: { screen: Size; insets: Sides }): Rect[] {
  const { width, height } = device.screen;
  const { top, bottom, left, right } = device.insets;
  const masks: Rect[] = [];
  if (top > 0) masks.push({ x: 0, y: 0, width, height: Math.min(top, height) });
  if (bottom > 0) masks.push({ x: 0, y: Math.max(0, height - bottom), width, height: Math.min(bottom, height) });
  if (left > 0) masks.push({ x: 0, y: 0, width: Math.min(left, width), height });
  if (right > 0) masks.push({ x: Math.max(0, width - right), y: 0, width: Math.min(right, width), height });
  return masks;
}

/**
 * A box clipped to a `width` x `height` screen and rounded outward to whole pixels;
 * `null` when nothing of it lies on the screen.
 */
export function clipToScreen(box: Rect, width: number, height: number): Rect | null {
  const x0 = Math.max(0, Math.floor(box.x));
  const y0 = Math.max(0, Math.floor(box.y));
  const x1 = Math.min(width, Math.ceil(box.x + box.width));
  const y1 = Math.min(height, Math.ceil(box.y + box.height));
  if (x1 <= x0 || y1 <= y0) return null;
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

/** Pixels covered by the union of the rectangles (overlaps counted once). */
export function unionArea(rects: Rect[]): number {
  if (!rects.length) return 0;
  // Coordinate compression: a handful of boxes, so a grid of their edges is tiny.
  const xs = [...new Set(rects.flatMap((r) => [r.x, r.x + r.width]))].sort((a, b) => a - b);
  const ys = [...new Set(rects.flatMap((r) => [r.y, r.y + r.height]))].sort((a, b) => a - b);
  let area = 0;
  for (let i = 0; i + 1 < xs.length; i++) {
    for (let j = 0; j + 1 < ys.length; j++) {
      const cx = xs[i]!;
      const cy = ys[j]!;
      if (rects.some((r) => cx >= r.x && cx < r.x + r.width && cy >= r.y && cy < r.y + r.height)) {
        area += (xs[i + 1]! - cx) * (ys[j + 1]! - cy);
      }
    }
  }
  return area;
}

/** One byte per pixel: 1 where a mask covers it. */
function coverage(width: number, height: number, masks: Rect[]): Uint8Array {
  const covered = new Uint8Array(width * height);
  for (const mask of masks) {
    const rect = clipToScreen(mask, width, height);
    if (!rect) continue;
    for (let y = rect.y; y < rect.y + rect.height; y++) {
      covered.fill(1, y * width + rect.x, y * width + rect.x + rect.width);
    }
  }
  return covered;
}

/**
 * Whether every pixel outside the masks has one colour (a blank screen: the app has
 * not drawn yet, or a black screenshot of a secure window). All masked also counts as blank.
 */
export function isUniformOutside(raw: RawImage, masks: Rect[]): boolean {
  const covered = coverage(raw.width, raw.height, masks);
  let first: number | undefined;
  for (let p = 0; p < covered.length; p++) {
    if (covered[p]) continue;
    const colour = raw.data.readUInt32LE(p * 4);
    if (first === undefined) first = colour;
    else if (colour !== first) return false;
  }
  return true;
}

/** Whether two same-sized images have identical pixels outside the masks (a clock tick is not motion). */
export function sameOutside(a: RawImage, b: RawImage, masks: Rect[]): boolean {
  if (a.width !== b.width || a.height !== b.height) return false;
  if (a.data.equals(b.data)) return true;
  if (!masks.length) return false;
  const covered = coverage(a.width, a.height, masks);
  for (let p = 0; p < covered.length; p++) {
    if (!covered[p] && a.data.readUInt32LE(p * 4) !== b.data.readUInt32LE(p * 4)) return false;
  }
  return true;
}

/** Fill the RGBA pixels of `raw` under `rects` (clipped to it) with `byte` in every channel, in place. */
export function fillRects(raw: RawImage, rects: readonly Rect[], byte: number): void {
  for (const m of rects) {
    const x0 = Math.max(0, Math.floor(m.x));
    const x1 = Math.min(raw.width, Math.ceil(m.x + m.width));
    for (let y = Math.max(0, Math.floor(m.y)); y < Math.min(raw.height, Math.ceil(m.y + m.height)) && x0 < x1; y++) {
      raw.data.fill(byte, (y * raw.width + x0) * 4, (y * raw.width + x1) * 4);
    }
  }
}
