/*
 * Stitching the screens of a scrolled page into one tall image (docs/api.md "Whole-page
 * baselines"). Rows that are the same on every screen at the top and bottom of the content area
 * (a sticky header, a sticky footer) are kept once; between them, each screen's offset against
 * the one before is found by matching rows, and only its new rows are added. Pure pixels: the
 * swiping is src/core/flows/screenshot/page-capture.ts.
 */
import { createHash } from "node:crypto";
import type { RawImage } from "../../pixels/images.js";

/** Share of overlapping rows that must be equal for an offset to be taken. */
export const MIN_ROW_MATCH = 0.98;
/** Rows a screen redraws above its new ones, over the previous screen's band edge. */
const SEAM_ROWS = 2;
/** Share of the scrolling band that two screens must overlap by: a swipe moves half of it. */
const MIN_OVERLAP_SHARE = 0.2;

/** Where each screen lies in a stitched page, in page pixels. */
export interface PageLayout {
  /** Rows at the top every screen shares (status bar, sticky header): page rows `[0, head)`. */
  head: number;
  /** Rows at the bottom every screen shares (sticky footer, navigation bar): the page's last `foot` rows. */
  foot: number;
  /** Height of the scrolling band between them on one screen. */
  band: number;
  /** How far each screen's band was scrolled from the first's, in pixels; starts at 0, increasing. */
  offsets: number[];
  /** The page's height: `head + band + offsets.at(-1) + foot`. */
  height: number;
}

/** A stitched page: its pixels and where each screen went. */
export interface StitchedPage {
  raw: RawImage;
  layout: PageLayout;
}

/** What {@link stitchScreens} needs besides the screens. */
export interface StitchOptions {
  /** First row of the content area (below the status bar). */
  top: number;
  /** Row below the content area's last (the navigation bar's first). */
  bottom: number;
  /** How far a swipe should move the content, in pixels: among equally good offsets, the nearest wins. */
  expectedShift: number;
}

/** Screens that cannot be stitched: they do not overlap, or are not of one size. */
export class StitchError extends Error {}

/**
 * Stitch screens taken from the top of a page downwards, each moved by one swipe from the one
 * before (and changed by it: a swipe that moved nothing ends the page before stitching).
 */
export function stitchScreens(screens: RawImage[], options: StitchOptions): StitchedPage {
  const first = screens[0];
  if (!first) throw new StitchError("no screens to stitch");
  const { width, height } = first;
  for (const [i, s] of screens.entries()) {
    if (s.width !== width || s.height !== height) {
      throw new StitchError(`screen ${i + 1} is ${s.width}x${s.height}, screen 1 ${width}x${height}`);
    }
  }
  const top = Math.max(0, Math.min(options.top, height));
  const bottom = Math.max(top, Math.min(options.bottom, height));
  const rows = rowIds(screens);
  const { header, footer } = stickyRows(rows, top, bottom);
  const head = top + header;
  const band = bottom - footer - head;
  const foot = height - (bottom - footer);
  const offsets = [0];
  for (let k = 1; k < screens.length; k++) {
    const shift = bandShift(rows[k - 1]!.subarray(head, head + band), rows[k]!.subarray(head, head + band), {
      expected: options.expectedShift,
    });
    if (shift === undefined) {
      throw new StitchError(
        `screen ${k + 1} does not continue screen ${k}: no offset makes ${(MIN_ROW_MATCH * 100).toFixed(0)}% of ` +
          `their overlapping rows equal (content that changed while scrolling, or a swipe that moved more than ` +
          `${Math.round((1 - MIN_OVERLAP_SHARE) * 100)}% of the scrolling area)`,
      );
    }
    offsets.push(offsets[k - 1]! + shift);
  }
  const pageHeight = head + band + offsets.at(-1)! + foot;
  const data = Buffer.alloc(width * pageHeight * 4);
  const stride = width * 4;
  const copyRows = (from: RawImage, y0: number, y1: number, at: number) =>
    from.data.copy(data, at * stride, y0 * stride, y1 * stride);
  // The first screen down to its band's end, then each screen's new rows, then the last screen's footer.
  // Each screen also redraws the last SEAM_ROWS rows before its new ones, which it shows inside its band:
  // the band's edge row of the screen before may blend with the footer (an edge at a fractional pixel).
  copyRows(first, 0, head + band, 0);
  for (let k = 1; k < screens.length; k++) {
    const from = Math.max(0, band - (offsets[k]! - offsets[k - 1]!) - SEAM_ROWS);
    copyRows(screens[k]!, head + from, head + band, head + offsets[k]! + from);
  }
  copyRows(screens.at(-1)!, head + band, height, pageHeight - foot);
  return {
    raw: { data, width, height: pageHeight },
    layout: { head, foot, band, offsets, height: pageHeight },
  };
}

