/*
 * Stitching the screens of a scrolled page into one tall image (docs/api.md "Whole-page
 * baselines"). Rows that are alike on every screen at the top and bottom of the content area
 * (a sticky header, a sticky footer) are kept once; between them, each screen's offset against
 * the one before is found by matching rows, and only its new rows are added. Rows are alike with
 * room for JPEG and MJPEG screenshots (src/core/pixels/row-signatures.ts). Rows at the top of the
 * band that changed while the content scrolled under them (a navigation bar turning opaque, a large
 * title collapsing, an app bar lifting) are a header of their own: they are left out of the match
 * and the page keeps them as the first screen showed them. Pure pixels: the swiping is
 * src/core/flows/screenshot/page-capture.ts.
 */
import type { RawImage } from "../../pixels/image-decode.js";
import { rowSignatures, rowsAlike, type RowSignatures } from "../../pixels/row-signatures.js";

/** Share of overlapping rows that must be equal for an offset to be taken. */
export const MIN_ROW_MATCH = 0.98;
/** Rows a screen redraws above its new ones, over the previous screen's band edge. */
const SEAM_ROWS = 2;
/** Share of the scrolling band that two screens must overlap by (page-capture.ts swipes keep more). */
export const MIN_OVERLAP_SHARE = 0.2;
/** The most of the band a header that changes while scrolling may take, as a share. */
const MAX_CHANGING_HEADER_SHARE = 0.3;
/** Alike rows a changing header may have inside it (a row of its background equal by chance). */
const HEADER_GAP_ROWS = 4;

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
  const rows = rowSignatures(screens);
  const { head, band } = stillRows(rows, options);
  const foot = height - head - band;
  const offsets = [0];
  for (let k = 1; k < screens.length; k++) {
    const shift = bandShift(
      { before: rows[k - 1]!, after: rows[k]!, head, band },
      { expected: options.expectedShift },
    )?.shift;
    if (shift === undefined) {
      throw new StitchError(
        `screen ${k + 1} does not continue screen ${k}: no offset makes ${(MIN_ROW_MATCH * 100).toFixed(0)}% of ` +
          `their overlapping rows alike (content that changed while scrolling, or a swipe that moved more than ` +
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

/** The rows every screen shares at the top (`head`, from row 0) and the scrolling band below them. */
export interface StillRows {
  head: number;
  band: number;
}

/**
 * {@link StillRows} of two screens taken one swipe apart: what did not move while the rest scrolled,
 * and below it a header that changed (left out of the band: a swipe there may scroll nothing).
 */
export function stillRowsOf(screens: [RawImage, RawImage], options: StitchOptions): StillRows {
  const rows = rowSignatures(screens);
  const { head, band } = stillRows(rows, options);
  const found = bandShift({ before: rows[0]!, after: rows[1]!, head, band }, { expected: options.expectedShift });
  const lead = found?.lead ?? 0;
  return { head: head + lead, band: band - lead };
}

function stillRows(rows: RowSignatures[], options: Pick<StitchOptions, "top" | "bottom">): StillRows {
  const height = rows[0]!.ids.length;
  const top = Math.max(0, Math.min(options.top, height));
  const bottom = Math.max(top, Math.min(options.bottom, height));
  const { header, footer } = stickyRows(rows, top, bottom);
  return { head: top + header, band: bottom - footer - top - header };
}

/**
 * Rows at the top and bottom of `[top, bottom)` alike on every screen: what did not move while
 * the rest scrolled. With one screen nothing can be told, and nothing is sticky.
 */
function stickyRows(rows: RowSignatures[], top: number, bottom: number): { header: number; footer: number } {
  if (rows.length < 2) return { header: 0, footer: 0 };
  const still = (y: number) => rows.every((r) => rowsAlike(r, y, rows[0]!, y));
  let header = 0;
  while (top + header < bottom && still(top + header)) header++;
  let footer = 0;
  while (bottom - footer - 1 >= top + header && still(bottom - footer - 1)) footer++;
  // Every row still: the screens are alike there, which a stitch never gets (a swipe that moved nothing ends it).
  if (top + header >= bottom - footer) return { header: 0, footer: 0 };
  return { header, footer };
}

/** Two screens' rows and the band they scroll in. */
interface BandPair {
  before: RowSignatures;
  after: RowSignatures;
  head: number;
  band: number;
}

/**
 * How far the content moved up from `before` to `after`: the offset whose overlapping rows agree
 * best, at least {@link MIN_ROW_MATCH} of them, leaving out a header that changed at the top of the
 * band; among equals, the one nearest `expected`, then the one with the shorter changed header.
 * `undefined` when none does.
 */
function bandShift(pair: BandPair, { expected }: { expected: number }): { shift: number; lead: number } | undefined {
  const { band } = pair;
  const minOverlap = Math.max(1, Math.ceil(band * MIN_OVERLAP_SHARE));
  let best: { shift: number; score: number; lead: number } | undefined;
  for (let shift = 1; band - shift >= minOverlap; shift++) {
    const found = overlapScore(pair, shift, minOverlap);
    if (!found) continue;
    const { score, lead } = found;
    const tie = best && Math.abs(score - best.score) <= 1e-9;
    const nearer = best && Math.abs(shift - expected) < Math.abs(best.shift - expected);
    const nearAsBest = best && Math.abs(shift - expected) === Math.abs(best.shift - expected);
    if (!best || score > best.score + 1e-9 || (tie && (nearer || (nearAsBest && lead < best.lead)))) {
      best = { shift, score, lead };
    }
  }
  return best && { shift: best.shift, lead: best.lead };
}

/**
 * The share of alike rows where `after`'s band lies `shift` rows up on `before`'s, and how many rows
 * at its top were left out as a changing header; `undefined` below {@link MIN_ROW_MATCH}.
 */
function overlapScore(
  { before, after, head, band }: BandPair,
  shift: number,
  minOverlap: number,
): { score: number; lead: number } | undefined {
  const overlap = band - shift;
  const alike = (i: number) => rowsAlike(after, head + i, before, head + i + shift);
  const lead = changedHeader(alike, Math.min(overlap, Math.floor(band * MAX_CHANGING_HEADER_SHARE)));
  const counted = overlap - lead;
  if (counted < minOverlap) return undefined;
  const allowedMisses = Math.floor(counted * (1 - MIN_ROW_MATCH));
  let misses = 0;
  for (let i = lead; i < overlap && misses <= allowedMisses; i++) if (!alike(i)) misses++;
  return misses > allowedMisses ? undefined : { score: 1 - misses / counted, lead };
}

/** Rows at the top that are not alike (allowing short alike gaps inside), at most `most`. */
function changedHeader(alike: (i: number) => boolean, most: number): number {
  let lead = 0;
  for (let i = 0; i < most && i - lead <= HEADER_GAP_ROWS; i++) if (!alike(i)) lead = i + 1;
  return lead;
}

/**
 * How far the content moved up from `before` to `after` (negative: down), found as the stitcher
 * finds it; `undefined` when the two do not overlap. Screens of one size.
 */
export function shiftBetween(before: RawImage, after: RawImage, options: StitchOptions): number | undefined {
  const rows = rowSignatures([before, after]);
  const { head, band } = stillRows(rows, options);
  const pair = { head, band };
  const down = bandShift({ ...pair, before: rows[0]!, after: rows[1]! }, { expected: options.expectedShift });
  if (down !== undefined) return down.shift;
  const up = bandShift({ ...pair, before: rows[1]!, after: rows[0]! }, { expected: options.expectedShift });
  return up === undefined ? undefined : -up.shift;
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
