/**
 * From a text box to the box of the control around it: the block of uniform colour the
 * text sits on (a filled button, an outlined button's inside, a chip, a list row's card).
 * Where that is not clear (the text sits on the screen's own background, or the block is
 * far taller than a control), the text box itself, padded, is the answer.
 */
import type { Box } from "../../core/model/contract.js";
import type { RawImage } from "../../core/pixels/image-decode.js";

/** Largest per-channel difference for two pixels to count as the same background colour. */
const COLOR_TOLERANCE = 12;
/** Per-channel difference under which the text's background is taken for the screen's own. */
const PAGE_TOLERANCE = 3;
/** Share of a row or column that must be background colour for the block to grow over it. */
const UNIFORM_SHARE = 0.97;
/** A block more than this many text heights tall is a panel or a page, not a control. */
const MAX_HEIGHT_IN_LINES = 5;
/** Padding around a text box answered without its control, as a share of the text height. */
const TEXT_PAD = 0.25;

/** How the answer box was found. */
export interface ControlBox {
  box: Box;
  /** `control`: grown over the uniform block around the text; `text`: the padded text box. */
  kind: "control" | "text";
}

type Rgb = [number, number, number];

function pixel(raw: RawImage, x: number, y: number): Rgb {
  const i = (y * raw.width + x) * 4;
  return [raw.data[i]!, raw.data[i + 1]!, raw.data[i + 2]!];
}

function near(a: Rgb, b: Rgb, tolerance = COLOR_TOLERANCE): boolean {
  return Math.abs(a[0] - b[0]) <= tolerance && Math.abs(a[1] - b[1]) <= tolerance && Math.abs(a[2] - b[2]) <= tolerance;
}

/** The most common colour (quantised) among some pixels. */
function dominant(colors: Rgb[]): Rgb | undefined {
  const counts = new Map<number, { count: number; color: Rgb }>();
  for (const c of colors) {
    const key = ((c[0] >> 3) << 10) | ((c[1] >> 3) << 5) | (c[2] >> 3);
    const entry = counts.get(key);
    if (entry) entry.count++;
    else counts.set(key, { count: 1, color: c });
  }
  let best: { count: number; color: Rgb } | undefined;
  for (const entry of counts.values()) if (!best || entry.count > best.count) best = entry;
  return best?.color;
}

/** Integer edges of a box, clamped to the image: [left, top, right, bottom), right/bottom exclusive. */
interface Edges {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

function edges(box: Box, raw: RawImage): Edges {
  return {
    left: Math.max(0, Math.floor(box.x)),
    top: Math.max(0, Math.floor(box.y)),
    right: Math.min(raw.width, Math.ceil(box.x + box.width)),
    bottom: Math.min(raw.height, Math.ceil(box.y + box.height)),
  };
}

/** The colour of the ring of pixels just outside the text box: what the text sits on. */
function backgroundOf(raw: RawImage, e: Edges, gap: number): Rgb | undefined {
  const colors: Rgb[] = [];
  const top = e.top - gap;
  const bottom = e.bottom - 1 + gap;
  const left = e.left - gap;
  const right = e.right - 1 + gap;
  for (let x = Math.max(0, left); x <= Math.min(raw.width - 1, right); x++) {
    if (top >= 0) colors.push(pixel(raw, x, top));
    if (bottom < raw.height) colors.push(pixel(raw, x, bottom));
  }
  for (let y = Math.max(0, top); y <= Math.min(raw.height - 1, bottom); y++) {
    if (left >= 0) colors.push(pixel(raw, left, y));
    if (right < raw.width) colors.push(pixel(raw, right, y));
  }
  return dominant(colors);
}

/** The screen's own background: the most common colour on a coarse grid. */
function screenBackground(raw: RawImage): Rgb | undefined {
  const step = Math.max(1, Math.round(Math.min(raw.width, raw.height) / 64));
  const colors: Rgb[] = [];
  for (let y = 0; y < raw.height; y += step) for (let x = 0; x < raw.width; x += step) colors.push(pixel(raw, x, y));
  return dominant(colors);
}

function rowIsBackground(raw: RawImage, y: number, left: number, right: number, bg: Rgb): boolean {
  let same = 0;
  for (let x = left; x < right; x++) if (near(pixel(raw, x, y), bg)) same++;
  return same >= UNIFORM_SHARE * (right - left);
}

function columnIsBackground(raw: RawImage, x: number, top: number, bottom: number, bg: Rgb): boolean {
  let same = 0;
  for (let y = top; y < bottom; y++) if (near(pixel(raw, x, y), bg)) same++;
  return same >= UNIFORM_SHARE * (bottom - top);
}

/** Grow the edges one pixel a side at a time while the new row or column is background. */
function grow(raw: RawImage, start: Edges, bg: Rgb, maxHeight: number): Edges {
  const e = { ...start };
  let moved = true;
  while (moved) {
    moved = false;
    if (e.top > 0 && rowIsBackground(raw, e.top - 1, e.left, e.right, bg)) {
      e.top--;
      moved = true;
    }
    if (e.bottom < raw.height && rowIsBackground(raw, e.bottom, e.left, e.right, bg)) {
      e.bottom++;
      moved = true;
    }
    if (e.left > 0 && columnIsBackground(raw, e.left - 1, e.top, e.bottom, bg)) {
      e.left--;
      moved = true;
    }
    if (e.right < raw.width && columnIsBackground(raw, e.right, e.top, e.bottom, bg)) {
      e.right++;
      moved = true;
    }
    if (e.bottom - e.top > maxHeight) break;
  }
  return e;
}

function toBox(e: Edges): Box {
  return { x: e.left, y: e.top, width: Math.max(1, e.right - e.left), height: Math.max(1, e.bottom - e.top) };
}

function padded(text: Box, raw: RawImage): Box {
  const pad = Math.max(2, Math.round(text.height * TEXT_PAD));
  return toBox(
    edges({ x: text.x - pad, y: text.y - pad, width: text.width + 2 * pad, height: text.height + 2 * pad }, raw),
  );
}

/**
 * The box of the control around `text` (in pixels of `raw`), or the padded text box when
 * no control is clear.
 */
export function controlBox(raw: RawImage, text: Box): ControlBox {
  const start = edges(text, raw);
  const gap = Math.max(1, Math.round(text.height * 0.1));
  const bg = backgroundOf(raw, start, gap);
  const page = screenBackground(raw);
  if (!bg || (page && near(bg, page, PAGE_TOLERANCE))) return { box: padded(text, raw), kind: "text" };
  const maxHeight = MAX_HEIGHT_IN_LINES * Math.max(1, start.bottom - start.top);
  const grown = grow(raw, start, bg, maxHeight);
  if (grown.bottom - grown.top > maxHeight) return { box: padded(text, raw), kind: "text" };
  // A block that did not grow beyond the text's own padding is no control either.
  const box = toBox(grown);
  if (box.width <= text.width + 2 && box.height <= text.height + 2) return { box: padded(text, raw), kind: "text" };
  return { box, kind: "control" };
}