/** One id per distinct row content, per screen: equal rows have equal ids. */
function rowIds(screens: RawImage[]): Int32Array[] {
  const ids = new Map<string, number>();
  return screens.map((s) => {
    const stride = s.width * 4;
    const out = new Int32Array(s.height);
    for (let y = 0; y < s.height; y++) {
      const key = createHash("sha1")
        .update(s.data.subarray(y * stride, (y + 1) * stride))
        .digest("base64");
      let id = ids.get(key);
      if (id === undefined) ids.set(key, (id = ids.size));
      out[y] = id;
    }
    return out;
  });
}

/**
 * Rows at the top and bottom of `[top, bottom)` equal on every screen: what did not move while
 * the rest scrolled. With one screen nothing can be told, and nothing is sticky.
 */
function stickyRows(rows: Int32Array[], top: number, bottom: number): { header: number; footer: number } {
  if (rows.length < 2) return { header: 0, footer: 0 };
  const still = (y: number) => rows.every((r) => r[y] === rows[0]![y]);
  let header = 0;
  while (top + header < bottom && still(top + header)) header++;
  let footer = 0;
  while (bottom - footer - 1 >= top + header && still(bottom - footer - 1)) footer++;
  // Every row still: the screens are equal there, which a stitch never gets (a swipe that moved nothing ends it).
  if (top + header >= bottom - footer) return { header: 0, footer: 0 };
  return { header, footer };
}

/**
 * How far the content moved up from `before` to `after` (both the scrolling band's row ids): the
 * offset whose overlapping rows agree best, at least {@link MIN_ROW_MATCH}; among equals, the one
 * nearest `expected`. `undefined` when none does.
 */
export function bandShift(
  before: Int32Array,
  after: Int32Array,
  { expected }: { expected: number },
): number | undefined {
  const band = before.length;
  const minOverlap = Math.max(1, Math.ceil(band * MIN_OVERLAP_SHARE));
  let best: { shift: number; score: number } | undefined;
  for (let shift = 1; band - shift >= minOverlap; shift++) {
    const overlap = band - shift;
    const allowedMisses = Math.floor(overlap * (1 - MIN_ROW_MATCH));
    let misses = 0;
    for (let i = 0; i < overlap && misses <= allowedMisses; i++) if (after[i] !== before[i + shift]) misses++;
    if (misses > allowedMisses) continue;
    const score = 1 - misses / overlap;
    const better =
      !best ||
      score > best.score + 1e-9 ||
      (Math.abs(score - best.score) <= 1e-9 && Math.abs(shift - expected) < Math.abs(best.shift - expected));
    if (better) best = { shift, score };
  }
  return best?.shift;
}

/** The screen (1-based) that first showed page row `y`: the header belongs to the first, the footer to the last. */
export function screenOfRow(layout: PageLayout, y: number): number {
  const { head, band, offsets } = layout;
  for (let k = 0; k < offsets.length; k++) if (y < head + band + offsets[k]!) return k + 1;
  return offsets.length;
}

/** `screen 3 of 5, y 1840-2100 of the page`: where page rows `y0` to `y1` (inclusive) were first seen. */
export function pagePosition(layout: PageLayout, y0: number, y1: number): string {
  const first = screenOfRow(layout, y0);
  const last = screenOfRow(layout, y1);
  const which = first === last ? `screen ${first}` : `screens ${first}-${last}`;
  return `${which} of ${layout.offsets.length}, y ${y0}-${y1} of the page`;
}

/** Each screen's rows of the page, `[y0, y1)`: those it showed first, the header with the first, the footer with the last. */
export function screenSlices(layout: PageLayout): [number, number][] {
  const { head, band, offsets, height } = layout;
  return offsets.map((_, k) => [
    k === 0 ? 0 : head + band + offsets[k - 1]!,
    k === offsets.length - 1 ? height : head + band + offsets[k]!,
  ]);
}
