/*
 * Counting differing pixels with pixelmatch's metric (its YIQ colour distance, checkerboard
 * blending of transparent pixels and anti-aliasing detector, so counts equal pixelmatch's on
 * the same pair) without copying either image, and stopping once the verdict is known.
 *
 * Masks are not painted into copies: a masked pixel is skipped, and where the anti-aliasing
 * detector looks at a masked neighbour it reads the flat grey (0x80 in every channel) that
 * painting would have put there, so the count is the one pixelmatch gives on painted copies.
 * Rows are compared in bands: a band whose bytes are equal (memcmp) has no differing pixel and
 * is not looked at pixel by pixel. The detector reads neighbours across band edges from the
 * whole image (up to two rows away), so a band edge never changes a pixel's verdict.
 */
import type { Rect } from "../ground/geometry.js";

/** Two same-sized RGBA images. */
interface Pixels {
  data: Uint8Array;
  width: number;
  height: number;
}

/** What {@link countDiffPixels} found. */
export interface DiffCount {
  /** Differing pixels outside the masks; a lower bound when `complete` is false. */
  diffPixels: number;
  /** False when counting stopped because more than `stopAbove` pixels differed. */
  complete: boolean;
}

/** The byte a diff image's masks are painted with, in R, G, B and alpha alike. */
export const MASK_GREY_BYTE = 0x80;
/** A painted mask pixel as one little-endian RGBA uint32. */
const MASK_GREY = MASK_GREY_BYTE * 0x01010101;
/** Rows per band: small enough that an early stop comes soon, large enough that memcmp dominates. */
const BAND_ROWS = 16;
/** pixelmatch's largest possible YIQ distance. */
export const MAX_YIQ_DELTA = 35215;

/** A mask clipped to the image and rounded outward to whole pixels, as [x0, x1) x [y0, y1). */
interface Span {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** Clip masks to a `width` x `height` image, rounding outward; empty ones are dropped. */
export function maskSpans(masks: readonly Rect[], width: number, height: number): Span[] {
  const spans: Span[] = [];
  for (const m of masks) {
    const x0 = Math.max(0, Math.floor(m.x));
    const y0 = Math.max(0, Math.floor(m.y));
    const x1 = Math.min(width, Math.ceil(m.x + m.width));
    const y1 = Math.min(height, Math.ceil(m.y + m.height));
    if (x0 < x1 && y0 < y1) spans.push({ x0, x1, y0, y1 });
  }
  return spans;
}

/** Uint32 view of RGBA bytes, copying only when the bytes are not 4-aligned (pixelmatch needs the same). */
export function words(data: Uint8Array, pixels: number): Uint32Array {
  if (data.byteOffset % 4 === 0) return new Uint32Array(data.buffer, data.byteOffset, pixels);
  return new Uint32Array(Uint8Array.from(data.subarray(0, pixels * 4)).buffer);
}

/** How {@link countDiffPixels} and the row comparison (src/core/pixels/png-compare.ts) count. */
export interface DiffCounting {
  /** Per-pixel colour distance tolerated, pixelmatch's threshold (0-1). */
  threshold: number;
  /** Rectangles whose pixels are not counted. */
  masks?: readonly Rect[];
  /** Stop once more pixels than this differ (the count is then incomplete). */
  stopAbove?: number;
}

/**
 * Count the pixels of `a` and `b` outside `masks` that differ by more than `threshold`
 * (pixelmatch's, 0-1) and are not anti-aliasing, stopping once the count exceeds `stopAbove`.
 */
export function countDiffPixels(
  a: Pixels,
  b: Pixels,
  { threshold, masks = [], stopAbove = Infinity }: DiffCounting,
): DiffCount {
  const counter = new DiffCounter(a, b, threshold, masks);
  const complete = counter.countRows(0, a.height, stopAbove);
  return { diffPixels: counter.diffPixels, complete };
}

/**
 * Counts differing pixels of two same-sized images row range by row range, so a caller that
 * fills the images from the top down (src/core/pixels/png-compare.ts) can count rows as they arrive.
 * Counting rows [top, bottom) reads rows top - 2 to bottom + 1 (the anti-aliasing detector's
 * reach), which must hold their pixels by then; no other row is read. The images may be a band
 * of taller ones, starting at row `firstRow` of them: pixelmatch's checkerboard under
 * transparent pixels then stays where it is on the whole image.
 */
export class DiffCounter {
  /** Differing pixels counted so far. */
  diffPixels = 0;
  private readonly width: number;
  private readonly height: number;
  private readonly a32: Uint32Array;
  private readonly b32: Uint32Array;
  private readonly aBytes: Buffer;
  private readonly bBytes: Buffer;
  private readonly masked: Masked;
  /** Rows within the detector's reach of a mask, which need mask checks. */
  private readonly nearMask: Uint8Array;
  private readonly maxDelta: number;
  /** Pixels of the whole image above this band. */
  private readonly firstPixel: number;
  /** Row runs in which the same masks are active, with the segments of a row they leave open. */
  private readonly runs: { top: number; bottom: number; open: [number, number][] }[] = [];

