/**
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
