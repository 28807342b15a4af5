/**
 * Fingerprints of reverted heals (docs/reviewing.md): one rule for what makes a later heal "the
 * same image", used by `tapshot revert` to remember a rejection and by the lifecycle to refuse
 * it without a model call. A fingerprint is over decoded pixels, not PNG bytes, so another
 * encoder of the same screen gives the same one; a baseline's system bars (the clock) are left out.
 */
import { createHash } from "node:crypto";
import type { DeviceDescription } from "../device/description.js";
import type { Rect } from "../ground/geometry.js";
import { decode, type RawImage } from "../pixels/image-decode.js";
import { fillRects, systemBarMasks } from "../pixels/masks.js";
import type { BaselineRecord } from "./baseline-record.js";
import type { Rejection } from "./review-state.js";
import type { TapRecord } from "./tap-record.js";
import type { ActRecord } from "./act-record.js";

/** SHA-256 over the size and the pixels of `raw`, with the pixels under `masks` left out. */
export function pixelFingerprint(raw: RawImage, masks: Rect[]): string {
  const pixels = { ...raw, data: Buffer.from(raw.data) };
  fillRects(pixels, masks, 0);
  return createHash("sha256").update(`${raw.width}x${raw.height}\n`).update(pixels.data).digest("hex");
}

/** The fingerprint of a tap's crop. */
export function tapFingerprint(crop: RawImage): string {
  return pixelFingerprint(crop, []);
}

/**
 * The fingerprint of a baseline image on `device` (its system bars left out): a screenshot, or a
 * whole page stitched from screenshots, whose navigation bar is at the image's bottom.
 */
export function baselineFingerprint(image: RawImage, device: Pick<DeviceDescription, "insets">): string {
  return pixelFingerprint(
    image,
    systemBarMasks({ screen: { width: image.width, height: image.height }, insets: device.insets }),
  );
}

/** The rejection that reverting `record` (stored with `image`) keeps. */
export async function rejectionOf(
  record: TapRecord | BaselineRecord | ActRecord,
  image: Buffer,
  by: { name: string | null; at: string },
): Promise<Rejection> {
  const raw = await decode(image);
  return {
    // An act's sheet of crops is fingerprinted as a tap's crop is (its heals are not refused by it: see act-kind.ts).
    fingerprint: record.kind === "baseline" ? baselineFingerprint(raw, record.device) : tapFingerprint(raw),
    ...(record.kind === "tap" ? { crop: record.crop } : {}),
    model: record.model,
    reason: record.reason,
    rejectedAt: by.at,
    rejectedBy: by.name,
  };
}

/** How a failure names a rejection. */
export function describeRejection(rejection: Rejection): string {
  const by = rejection.rejectedBy ? ` by ${rejection.rejectedBy}` : "";
  return (
    `a heal to this same image was reverted${by} on ${rejection.rejectedAt} (the model ${rejection.model} had said: ` +
    `${rejection.reason}), so it is not healed again`
  );
}
