/**
 * A change's fingerprint, to group the same change on several devices (docs/reviewing.md
 * "Grouped changes"), as Percy and Applitools group identical diffs. Both images are scaled so their
 * long side is {@link FINGERPRINT_SIDE} pixels (a phone screenshot's diff at full size takes about
 * a second; the grid below is far coarser than that scale). The screen is cut into a
 * {@link GRID_COLUMNS} x {@link GRID_ROWS} grid in its own proportions, so phones of different
 * sizes and densities share cells; a cell is changed when pixelmatch's diff (src/core/pixels/banded-diff.ts,
 * as `compare` draws it) paints at least {@link MIN_CELL_PIXELS} of its pixels red. The fingerprint is a hash
 * of which cells changed: the same button restyled on a Pixel and an iPhone gives the same one, a
 * change elsewhere on one of them another.
 */
import { createHash } from "node:crypto";
import { bandedDiff } from "../../core/pixels/banded-diff.js";
import { decode, DEFAULT_THRESHOLD, resizeToFit } from "../../core/pixels/images.js";

export const FINGERPRINT_SIDE = 800;
export const GRID_COLUMNS = 8;
export const GRID_ROWS = 16;
/** Fewer red pixels than this in a cell is noise (a caret, one glyph's edge), not a change. */
export const MIN_CELL_PIXELS = 4;

/** The fingerprint of the change from `before` to `after` (PNGs), or `undefined` when they cannot be compared. */
export async function changeFingerprint(before: Buffer, after: Buffer): Promise<string | undefined> {
  const scaled = async (png: Buffer) =>
    decode((await resizeToFit(png, { maxSide: FINGERPRINT_SIDE, format: "png" })).data);
  const [a, b] = await Promise.all([scaled(before), scaled(after)]);
  if (a.width !== b.width || a.height !== b.height) return undefined;
  const { width, height } = a;
  // The raw diff image compare() would encode: a differing pixel pure red, every other one grey or yellow.
  const { diff } = await bandedDiff(a.data, b.data, { width, height, threshold: DEFAULT_THRESHOLD });
  const counts = new Uint32Array(GRID_COLUMNS * GRID_ROWS);
  for (let y = 0; y < height; y++) {
    const row = Math.floor((y * GRID_ROWS) / height) * GRID_COLUMNS;
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      if (diff[i] === 255 && diff[i + 1] === 0 && diff[i + 2] === 0) {
        counts[row + Math.floor((x * GRID_COLUMNS) / width)]!++;
      }
    }
  }
  const cells = [...counts].map((n) => (n >= MIN_CELL_PIXELS ? "1" : "0")).join("");
  if (!cells.includes("1")) return "unchanged";
  return createHash("sha256").update(`${GRID_COLUMNS}x${GRID_ROWS}:${cells}`).digest("hex").slice(0, 12);
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
