/** The PNG signature and the header fields read without decoding (the PNG specification, https://www.w3.org/TR/png-3/). */
import type { Size } from "../ground/geometry.js";

/** The eight bytes every PNG starts with. */
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Whether `data` starts with the PNG signature. */
export function hasPngSignature(data: Buffer): boolean {
  return data.length >= 8 && data.subarray(0, 8).equals(PNG_SIGNATURE);
}

/** A PNG's width and height from its IHDR chunk, or `undefined` when `image` is not a PNG. */
export function pngSize(image: Buffer): Size | undefined {
  if (image.length < 24 || !hasPngSignature(image) || image.toString("latin1", 12, 16) !== "IHDR") return undefined;
  return { width: image.readUInt32BE(16), height: image.readUInt32BE(20) };
}

/** libvips' default limit on an image's pixels (sharp's `limitInputPixels`, 0x3FFF * 0x3FFF). */
export const MAX_DECODED_PIXELS = 0x3fff * 0x3fff;

/**
 * What is wrong with a PNG's structure, read without decoding it: a header whose size is zero or
 * over {@link MAX_DECODED_PIXELS}, a chunk running past the end, or no IEND chunk (a cut file).
 * `undefined` for a sound PNG and for anything that is not a PNG (the decoder judges those).
 */
export function pngStructureProblem(image: Buffer): string | undefined {
  if (!hasPngSignature(image)) return undefined;
  const size = pngSize(image);
  if (!size) return "it has no IHDR chunk after the PNG signature";
  const { width, height } = size;
  if (!width || !height || width * height > MAX_DECODED_PIXELS) {
    return `its header says ${width}x${height} pixels, which no screen has (at most ${MAX_DECODED_PIXELS} pixels are decoded)`;
  }
  for (let at = 8; ;) {
    if (at + 12 > image.length) return `it is cut off after ${image.length} bytes, before its IEND chunk`;
    const length = image.readUInt32BE(at);
    const type = image.toString("latin1", at + 4, at + 8);
    if (at + 12 + length > image.length) {
      return `it is cut off after ${image.length} bytes, inside its ${JSON.stringify(type)} chunk`;
    }
    if (type === "IEND") return undefined;
    at += 12 + length;
  }
}
