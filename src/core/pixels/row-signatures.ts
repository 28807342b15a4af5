/*
 * Rows compared with room for lossy screenshots (docs/api.md "Whole-page baselines"): UiAutomator2
 * with `appium:mjpegScreenshotUrl` serves MJPEG frames and WebDriverAgent with `screenshotQuality`
 * 1-2 serves JPEG, so the same content differs a little from frame to frame, most where it moved
 * across the 8x8 JPEG blocks. Each row is cut into cells of ROW_CELL pixels and keeps the mean of
 * each colour channel per cell; two rows are alike when equal byte for byte (the lossless case,
 * one hash per row) or when no cell's mean differs by more than ROW_TOLERANCE.
 *
 * The tolerance was measured on two real rendered screenshots (storage/_ai_/screenshots/{android,
 * ios}/cart, 1080x2400 and 1179x2556), cut into two frames 37 rows apart (a scroll, so content sits
 * differently on the JPEG blocks and on 4:2:0 chroma pairs) and each encoded by sharp's JPEG at
 * quality 50, 65 and 80 and decoded. The largest cell difference between the same content row in
 * the two frames was, at quality 50: median 4.8-5.1, 99th percentile 21.7-29.5, worst 44-55 (rows
 * on a horizontal colour edge); at 80: 99th percentile 16, worst 37-39. The same frame at quality 50
 * against 80, in place: worst 23.6-36.1. Rows of other content 3 rows apart: median 57. So 48 keeps
 * every in-place frame pair alike with a margin of 12 and all but under 1% of scrolled rows, which
 * the stitcher's 98% row rule absorbs (src/core/flows/screenshot/stitch.ts).
 */
import { createHash } from "node:crypto";
import type { RawImage } from "./image-decode.js";

/** Width in pixels of the cells a row is averaged over. */
export const ROW_CELL = 16;
/** The largest difference of one cell's channel mean (0-255) for two rows to be alike; measured above. */
export const ROW_TOLERANCE = 48;

/** One screen's rows, ready to compare: an id per distinct row content and the cell means. */
export interface RowSignatures {
  /** Equal rows (byte for byte, across every screen given to one {@link rowSignatures} call) share an id. */
  ids: Int32Array;
  /** Per row, `cells * 3` channel means. */
  means: Float32Array;
  cells: number;
}

/** The signatures of each screen's rows (all of one width), ids shared between them. */
export function rowSignatures(screens: RawImage[]): RowSignatures[] {
  const known = new Map<string, number>();
  return screens.map((s) => {
    const stride = s.width * 4;
    // A plain Uint8Array view: indexing a Buffer made in another realm (a test runner's VM context) is many times slower.
    const pixels = new Uint8Array(s.data.buffer, s.data.byteOffset, s.data.length);
    const cells = Math.max(1, Math.ceil(s.width / ROW_CELL));
    const ids = new Int32Array(s.height);
    const means = new Float32Array(s.height * cells * 3);
    for (let y = 0; y < s.height; y++) {
      const row = pixels.subarray(y * stride, (y + 1) * stride);
      const key = createHash("sha1").update(row).digest("base64");
      let id = known.get(key);
      if (id === undefined) known.set(key, (id = known.size));
      ids[y] = id;
      cellMeans(row, s.width, means.subarray(y * cells * 3, (y + 1) * cells * 3));
    }
    return { ids, means, cells };
  });
}

function cellMeans(row: Uint8Array, width: number, out: Float32Array): void {
  for (let c = 0; c * ROW_CELL < width; c++) {
    const x1 = Math.min(width, (c + 1) * ROW_CELL);
    let r = 0;
    let g = 0;
    let b = 0;
    for (let x = c * ROW_CELL; x < x1; x++) {
      r += row[x * 4]!;
      g += row[x * 4 + 1]!;
      b += row[x * 4 + 2]!;
    }
    const n = x1 - c * ROW_CELL;
    out[c * 3] = r / n;
    out[c * 3 + 1] = g / n;
    out[c * 3 + 2] = b / n;
  }
}

/** Whether row `ya` of `a` and row `yb` of `b` are alike: equal, or within {@link ROW_TOLERANCE} in every cell. */
export function rowsAlike(a: RowSignatures, ya: number, b: RowSignatures, yb: number): boolean {
  if (a.ids[ya] === b.ids[yb]) return true;
  const n = a.cells * 3;
  const am = a.means;
  const bm = b.means;
  const pa = ya * n;
  const pb = yb * n;
  // Compared without Math.abs: in a test runner's VM context each call of a global costs ~50x (measured in jest).
  for (let i = 0; i < n; i++) {
    const d = am[pa + i]! - bm[pb + i]!;
    if (d > ROW_TOLERANCE || d < -ROW_TOLERANCE) return false;
  }
  return true;
}

/**
 * Whether two screenshots of one size are alike in rows `[top, bottom)`: every row alike. Byte-equal
 * images answer at once.
 */
export function screensAlike(a: RawImage, b: RawImage, { top, bottom }: { top: number; bottom: number }): boolean {
  if (a.width !== b.width || a.height !== b.height) return false;
  if (a.data.equals(b.data)) return true;
  const [sa, sb] = rowSignatures([a, b]);
  for (let y = Math.max(0, top); y < Math.min(bottom, a.height); y++) if (!rowsAlike(sa!, y, sb!, y)) return false;
  return true;
}

/** How many rows from `top` down are alike in `a` and `b` (same width), before the first that is not. */
export function alikeRowsFromTop(a: RawImage, b: RawImage, { top, bottom }: { top: number; bottom: number }): number {
  if (a.width !== b.width) return 0;
  const [sa, sb] = rowSignatures([a, b]);
  const end = Math.min(bottom, a.height, b.height);
  let y = Math.max(0, top);
  while (y < end && rowsAlike(sa!, y, sb!, y)) y++;
  return y - Math.max(0, top);
}
