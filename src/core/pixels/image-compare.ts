/*
 * Comparing two images with pixelmatch's metric: identical bytes first, then PNG rows as they
 * are inflated, then decoded pixels; a diff image only when a failure is reported.
 */
import type { Rect } from "../ground/geometry.js";
import { bandedDiff } from "./banded-diff.js";
import { checkDecodable } from "./image-input.js";
import { decode, type RawImage } from "./image-decode.js";
import { encodePng } from "./image-encode.js";
import { countDiffPixels, MASK_GREY_BYTE, maskSpans } from "./pixel-diff.js";
import { comparePngRows } from "./png-compare.js";
import { pngSize } from "./png.js";

/** The per-pixel colour distance a comparison tolerates unless told otherwise (pixelmatch's own default is 0.1). */
export const DEFAULT_THRESHOLD = 0.1;

/** Options for {@link compare}, in the spirit of pixelmatch's. */
export interface CompareOptions {
  /** Per-pixel colour distance tolerated, 0 (exact) to 1 (anything); pixelmatch's threshold. Default 0.1. */
  threshold?: number;
  /** Rectangles ignored in both images (status bar, varying content). */
  masks?: Rect[];
  /** Also produce a diff image (red where pixels differ, masks shaded); the count is then always complete. */
  diff?: boolean;
  /**
   * Stop counting once more than this many pixels differ (the verdict is known); the result then
   * has `stoppedAbove` set and `diffPixels` is a lower bound. Ignored with `diff`.
   */
  stopAbove?: number;
  /** Stops drawing a diff image between bands of rows, so a deadline can cut it short. */
  signal?: AbortSignal | undefined;
}

/** Result of {@link compare}. */
export interface CompareResult {
  /** Pixels that differ outside the masks (a lower bound when `stoppedAbove` is set). */
  diffPixels: number;
  /** `diffPixels` divided by all pixels. */
  diffRatio: number;
  /** The diff image as PNG, when asked for. */
  diffPng?: Buffer;
  /** Set when counting stopped early: more than this many pixels differ. */
  stoppedAbove?: number;
}

/**
 * Compare two same-sized images. Identical bytes return at once (the fast path that
 * a stable screen hits on almost every replay); otherwise differing pixels outside the masks
 * are counted with pixelmatch's metric, anti-aliased pixels not counted, without copying either
 * image (pixelmatch's count). Only a diff image paints the masks, into copies made for
 * this call: it is drawn when a failure is reported, not on every comparison.
 */
export async function compare(a: RawImage, b: RawImage, options: CompareOptions = {}): Promise<CompareResult> {
  if (a.width !== b.width || a.height !== b.height) {
    throw new Error(`Cannot compare a ${a.width}x${a.height} image with a ${b.width}x${b.height} one.`);
  }
  const total = a.width * a.height;
  const masks = options.masks ?? [];
  const threshold = options.threshold ?? DEFAULT_THRESHOLD;
  if (!options.diff) {
    if (a.data.equals(b.data)) return { diffPixels: 0, diffRatio: 0 };
    const stopAbove = options.stopAbove ?? Infinity;
    const { diffPixels, complete } = countDiffPixels(a, b, { threshold, masks, stopAbove });
    return { diffPixels, diffRatio: diffPixels / total, ...(complete ? {} : { stoppedAbove: stopAbove }) };
  }
  const spans = maskSpans(masks, a.width, a.height);
  const { diff, diffPixels } = await bandedDiff(painted(a, spans), painted(b, spans), {
    width: a.width,
    height: a.height,
    threshold,
    signal: options.signal,
  });
  const diffPng = await encodePng({ data: diff, width: a.width, height: a.height });
  return { diffPixels, diffRatio: diffPixels / total, diffPng };
}

/**
 * Compare two PNGs (or other images sharp reads): identical bytes answer before anything is
 * decoded; two 8-bit RGB(A) PNGs are compared row by row as they are inflated, rows whose
 * filtered bytes are equal skipped undecoded, stopping at the verdict;
 * other images are decoded and compared as {@link compare} does.
 */
export async function comparePng(a: Buffer, b: Buffer, options: CompareOptions = {}): Promise<CompareResult> {
  if (!options.diff) {
    if (a.equals(b)) return { diffPixels: 0, diffRatio: 0 };
    checkDecodable(a);
    checkDecodable(b);
    const { threshold = DEFAULT_THRESHOLD, masks = [], stopAbove = Infinity } = options;
    const counted = comparePngRows(a, b, { threshold, masks, stopAbove });
    if (counted) {
      const { width, height } = pngSize(a)!;
      const { diffPixels, complete } = counted;
      return { diffPixels, diffRatio: diffPixels / (width * height), ...(complete ? {} : { stoppedAbove: stopAbove }) };
    }
  }
  const [left, right] = await Promise.all([decode(a), decode(b)]);
  return compare(left, right, options);
}

/** `raw`'s pixels with the masks painted flat grey: a copy when there are masks, else `raw`'s own bytes. */
function painted(raw: RawImage, spans: ReturnType<typeof maskSpans>): Buffer {
  if (!spans.length) return raw.data;
  const out = Buffer.from(raw.data);
  for (const { x0, x1, y0, y1 } of spans) {
    for (let y = y0; y < y1; y++) out.fill(MASK_GREY_BYTE, (y * raw.width + x0) * 4, (y * raw.width + x1) * 4);
  }
  return out;
}

/** Whether every pixel of the image has the same colour (a blank screen). */
export function isUniform(raw: RawImage): boolean {
  const first = raw.data.readUInt32LE(0);
  for (let i = 4; i < raw.data.length; i += 4) if (raw.data.readUInt32LE(i) !== first) return false;
  return true;
}
