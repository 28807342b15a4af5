/*
 * Rectangles on an image in whole pixels: a box rounded outward and clamped, and whether a
 * rectangle lies inside an image.
 */
import type { Rect } from "../ground/geometry.js";

/** Round a box outward to whole pixels, padded by `pad`, clamped to `width` x `height`. */
export function toRect(box: Rect, width: number, height: number, pad = 0): Rect {
  const x0 = Math.max(0, Math.floor(box.x - pad));
  const y0 = Math.max(0, Math.floor(box.y - pad));
  const x1 = Math.min(width, Math.ceil(box.x + box.width + pad));
  const y1 = Math.min(height, Math.ceil(box.y + box.height + pad));
  return { x: x0, y: y0, width: Math.max(1, x1 - x0), height: Math.max(1, y1 - y0) };
}

/** Whether `rect` lies inside a `width` x `height` image. */
export function rectFits(rect: Rect, width: number, height: number): boolean {
  return rect.x >= 0 && rect.y >= 0 && rect.x + rect.width <= width && rect.y + rect.height <= height;
}