  constructor(a: Pixels, b: Pixels, threshold: number, masks: readonly Rect[] = [], firstRow = 0) {
    const { width, height } = a;
    this.firstPixel = firstRow * width;
    const total = width * height;
    if (a.data.length < total * 4 || b.data.length < total * 4) {
      throw new Error(`Image data is shorter than ${width}x${height} RGBA pixels.`);
    }
    this.width = width;
    this.height = height;
    this.a32 = words(a.data, total);
    this.b32 = words(b.data, total);
    this.aBytes = Buffer.from(a.data.buffer, a.data.byteOffset, total * 4);
    this.bBytes = Buffer.from(b.data.buffer, b.data.byteOffset, total * 4);
    const spans = maskSpans(masks, width, height);
    this.masked = (x: number, y: number) => inSpans(spans, x, y);
    // The detector reads up to two rows away: rows farther than that from every mask need no mask checks.
    this.nearMask = new Uint8Array(height);
    for (const s of spans) this.nearMask.fill(1, Math.max(0, s.y0 - 2), Math.min(height, s.y1 + 2));
    this.maxDelta = MAX_YIQ_DELTA * threshold * threshold;
    const edges = [...new Set([0, height, ...spans.flatMap((s) => [s.y0, s.y1])])].sort((p, q) => p - q);
    for (let e = 0; e + 1 < edges.length; e++) {
      const top = edges[e]!;
      const bottom = edges[e + 1]!;
      const open = unmaskedSegments(
        spans.filter((s) => s.y0 <= top && s.y1 >= bottom),
        width,
      );
      // A run under a full-width mask has nothing to count.
      if (open.length) this.runs.push({ top, bottom, open });
    }
  }

