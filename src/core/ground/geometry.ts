/*
 * The geometry every layer shares. Unless a name says otherwise, values are in screenshot
 * pixels; adapters convert to their tap units (points on iOS, CSS pixels on the rig).
 */

/** A point. */
export interface Point {
  x: number;
  y: number;
}

/** A width and height. */
export interface Size {
  width: number;
  height: number;
}

/** A rectangle: its top-left corner and size. A model's box, a crop, a mask and a window are all one. */
export interface Rect extends Point, Size {}

/** Widths along the four sides of a screen, such as its system bars. */
export interface Sides {
  top: number;
  bottom: number;
  left: number;
  right: number;
}

/**
 * Whether `point` lies in `rect`. The rule for pixels: a rectangle covers `x` to `x + width`
 * without its far edge, so the pixel at `x + width` is outside (the next rectangle's first).
 * `farEdge: true` counts the far edge in, for a rounded point that may land on it (a stored
 * tap's point is its box's centre, rounded).
 */
export function contains(rect: Rect, point: Point, options: { farEdge?: boolean } = {}): boolean {
  const right = rect.x + rect.width;
  const bottom = rect.y + rect.height;
  const beforeFar = options.farEdge ? point.x <= right && point.y <= bottom : point.x < right && point.y < bottom;
  return point.x >= rect.x && point.y >= rect.y && beforeFar;
}
