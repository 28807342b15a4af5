/*
 * The one gate every image passes before it is decoded: a PNG whose header declares more pixels than
 * any screen (a forged or corrupt size) is refused from its header, before anything is allocated, and
 * a decode libvips gives up on (pixel data cut off, a corrupt zlib stream, bytes that are no image) is
 * an InputError saying so, instead of libvips' bare `Error`. The device path refuses a bad screenshot
 * earlier, as a DeviceError (src/core/run/opened-device.ts); data that passes its structural check but
 * whose zlib stream is cut short is only found while inflating, here.
 */
import type Sharp from "sharp";
import { InputError } from "../ground/errors.js";
import { pngSize, pngStructureProblem } from "./png.js";
import { loadSharp } from "./sharp.js";

/** How to fix an image that cannot be decoded, whether a device sent it or it was stored or passed in. */
const HOW_TO_FIX =
  "Pass a whole PNG: a device's screenshot taken again, or a stored image restored from git " +
  "(tapshot list shows the stored ones).";

/** A short name of the image for messages: its kind, size from its header, and length. */
function described(image: Buffer): string {
  const size = pngSize(image);
  return size ? `The ${size.width}x${size.height} PNG (${image.length} bytes)` : `The image (${image.length} bytes)`;
}

/**
 * An image that cannot be decoded. `image` is the Buffer refused (not enumerable, so it is never printed):
 * a call whose device sent it reports the device's screenshot as bad (src/core/run/opened-device.ts).
 */
export class UndecodableImageError extends InputError {
  declare readonly image: Buffer;

  constructor(
    /** What is wrong with it, as a clause: "its header says 60000x60000 pixels, ...". */
    readonly problem: string,
    image: Buffer,
    options?: { cause?: unknown },
  ) {
    super(`${described(image)} cannot be decoded: ${problem}. ${HOW_TO_FIX}`, options);
    Object.defineProperty(this, "image", { value: image, enumerable: false });
  }
}

/**
 * Refuse what cannot be decoded without decoding it: a value that is not a Buffer, and a PNG whose header
 * declares no pixels or more than libvips decodes, or whose chunks are cut off (src/core/pixels/png.ts).
 */
export function checkDecodable(image: unknown): asserts image is Buffer {
  if (!Buffer.isBuffer(image)) {
    throw new InputError(`An image must be a Buffer of PNG (or JPEG) bytes, not ${typeof image}. ${HOW_TO_FIX}`);
  }
  const problem = pngStructureProblem(image);
  if (problem) throw new UndecodableImageError(problem, image);
}

/**
 * Run `work` with sharp on `image`, checked first by {@link checkDecodable}; libvips' failure to read it
 * becomes an InputError naming what libvips said.
 */
export async function withLibvips<T>(image: Buffer, work: (sharp: typeof Sharp) => Promise<T>): Promise<T> {
  checkDecodable(image);
  const sharp = await loadSharp();
  try {
    return await work(sharp);
  } catch (error) {
    const reason = (error as Error).message;
    const what = pngSize(image)
      ? "its compressed pixel data is cut off or corrupt"
      : "it is not a PNG or another image format libvips reads";
    throw new UndecodableImageError(`${what} (libvips: ${reason})`, image, { cause: error });
  }
}