  /**
   * Count the differing pixels of rows [top, bottom) into {@link diffPixels}; false once the
   * count exceeds `stopAbove` (counting then stops).
   */
  countRows(top: number, bottom: number, stopAbove = Infinity): boolean {
    const { width, height, a32, b32, aBytes, bBytes, nearMask, masked, maxDelta, firstPixel } = this;
    for (const run of this.runs) {
      const from = Math.max(top, run.top);
      const to = Math.min(bottom, run.bottom);
      for (let bandTop = from; bandTop < to; bandTop += BAND_ROWS) {
        const bandBottom = Math.min(to, bandTop + BAND_ROWS);
        const start = bandTop * width * 4;
        const end = bandBottom * width * 4;
        if (aBytes.compare(bBytes, start, end, start, end) === 0) continue;
        for (let y = bandTop; y < bandBottom; y++) {
          const near = nearMask[y] ? masked : undefined;
          for (const [x0, x1] of run.open) {
            for (let x = x0, i = y * width + x0; x < x1; x++, i++) {
              const pa = a32[i]!;
              const pb = b32[i]!;
              if (pa === pb) continue;
              const k = (i + firstPixel) * 4;
              const delta = colourDelta(pa, pb, k);
              if (Math.abs(delta) <= maxDelta) continue;
              if (
                antialiased(a32, b32, x, y, width, height, near, k) ||
                antialiased(b32, a32, x, y, width, height, near, k)
              )
                continue;
              if (++this.diffPixels > stopAbove) return false;
            }
          }
        }
      }
    }
    return true;
  }
}

function inSpans(spans: readonly Span[], x: number, y: number): boolean {
  for (const s of spans) if (x >= s.x0 && x < s.x1 && y >= s.y0 && y < s.y1) return true;
  return false;
}

/** The [x0, x1) segments of a row not covered by `active` masks, left to right. */
function unmaskedSegments(active: readonly Span[], width: number): [number, number][] {
  const covered = active.map((s) => [s.x0, s.x1] as const).sort((p, q) => p[0] - q[0]);
  const open: [number, number][] = [];
  let x = 0;
  for (const [x0, x1] of covered) {
    if (x0 > x) open.push([x, x0]);
    x = Math.max(x, x1);
  }
  if (x < width) open.push([x, width]);
  return open;
}

/** The pixel at (x, y) as a painted copy would hold it: grey inside a mask. */
function pixelAt(img: Uint32Array, x: number, y: number, width: number, masked: Masked): number {
  return masked?.(x, y) ? MASK_GREY : img[y * width + x]!;
}

type Masked = ((x: number, y: number) => boolean) | undefined;

/** Channel differences of the last {@link blendDifferences} (reused: this runs for every differing pixel). */
const channelDelta = new Float64Array(3);

/**
 * Channel differences of two RGBA pixels into {@link channelDelta}, blended over pixelmatch's
 * checkerboard when either is transparent; `k` is the centre pixel's byte offset, which picks
 * the checkerboard colour.
 */
function blendDifferences(p: number, q: number, k: number): void {
  const r1 = p & 0xff;
  const g1 = (p >>> 8) & 0xff;
  const b1 = (p >>> 16) & 0xff;
  const a1 = p >>> 24;
  const r2 = q & 0xff;
  const g2 = (q >>> 8) & 0xff;
  const b2 = (q >>> 16) & 0xff;
  const a2 = q >>> 24;
  if (a1 === 255 && a2 === 255) {
    channelDelta[0] = r1 - r2;
    channelDelta[1] = g1 - g2;
    channelDelta[2] = b1 - b2;
    return;
  }
  const da = a1 - a2;
  const rb = 48 + 159 * (k % 2);
  const gb = 48 + 159 * (((k / 1.618033988749895) | 0) % 2);
  const bb = 48 + 159 * (((k / 2.618033988749895) | 0) % 2);
  channelDelta[0] = (r1 * a1 - r2 * a2 - rb * da) / 255;
  channelDelta[1] = (g1 * a1 - g2 * a2 - gb * da) / 255;
  channelDelta[2] = (b1 * a1 - b2 * a2 - bb * da) / 255;
}

/** Brightness (YIQ's Y) difference of two differing pixels. */
function brightnessDelta(p: number, q: number, k: number): number {
  if (p >>> 24 === 255 && q >>> 24 === 255) {
    return (
      ((p & 0xff) - (q & 0xff)) * 0.29889531 +
      (((p >>> 8) & 0xff) - ((q >>> 8) & 0xff)) * 0.58662247 +
      (((p >>> 16) & 0xff) - ((q >>> 16) & 0xff)) * 0.11448223
    );
  }
  blendDifferences(p, q, k);
  return channelDelta[0]! * 0.29889531 + channelDelta[1]! * 0.58662247 + channelDelta[2]! * 0.11448223;
}

/** Squared YIQ distance of two differing pixels, negative when the second is lighter. */
export function colourDelta(p: number, q: number, k: number): number {
  let dr = (p & 0xff) - (q & 0xff);
  let dg = ((p >>> 8) & 0xff) - ((q >>> 8) & 0xff);
  let db = ((p >>> 16) & 0xff) - ((q >>> 16) & 0xff);
  if (p >>> 24 !== 255 || q >>> 24 !== 255) {
    blendDifferences(p, q, k);
    dr = channelDelta[0]!;
    dg = channelDelta[1]!;
    db = channelDelta[2]!;
  }
  const y = dr * 0.29889531 + dg * 0.58662247 + db * 0.11448223;
  const i = dr * 0.59597799 - dg * 0.2741761 - db * 0.32180189;
  const q2 = dr * 0.21147017 - dg * 0.52261711 + db * 0.31114694;
  const delta = 0.5053 * y * y + 0.299 * i * i + 0.1957 * q2 * q2;
  return y > 0 ? -delta : delta;
}

/**
 * Whether the pixel at (x1, y1) of `img` looks like anti-aliasing: among its 8 neighbours it has
 * both a darker and a brighter one, at most two equal ones, and the darkest or the brightest
 * neighbour has 3+ equal neighbours of its own in both images. `k` is the pixel's byte offset
 * in the whole image (it picks the checkerboard colour under transparent pixels).
 */
function antialiased(
  img: Uint32Array,
  other: Uint32Array,
  x1: number,
  y1: number,
  width: number,
  height: number,
  masked: Masked,
  k: number,
): boolean {
  const x0 = Math.max(x1 - 1, 0);
  const y0 = Math.max(y1 - 1, 0);
  const x2 = Math.min(x1 + 1, width - 1);
  const y2 = Math.min(y1 + 1, height - 1);
  const centre = img[y1 * width + x1]!;
  let zeroes = x1 === x0 || x1 === x2 || y1 === y0 || y1 === y2 ? 1 : 0;
  let min = 0;
  let max = 0;
  let minX = 0;
  let minY = 0;
  let maxX = 0;
  let maxY = 0;
  for (let x = x0; x <= x2; x++) {
    for (let y = y0; y <= y2; y++) {
      if (x === x1 && y === y1) continue;
      const neighbour = pixelAt(img, x, y, width, masked);
      const delta = neighbour === centre ? 0 : brightnessDelta(centre, neighbour, k);
      if (delta === 0) {
        if (++zeroes > 2) return false;
      } else if (delta < min) {
        min = delta;
        minX = x;
        minY = y;
      } else if (delta > max) {
        max = delta;
        maxX = x;
        maxY = y;
      }
    }
  }
  if (min === 0 || max === 0) return false;
  return (
    (hasManySiblings(img, minX, minY, width, height, masked) &&
      hasManySiblings(other, minX, minY, width, height, masked)) ||
    (hasManySiblings(img, maxX, maxY, width, height, masked) &&
      hasManySiblings(other, maxX, maxY, width, height, masked))
  );
}

/** Whether the pixel at (x1, y1) has 3+ neighbours of exactly its colour (image edges count as one). */
function hasManySiblings(
  img: Uint32Array,
  x1: number,
  y1: number,
  width: number,
  height: number,
  masked: Masked,
): boolean {
  const x0 = Math.max(x1 - 1, 0);
  const y0 = Math.max(y1 - 1, 0);
  const x2 = Math.min(x1 + 1, width - 1);
  const y2 = Math.min(y1 + 1, height - 1);
  const value = pixelAt(img, x1, y1, width, masked);
  let zeroes = x1 === x0 || x1 === x2 || y1 === y0 || y1 === y2 ? 1 : 0;
  for (let x = x0; x <= x2; x++) {
    for (let y = y0; y <= y2; y++) {
      if (x === x1 && y === y1) continue;
      if (value === pixelAt(img, x, y, width, masked) && ++zeroes > 2) return true;
    }
  }
  return false;
}
