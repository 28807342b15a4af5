/**
 * pixelmatch's diff image drawn in bands of rows, yielding to the event loop between bands: a
 * full count of a large screen takes a second or more of synchronous work, and a call's deadline
 * (an abort signal) must be able to stop it (docs/guarantees.md). Each band is matched with the
 * two rows above and below it that pixelmatch's anti-aliasing detector reads, and only its own
 * rows are kept, so the image and count equal one pixelmatch call over the whole screen.
 */
import pixelmatch from "pixelmatch";

/** Rows per band: about 75k pixels on a phone screen, a few milliseconds. */
const BAND_ROWS = 64;
/** How far pixelmatch's anti-aliasing detector reads above and below a pixel, in rows. */
const REACH = 2;
const BYTES = 4;

/** How {@link bandedDiff} matches. */
export interface BandedDiff {
  width: number;
  height: number;
  threshold: number;
  /** Stops the diff between bands, rejecting with the signal's reason. */
  signal?: AbortSignal | undefined;
}

/** pixelmatch's diff image of `a` and `b` (RGBA, same size) and its count of differing pixels. */
export async function bandedDiff(
  a: Buffer,
  b: Buffer,
  { width, height, threshold, signal }: BandedDiff,
): Promise<{ diff: Buffer; diffPixels: number }> {
  const diff = Buffer.alloc(width * height * BYTES);
  const row = width * BYTES;
  let diffPixels = 0;
  for (let y0 = 0; y0 < height; y0 += BAND_ROWS) {
    if (y0 > 0) await new Promise((resolve) => setImmediate(resolve));
    signal?.throwIfAborted();
    const y1 = Math.min(height, y0 + BAND_ROWS);
    const from = Math.max(0, y0 - REACH);
    const to = Math.min(height, y1 + REACH);
    const out = Buffer.alloc((to - from) * row);
    pixelmatch(a.subarray(from * row, to * row), b.subarray(from * row, to * row), out, width, to - from, {
      threshold,
      diffMask: false,
    });
    // Keep the band's own rows; a differing pixel is drawn pure red, every other pixel grey or yellow.
    const own = out.subarray((y0 - from) * row, (y1 - from) * row);
    own.copy(diff, y0 * row);
    for (let i = 0; i < own.length; i += BYTES) {
      if (own[i] === 255 && own[i + 1] === 0 && own[i + 2] === 0) diffPixels++;
    }
  }
  return { diff, diffPixels };
}
