/*
 * The crop check that decides a tap's replay (docs/design.md section 5): the stored crop is
 * compared with the same rectangle of each screenshot, and a match taps the stored point.
 */
import { compare } from "../../pixels/image-compare.js";
import { decode, decodeRegion, type RawImage } from "../../pixels/image-decode.js";
import { rectFits } from "../../pixels/pixel-rects.js";
import { systemBarMasks } from "../../pixels/masks.js";
import { nearbyShift, shifted, type Shift } from "../../pixels/moved-crop.js";
import type { Call } from "../../run/call.js";
import type { Done, Use } from "../../run/lifecycle.js";
import { decodedStored, passedBefore, rememberPassed } from "../../run/passed-screens.js";
import { describeEnd, pollForMatch } from "../../run/stable-screen.js";
import type { Stored } from "../../store/record-io.js";
import type { TapRecord } from "../../store/tap-record.js";
import { CROP_VERDICT } from "../shared/crop-verdict.js";
import { settledScreenIsFinal } from "../shared/stored-screen.js";
import type { CropMismatch, TapDone, TapParams } from "./tap-params.js";

/** The stored crop is the element's box padded by this many tap units on each side. */
export const CROP_PAD_UNITS = 4;

/** One look at the crop: its share of differing pixels in place, and a nearby shift that matched. */
interface CropLook {
  diffRatio: number;
  actual?: RawImage;
  shift?: Shift | undefined;
}

/** How {@link useCrop} polls. */
export interface CropUse {
  params: TapParams;
  /** The time (ms since the epoch) polling stops. */
  until: number;
}

/** Poll the screen until the stored crop matches (then tap the stored point) or the poll ends. */
export async function useCrop(
  call: Call,
  key: string,
  stored: Stored<TapRecord>,
  { params, until }: CropUse,
): Promise<Use<TapDone, CropMismatch>> {
  const comparison = cropComparison(key, stored.record);
  let expected: RawImage | undefined;
  const expect = async () => (expected ??= await storedCrop(call, stored));
  // A settled screen without the crop fails (or heals) only when it is the stored screen changed (flows/shared/stored-screen.ts).
  const isFinal = (png: Buffer) =>
    settledScreenIsFinal(call, png, { record: stored.record, expected: expect, verdict: CROP_VERDICT, until });
  const poll = { until, masks: systemBarMasks(call.device), settle: params.settle, isFinal };
  const polled = await pollForMatch(call, poll, async (png) => {
    // Bytes first: a screenshot identical to one that matched this crop matches again, undecoded.
    const remembered = passedBefore(call.session, comparison, png);
    if (remembered !== undefined) return { matched: true, value: { diffRatio: remembered } };
    await expect();
    const found: CropLook = await cropDiff(call, expected!, stored.record, png);
    const matched = found.diffRatio <= CROP_VERDICT.maxDiffRatio;
    if (matched) rememberPassed(call.session, comparison, png, found.diffRatio);
    if (matched || !params.heal.nearby || !found.actual) return { matched, value: found };
    // A shifted match is not remembered: a remembered pass replays the stored point unshifted.
    const shift = await nearbyShift(png, expected!, stored.record.crop, call.device, CROP_VERDICT);
    return { matched: shift !== undefined, value: { ...found, shift } };
  });
  if (polled.matched) return { done: await replay(call, stored.record, { shift: polled.value.shift, params }) };
  const { crop } = stored.record;
  const { actual } = polled.value;
  // The poll stopped counting once the crop could not match: the message gives the full share.
  const diffRatio = actual ? (await compare(expected!, actual, { threshold: CROP_VERDICT.threshold })).diffRatio : 1;
  const text =
    `the stored crop at (${crop.x}, ${crop.y}) ${crop.width}x${crop.height} never matched the screen: ` +
    `${(diffRatio * 100).toFixed(1)}% of its pixels differed at the last try (allowed ${CROP_VERDICT.maxDiffRatio * 100}%)` +
    describeEnd(polled.ended, params.settle, polled.waited);
  return { mismatch: { text, healable: true, ended: polled.ended, screenshot: polled.png, actual } };
}

/** One look, no polling: the stored point is tapped when the crop matches the screen now, else `null`. */
export async function useCropNow(
  call: Call,
  stored: Stored<TapRecord>,
  params: Pick<TapParams, "kind">,
): Promise<Done<TapDone> | null> {
  const expected = await storedCrop(call, stored);
  const { diffRatio } = await cropDiff(call, expected, stored.record, await call.screenshot());
  return diffRatio <= CROP_VERDICT.maxDiffRatio ? replay(call, stored.record, { params }) : null;
}

/** The stored crop's pixels, decoded once per session however many rungs and replays look at it. */
export function storedCrop(call: Call, stored: { image: Buffer }): Promise<RawImage> {
  return decodedStored(call.session, stored.image, decode);
}

/** What a crop's verdict depends on: the record and its image (the crop verdict is fixed). */
function cropComparison(key: string, record: TapRecord): string {
  return `tap ${key} ${record.imageSha256}`;
}

/**
 * The share of the stored crop's pixels that differ in `png` (1 when the crop does not fit the
 * screen). Counting stops once the share is over the allowed one, so a failing share is a lower bound.
 */
async function cropDiff(
  call: Call,
  expected: RawImage,
  record: TapRecord,
  png: Buffer,
): Promise<{ diffRatio: number; actual?: RawImage }> {
  if (!rectFits(record.crop, call.device.screen.width, call.device.screen.height)) return { diffRatio: 1 };
  const actual = await decodeRegion(png, record.crop);
  const stopAbove = mostAllowed(actual.width * actual.height, CROP_VERDICT.maxDiffRatio);
  const { diffRatio } = await compare(expected, actual, { threshold: CROP_VERDICT.threshold, stopAbove });
  return { actual, diffRatio };
}

/** The most differing pixels of `total` whose share is still at most `ratio` (as the verdict computes it). */
function mostAllowed(total: number, ratio: number): number {
  let n = Math.floor(total * ratio);
  while ((n + 1) / total <= ratio) n++;
  while (n > 0 && n / total > ratio) n--;
  return n;
}

/**
 * Tap the stored point (a locator's is only answered), moved by `shift` when the crop matched a
 * few pixels off its place (docs/heal.md).
 */
async function replay(
  call: Call,
  record: TapRecord,
  { shift, params }: { shift?: Shift | undefined; params: Pick<TapParams, "kind"> },
): Promise<Done<TapDone>> {
  const point = shift ? shifted(record.point, shift) : record.point;
  if ((params.kind ?? "tap") === "tap") await call.tap(point);
  if (!shift) return { outcome: "replayed", result: { point } };
  const detail =
    `the stored crop matched ${shift.dx}, ${shift.dy} px off its place ` +
    `(${(shift.diffRatio * 100).toFixed(2)}% differed): ${params.kind === "locator" ? "answered" : "tapped"} (${point.x}, ${point.y}); the stored value is unchanged`;
  return { outcome: "replayed", result: { point }, detail };
}
