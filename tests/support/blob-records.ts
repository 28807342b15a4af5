/**
 * The smallest records the record/image pairing rules apply to, for store tests: a record names
 * its image's hash and a 4x4 screen, and readRecord checks just that.
 */
import { PNG } from "pngjs";
import { z } from "zod";
import { sha256 } from "../../src/core/store/record-io.js";

/** The schema of a blob record: just what readRecord checks (an image of the record's screen size). */
export const BlobRecord = z.object({
  kind: z.literal("blob"),
  imageSha256: z.string(),
  device: z.object({ screen: z.object({ width: z.number(), height: z.number() }) }),
});

/** A 4x4 PNG of one grey level: a different `level` is a different image of the same size. */
export function greyPng(level: number): Buffer {
  const image = new PNG({ width: 4, height: 4 });
  image.data.fill(level);
  return PNG.sync.write(image);
}

/** The blob record of `image`. */
export function blobRecord(image: Buffer) {
  return { kind: "blob", imageSha256: sha256(image), device: { screen: { width: 4, height: 4 } } };
}
