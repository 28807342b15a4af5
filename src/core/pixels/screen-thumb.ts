/*
 * A coarse look at a whole screen, stored with a tap so a later settled screen without the crop
 * can be told apart: the stored screen with the element changed or gone, or another screen (a
 * splash, a skeleton, "Loading…", a dialog's dimmed backdrop) still to be waited for
 * (docs/api.md "When a call fails"). Each cell of a grid over the screen's content keeps its mean
 * grey and its texture (how much neighbouring pixels differ: text and edges, not flat blocks).
 */
import type { Rect } from "../ground/geometry.js";
import type { RawImage } from "./image-decode.js";

/** A screen's area as a grid of cells, each with its mean grey and texture (0-255 each). */
export interface ScreenThumb {
  cols: number;
  rows: number;
  /** Mean grey (BT.601 luma) per cell, row by row. */
  grey: Uint8Array;
  /** Mean difference to the right and lower neighbour per pixel, times 2, capped at 255, row by row. */
  texture: Uint8Array;
}

/** Cells along the screen's short and long side: cells of ~30x35 points on a phone in portrait. */
export const THUMB_CELLS = { short: 12, long: 24 } as const;
/** Every STEP-th pixel of every STEP-th row is sampled (a quarter of the pixels), with its two neighbours. */
const STEP = 2;

/** The grid of a new thumbnail of `area`: {@link THUMB_CELLS}, the long side along the area's long side. */
export function thumbGrid(area: Rect): { cols: number; rows: number } {
  const portrait = area.height >= area.width;
  return portrait
    ? { cols: THUMB_CELLS.short, rows: THUMB_CELLS.long }
    : { cols: THUMB_CELLS.long, rows: THUMB_CELLS.short };
}

/**
 * The thumbnail of `area` of `raw` (the screen outside its system bars) on `grid` (by default
 * {@link thumbGrid}; a stored thumbnail's own grid to compare with it).
 */
export function screenThumb(raw: RawImage, area: Rect, grid = thumbGrid(area)): ScreenThumb {
  const { cols, rows } = grid;
  const grey = new Uint8Array(cols * rows);
  const texture = new Uint8Array(cols * rows);
  for (let row = 0; row < rows; row++) {
    for (let col = 0; col < cols; col++) {
      const cell = cellRect(area, { cols, rows }, col, row);
      const [g, t] = cellLook(raw, cell);
      grey[row * cols + col] = g;
      texture[row * cols + col] = t;
    }
  }
  return { cols, rows, grey, texture };
}

/** The pixels of cell (`col`, `row`) of a grid over `area`. */
export function cellRect(area: Rect, grid: { cols: number; rows: number }, col: number, row: number): Rect {
  const x0 = area.x + Math.floor((col * area.width) / grid.cols);
  const x1 = area.x + Math.floor(((col + 1) * area.width) / grid.cols);
  const y0 = area.y + Math.floor((row * area.height) / grid.rows);
  const y1 = area.y + Math.floor(((row + 1) * area.height) / grid.rows);
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

/** A cell's mean grey and texture; its last column and row are read only as neighbours. */
function cellLook(raw: RawImage, cell: Rect): [number, number] {
  const { data, width } = raw;
  const luma = (p: number) => (data[p]! * 299 + data[p + 1]! * 587 + data[p + 2]! * 114) / 1000;
  let sum = 0;
  let edges = 0;
  let n = 0;
  for (let y = cell.y; y < cell.y + cell.height - 1; y += STEP) {
    for (let x = cell.x; x < cell.x + cell.width - 1; x += STEP) {
      const p = (y * width + x) * 4;
      const here = luma(p);
      sum += here;
      edges += Math.abs(here - luma(p + 4)) + Math.abs(here - luma(p + width * 4));
      n++;
    }
  }
  if (!n) return [0, 0];
  return [Math.round(sum / n), Math.min(255, Math.round((edges / n) * 2))];
}

/** How much of two thumbnails' content agrees, from {@link compareThumbs}. */
export interface ThumbAgreement {
  /** Cells with content (not the screen's plain background) in either thumbnail. */
  content: number;
  /** Of those, cells that look alike in both. */
  alike: number;
  /** Cells with content in the first (stored) thumbnail. */
  storedContent: number;
}

/** Grey levels within which two cells, or a cell and the background, count as the same. */
const GREY_TOLERANCE = 12;
/** Texture below which a cell is flat (a plain area), and the least texture difference that tells cells apart. */
const FLAT_TEXTURE = 6;
const TEXTURE_TOLERANCE = 10;

/**
 * Compare two thumbnails of one grid, leaving out the cells `skip` names (where the element
 * was): which cells have content (texture, or a grey other than the thumbnail's own background)
 * in either, and how many of those look alike.
 */
export function compareThumbs(stored: ScreenThumb, now: ScreenThumb, skip: (cell: number) => boolean): ThumbAgreement {
  const storedBackground = background(stored);
  const nowBackground = background(now);
  const result: ThumbAgreement = { content: 0, alike: 0, storedContent: 0 };
  for (let i = 0; i < stored.grey.length; i++) {
    if (skip(i)) continue;
    const inStored = hasContent(stored, i, storedBackground);
    if (!inStored && !hasContent(now, i, nowBackground)) continue;
    result.content++;
    if (inStored) result.storedContent++;
    if (alike(stored, now, i)) result.alike++;
  }
  return result;
}

function alike(a: ScreenThumb, b: ScreenThumb, i: number): boolean {
  const ta = a.texture[i]!;
  const tb = b.texture[i]!;
  return (
    Math.abs(a.grey[i]! - b.grey[i]!) <= GREY_TOLERANCE &&
    Math.abs(ta - tb) <= Math.max(TEXTURE_TOLERANCE, 0.35 * Math.max(ta, tb))
  );
}

function hasContent(thumb: ScreenThumb, i: number, backgroundGrey: number): boolean {
  return thumb.texture[i]! > FLAT_TEXTURE || Math.abs(thumb.grey[i]! - backgroundGrey) > GREY_TOLERANCE;
}

/** The thumbnail's background: the most common grey of its flat cells (in steps of 4 levels). */
function background(thumb: ScreenThumb): number {
  const counts = new Map<number, { n: number; sum: number }>();
  for (let i = 0; i < thumb.grey.length; i++) {
    if (thumb.texture[i]! > FLAT_TEXTURE) continue;
    const bin = thumb.grey[i]! >> 2;
    const c = counts.get(bin) ?? { n: 0, sum: 0 };
    c.n++;
    c.sum += thumb.grey[i]!;
    counts.set(bin, c);
  }
  let best: { n: number; sum: number } | undefined;
  for (const c of counts.values()) if (!best || c.n > best.n) best = c;
  return best ? best.sum / best.n : -1000;
}
