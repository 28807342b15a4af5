/*
 * Decoding images to RGBA (4 bytes a pixel) and reading their size: a small PNG by the row
 * decoder, anything else by libvips; every image passes the gate of image-input.ts first.
 */
import type { Rect, Size } from "../ground/geometry.js";
import { InputError } from "../ground/errors.js";
import { checkDecodable, withLibvips } from "./image-input.js";
import { pngSize } from "./png.js";
import { decodePngRect } from "./png-rows.js";
import { rectFits } from "./pixel-rects.js";

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
export function checkRectInside(image: Buffer, rect: Rect): void {
  checkDecodable(image);
  const size = pngSize(image);
  if (size && !rectFits(rect, size.width, size.height)) {
    throw new InputError(
      `The rectangle ${JSON.stringify(rect)} does not fit the ${size.width}x${size.height} image: pass one inside it.`,
    );
  }
}
