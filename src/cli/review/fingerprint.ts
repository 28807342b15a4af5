/**
 * A change's fingerprint, to group the same change on several devices (docs/reviewing.md
 * "Grouped changes"), as Percy and Applitools group identical diffs. It says where the screen changed
 * and what the changed pixels became:
 *
 * - **One scale.** Both images are resized so their long side is {@link FINGERPRINT_SIDE} pixels
 *   (smaller screens enlarged too), so a 1080-wide and a 1179-wide screenshot are measured alike: a
 *   cell's noise floor ({@link MIN_CELL_PIXELS}) is the same share of the screen on every device, and
 *   a phone screenshot's diff at full size (about a second) is not needed.
 * - **Where.** The screen is cut into a {@link GRID_COLUMNS} x {@link GRID_ROWS} grid in its own
 *   proportions, so phones of different sizes and densities share cells; a cell is changed when
 *   pixelmatch's diff (src/core/pixels/banded-diff.ts, as `compare` draws it) paints at least
 *   {@link MIN_CELL_PIXELS} of its pixels red.
 * - **What.** The colour most of the changed pixels of the after-image have, in the changed cells,
 *   quantised to {@link COLOUR_STEP} per channel. A restyle fills the changed pixels with its new
 *   colour on every device, whatever the screen's size: the same button turned red on a Pixel and an
 *   iPhone gives the same fingerprint, turned purple on one of them another. The most common colour,
 *   not the mean, so a device's anti-aliased edges (a share of the pixels that depends on its size
 *   and density) do not move it; coarse steps, so two renders of one colour a few units apart
 *   (resampling, another GPU) still agree.
 *
 * Where it errs it splits: a colour on a step's edge may fall on either side on two devices, and the
 * same change then forms two groups, two clicks instead of one, never one click for two changes.
 */
import { createHash } from "node:crypto";
import { bandedDiff } from "../../core/pixels/banded-diff.js";
import { DEFAULT_THRESHOLD } from "../../core/pixels/image-compare.js";
import { withLibvips } from "../../core/pixels/image-input.js";

export const FINGERPRINT_SIDE = 800;
export const GRID_COLUMNS = 8;
export const GRID_ROWS = 16;
/** Fewer red pixels than this in a cell is noise (a caret, one glyph's edge), not a change. */
export const MIN_CELL_PIXELS = 4;
/** Quantisation of the changed pixels' colour: 8 levels per channel. */
export const COLOUR_STEP = 32;

interface Scaled {
  data: Buffer;
  width: number;
  height: number;
}

/**
 * A PNG resized so its long side is {@link FINGERPRINT_SIDE}, as RGBA pixels; a run folder's image
 * that is not a decodable PNG (a forged size, a cut stream) is refused before libvips reads it.
 */
async function atOneScale(png: Buffer): Promise<Scaled> {
  const { data, info } = await withLibvips(png, (sharp) =>
    sharp(png)
      .resize({ width: FINGERPRINT_SIDE, height: FINGERPRINT_SIDE, fit: "inside" })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true }),
  );
  return { data, width: info.width, height: info.height };
}

/** The grid cell of pixel (x, y). */
function cellOf(x: number, y: number, { width, height }: Scaled): number {
  return Math.floor((y * GRID_ROWS) / height) * GRID_COLUMNS + Math.floor((x * GRID_COLUMNS) / width);
}

/** Whether pixel `i` of pixelmatch's diff image is a differing pixel (pure red; the rest grey or yellow). */
function isChanged(diff: Buffer, i: number): boolean {
  return diff[i * 4] === 255 && diff[i * 4 + 1] === 0 && diff[i * 4 + 2] === 0;
}

/** Which cells changed: the red pixels of `diff` counted per cell. */
function changedCells(diff: Buffer, size: Scaled): boolean[] {
  const counts = new Uint32Array(GRID_COLUMNS * GRID_ROWS);
  for (let y = 0; y < size.height; y++) {
    for (let x = 0; x < size.width; x++) if (isChanged(diff, y * size.width + x)) counts[cellOf(x, y, size)]!++;
  }
  return [...counts].map((n) => n >= MIN_CELL_PIXELS);
}

/** The quantised colour (`r,g,b` in steps) most of the changed pixels of `after` in the changed cells have. */
function changedColour(diff: Buffer, after: Scaled, cells: boolean[]): string {
  const counts = new Map<number, number>();
  const level = (value: number) => Math.floor(value / COLOUR_STEP);
  for (let y = 0; y < after.height; y++) {
    for (let x = 0; x < after.width; x++) {
      const i = y * after.width + x;
      if (!isChanged(diff, i) || !cells[cellOf(x, y, after)]) continue;
      const p = i * 4;
      const bin = (level(after.data[p]!) << 16) | (level(after.data[p + 1]!) << 8) | level(after.data[p + 2]!);
      counts.set(bin, (counts.get(bin) ?? 0) + 1);
    }
  }
  let best = 0;
  let most = -1;
  // Ties go to the smaller bin, so the answer does not depend on the order pixels were met.
  for (const [bin, n] of counts) if (n > most || (n === most && bin < best)) [best, most] = [bin, n];
  return [best >> 16, (best >> 8) & 0xff, best & 0xff].join(",");
}

/** The fingerprint of the change from `before` to `after` (PNGs), or `undefined` when they cannot be compared. */
export async function changeFingerprint(before: Buffer, after: Buffer): Promise<string | undefined> {
  const [a, b] = await Promise.all([atOneScale(before), atOneScale(after)]);
  if (a.width !== b.width || a.height !== b.height) return undefined;
  // The raw diff image compare() would encode: a differing pixel pure red, every other one grey or yellow.
  const { diff } = await bandedDiff(a.data, b.data, { width: a.width, height: a.height, threshold: DEFAULT_THRESHOLD });
  const cells = changedCells(diff, b);
  if (!cells.includes(true)) return "unchanged";
  const where = cells.map((c) => (c ? "1" : "0")).join("");
  const what = changedColour(diff, b, cells);
  return createHash("sha256")
    .update(`${GRID_COLUMNS}x${GRID_ROWS}:${where}:${COLOUR_STEP}:${what}`)
    .digest("hex")
    .slice(0, 12);
}

/** A fingerprint function. */
export type Fingerprinter = (before: Buffer, after: Buffer) => Promise<string | undefined>;

/** {@link changeFingerprint}, remembering the last `limit` answers by the images' hashes (a page reload computes none again). */
export function rememberedFingerprints(limit = 1000): Fingerprinter {
  const known = new Map<string, Promise<string | undefined>>();
  const hash = (png: Buffer) => createHash("sha256").update(png).digest("hex");
  return (before, after) => {
    const id = `${hash(before)}:${hash(after)}`;
    let print = known.get(id);
    if (!print) {
      print = changeFingerprint(before, after).catch(() => undefined);
      known.set(id, print);
      if (known.size > limit) known.delete(known.keys().next().value!);
    }
    return print;
  };
}
