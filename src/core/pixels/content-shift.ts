/*
 * Whether a screenshot's content moved vertically against its baseline (docs/heal.md, "Screenshot
 * baselines"): a report for the mismatch message only, never part of the verdict.
 *
 * Each row between the system bars gets a signature, a hash of its grey levels quantised to 64
 * steps; rows of one grey level say nothing about position and are left out. The model is "the
 * rows above y=Y stayed, the rows from Y down moved by d": for every d within a third of the
 * content height, prefix sums over the rows give the best Y, and the best (Y, d) is reported
 * when it explains clearly more rows than "nothing moved" and most of the rows overall.
 */
import type { RawImage } from "./image-decode.js";

/** The rows of the screen between the system bars, [top, bottom). */
export interface ContentBand {
  top: number;
  bottom: number;
}

/** A vertical move of the content from row `below` of the baseline down, by `by` pixels (negative: up). */
export interface ContentShift {
  below: number;
  by: number;
}

/** Grey levels are compared in steps of 4 (of 256), so a 1-level rendering difference rarely splits a row. */
const GREY_SHIFT = 2;
/** A shift larger than this share of the content height is not looked for. */
const MAX_SHIFT_SHARE = 1 / 3;
/** A shift must explain at least this many more rows than "nothing moved" ... */
const MIN_GAIN_ROWS = 8;
/** ... and this share of the rows with content, so a small local change never reads as a shift. */
const MIN_GAIN_SHARE = 0.1;
/** The shifted model must agree with at least this share of the rows it can check. */
const MIN_AGREEMENT = 0.8;
/** Marks a row with one grey level only. */
const PLAIN = -1;

/**
 * The vertical shift that best explains how `shot` differs from `baseline` (same size) within
 * `band`, or `undefined` when the content did not move as a block.
 */
export function estimateContentShift(baseline: RawImage, shot: RawImage, band: ContentBand): ContentShift | undefined {
  if (baseline.width !== shot.width || baseline.height !== shot.height) return undefined;
  const top = Math.max(0, band.top);
  const bottom = Math.min(baseline.height, band.bottom);
  const rows = bottom - top;
  if (rows <= 0) return undefined;
  const was = rowSignatures(baseline, top, bottom);
  const now = rowSignatures(shot, top, bottom);
  let content = 0;
  let stayed = 0;
  for (let y = 0; y < rows; y++) {
    if (was[y] === PLAIN) continue;
    content++;
    if (was[y] === now[y]) stayed++;
  }
  const minGain = Math.max(MIN_GAIN_ROWS, Math.ceil(content * MIN_GAIN_SHARE));
  const maxShift = Math.floor(rows * MAX_SHIFT_SHARE);
  // stayedBefore[y]: content rows above y that match in place.
  const stayedBefore = new Int32Array(rows + 1);
  for (let y = 0; y < rows; y++)
    stayedBefore[y + 1] = stayedBefore[y]! + (was[y] !== PLAIN && was[y] === now[y] ? 1 : 0);
  const contentBefore = new Int32Array(rows + 1);
  for (let y = 0; y < rows; y++) contentBefore[y + 1] = contentBefore[y]! + (was[y] !== PLAIN ? 1 : 0);

  let best: { score: number; below: number; by: number; checked: number } | undefined;
  for (let d = -maxShift; d <= maxShift; d++) {
    if (d === 0) continue;
    // Walking Y from the bottom up: rows from Y down are judged at offset d, rows above Y in place.
    let movedAgree = 0;
    let movedChecked = 0;
    for (let y = rows - 1; y >= 0; y--) {
      const target = y + d;
      if (was[y] !== PLAIN && target >= 0 && target < rows) {
        movedChecked++;
        if (was[y] === now[target]) movedAgree++;
      }
      const score = stayedBefore[y]! + movedAgree;
      if (score - stayed < minGain) continue;
      if (!best || score > best.score) {
        best = { score, below: y, by: d, checked: contentBefore[y]! + movedChecked };
      }
    }
  }
  if (!best || best.score < MIN_AGREEMENT * best.checked) return undefined;
  return { below: top + best.below, by: best.by };
}

/** One hash per row of [top, bottom), or {@link PLAIN} for a row of one grey level. */
function rowSignatures(image: RawImage, top: number, bottom: number): Int32Array {
  const { data, width } = image;
  const signatures = new Int32Array(bottom - top);
  for (let y = top; y < bottom; y++) {
    let hash = 0x811c9dc5;
    let first = -1;
    let plain = true;
    for (let x = 0, i = y * width * 4; x < width; x++, i += 4) {
      // Integer Rec. 601 luma: (77 R + 150 G + 29 B) / 256.
      const grey = ((77 * data[i]! + 150 * data[i + 1]! + 29 * data[i + 2]!) >> 8) >> GREY_SHIFT;
      if (first < 0) first = grey;
      else if (grey !== first) plain = false;
      hash = Math.imul(hash ^ grey, 0x01000193);
    }
    signatures[y - top] = plain ? PLAIN : hash & 0x7fffffff;
  }
  return signatures;
}

/** The shift in words for a mismatch message, in screenshot pixels. */
export function describeContentShift(shift: ContentShift): string {
  const direction = shift.by > 0 ? "down" : "up";
  return `the content below y=${shift.below} moved ${direction} by ${Math.abs(shift.by)} px`;
}
