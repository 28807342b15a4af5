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
