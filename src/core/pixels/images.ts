/*
 * Image operations: sharp decodes, crops, resizes and encodes; pixelmatch compares.
 * Raw images are RGBA, 4 bytes a pixel.
 */
import type { Rect, Size } from "../ground/geometry.js";
import { bandedDiff } from "./banded-diff.js";
import { checkDecodable, withLibvips } from "./image-input.js";
import { countDiffPixels, MASK_GREY_BYTE, maskSpans } from "./pixel-diff.js";
import { comparePngRows } from "./png-compare.js";
import { pngSize } from "./png.js";
import { decodePngRect } from "./png-rows.js";
import { InputError } from "../ground/errors.js";
import { loadSharp } from "./sharp.js";

/** Decoded RGBA pixels. */
export interface RawImage {
  data: Buffer;
  width: number;
  height: number;
}

/**
 * Width and height of a PNG (or JPEG) without decoding its pixels; an InputError when its header
 * declares a size no screen has or it is no image.
 */
export async function imageSize(image: Buffer): Promise<Size> {
  checkDecodable(image);
  // Every screenshot passes here: read a PNG's IHDR chunk directly rather than starting a sharp pipeline.
  const size = pngSize(image);
  if (size) return size;
  const meta = await withLibvips(image, (sharp) => sharp(image).metadata());
  if (!meta.width || !meta.height) throw new InputError("The image has no size: pass a PNG (or JPEG).");
  return { width: meta.width, height: meta.height };
}

/**
 * Up to this many pixels the row decoder (src/core/pixels/png-rows.ts) decodes a PNG as fast as libvips
 * (a stored tap's crop, ~1100x220: 1.2 ms either way); on a whole screen libvips is about twice as fast.
 */
const ROW_DECODER_MAX_PIXELS = 1 << 18;

/**
 * Decode to RGBA. A small PNG of the kind devices send (a stored crop) is decoded by the row
 * decoder, so a replay never loads libvips (loaded lazily); anything else by libvips. An image that
 * cannot be decoded is an InputError saying what is wrong and how to fix it.
 */
export async function decode(image: Buffer): Promise<RawImage> {
  checkDecodable(image);
  const size = pngSize(image);
  if (size && size.width * size.height <= ROW_DECODER_MAX_PIXELS) {
    const rows = decodePngRect(image, { x: 0, y: 0, ...size });
    if (rows) return { data: rows, ...size };
  }
  const { data, info } = await withLibvips(image, (sharp) =>
    sharp(image).ensureAlpha().raw().toBuffer({ resolveWithObject: true }),
  );
  return { data, width: info.width, height: info.height };
}

/**
 * Decode only a rectangle. An 8-bit RGB(A) PNG (what devices send) is inflated down to the
 * rectangle's bottom row and unfiltered from the nearest row above it that does not depend on
 * its own row above, a third of what libvips' region decode costs;
 * libvips reads every other image, and also stops reading a PNG below the rectangle.
 */
export async function decodeRegion(image: Buffer, rect: Rect): Promise<RawImage> {
  checkRectInside(image, rect);
  const rows = decodePngRect(image, rect);
  if (rows) return { data: rows, width: rect.width, height: rect.height };
  const { data, info } = await withLibvips(image, (sharp) =>
    sharp(image)
      .extract({ left: rect.x, top: rect.y, width: rect.width, height: rect.height })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true }),
  );
  return { data, width: info.width, height: info.height };
}

/** {@link checkDecodable}, and an InputError when `rect` does not lie inside the PNG `image`. */
function checkRectInside(image: Buffer, rect: Rect): void {
  checkDecodable(image);
  const size = pngSize(image);
  if (size && !rectFits(rect, size.width, size.height)) {
    throw new InputError(
      `The rectangle ${JSON.stringify(rect)} does not fit the ${size.width}x${size.height} image: pass one inside it.`,
    );
  }
}

/** Encode RGBA pixels as PNG. */
export async function encodePng(raw: RawImage): Promise<Buffer> {
  const sharp = await loadSharp();
  return sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: 4 } })
    .png()
    .toBuffer();
}

/** Cut a rectangle out of a PNG, as PNG. */
export async function cropPng(image: Buffer, rect: Rect): Promise<Buffer> {
  checkRectInside(image, rect);
  return withLibvips(image, (sharp) =>
    sharp(image).extract({ left: rect.x, top: rect.y, width: rect.width, height: rect.height }).png().toBuffer(),
  );
}

/** Options for {@link resizeToFit}. */
export interface FitOptions {
  /** Longest side in pixels after resizing; smaller images are left as they are. */
  maxSide: number;
  format: "png" | "jpeg";
  /** JPEG quality, 1-100. */
  quality?: number;
}

/** Downscale so the long side is at most `maxSide`; returns the encoded image and its size. */
export async function resizeToFit(
  image: Buffer,
  { maxSide, format, quality = 85 }: FitOptions,
): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await withLibvips(image, (sharp) => {
    const resized = sharp(image).resize({ width: maxSide, height: maxSide, fit: "inside", withoutEnlargement: true });
    const encoded = format === "jpeg" ? resized.flatten({ background: "#ffffff" }).jpeg({ quality }) : resized.png();
    return encoded.toBuffer({ resolveWithObject: true });
  });
  return { data, width: info.width, height: info.height };
}

/** Round a box outward to whole pixels, padded by `pad`, clamped to `width` x `height`. */
export function toRect(box: Rect, width: number, height: number, pad = 0): Rect {
  const x0 = Math.max(0, Math.floor(box.x - pad));
  const y0 = Math.max(0, Math.floor(box.y - pad));
  const x1 = Math.min(width, Math.ceil(box.x + box.width + pad));
  const y1 = Math.min(height, Math.ceil(box.y + box.height + pad));
  return { x: x0, y: y0, width: Math.max(1, x1 - x0), height: Math.max(1, y1 - y0) };
}

/** Whether `rect` lies inside a `width` x `height` image. */
export function rectFits(rect: Rect, width: number, height: number): boolean {
  return rect.x >= 0 && rect.y >= 0 && rect.x + rect.width <= width && rect.y + rect.height <= height;
}

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

/** Draw a rectangle outline (for artifacts that show where a stored crop was). */
export async function outlineRect(image: Buffer, rect: Rect, color = "#ff0066"): Promise<Buffer> {
  const { width, height } = await imageSize(image);
  const stroke = Math.max(2, Math.round(Math.min(width, height) / 200));
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect x="${rect.x}" y="${rect.y}" width="${rect.width}" height="${rect.height}"
      fill="none" stroke="${color}" stroke-width="${stroke}"/></svg>`;
  const sharp = await loadSharp();
  return sharp(image)
    .composite([{ input: Buffer.from(svg), top: 0, left: 0 }])
    .png()
    .toBuffer();
}

/** Expected, actual and diff side by side, like jest-image-snapshot's composite. */
export async function sideBySide(images: Buffer[]): Promise<Buffer> {
  const sizes = await Promise.all(images.map(imageSize));
  const gap = 8;
  const width = sizes.reduce((sum, s) => sum + s.width, 0) + gap * (images.length - 1);
  const height = Math.max(...sizes.map((s) => s.height));
  let left = 0;
  const layers = images.map((input, i) => {
    const layer = { input, top: 0, left };
    left += sizes[i]!.width + gap;
    return layer;
  });
  const sharp = await loadSharp();
  return sharp({ create: { width, height, channels: 4, background: "#808080" } })
    .composite(layers)
    .png()
    .toBuffer();
}
