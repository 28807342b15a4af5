/*
 * The pixel comparison that decides a baseline (docs/design.md section 5): bytes first, then the
 * two PNGs row by row, then both decoded; a failure is counted in full, with its diff image.
 */
import { compare } from "../../pixels/image-compare.js";
import { decode, type RawImage } from "../../pixels/image-decode.js";
import { sideBySide } from "../../pixels/image-encode.js";
import { describeContentShift, estimateContentShift } from "../../pixels/content-shift.js";
import { systemBarMasks } from "../../pixels/masks.js";
import { comparePngRows } from "../../pixels/png-compare.js";
import type { Rect } from "../../ground/geometry.js";
import type { Call } from "../../run/call.js";
import type { Done, Mismatch, Use } from "../../run/lifecycle.js";
import { passedBefore, rememberPassed } from "../../run/passed-screens.js";
import { pollForMatch, type Shot } from "../../run/stable-screen.js";
import type { BaselineRecord } from "../../store/baseline-record.js";
import type { Stored } from "../../store/record-io.js";
import { allowedDiffPixels, describeAllowance, type ScreenshotParams } from "./input.js";

/** The least time left for which a failure looks for content moved as a block. */
const SHIFT_BUDGET_MS = 5_000;

/** A stored baseline, record and image. */
export type StoredBaseline = Stored<BaselineRecord>;

/** What a comparison returns besides its outcome and model calls. */
export interface ScreenshotDone {
  diffPixels: number;
}

/** A comparison that did not pass: the last screenshot and what it was compared with. */
export interface PixelMismatch extends Mismatch {
  baseline: Baseline;
  shot: Shot;
  diffPixels: number;
  /** The diff image, when the mismatch was counted in full. */
  diffPng?: Buffer;
  /** On a whole page: how many screens the page taken now was stitched from. */
  pageScreens?: number;
}

/** How a screenshot compares with the baseline. */
export interface Comparison {
  diffPixels: number;
  /** Set when the screenshot has another size than the baseline (the device rotated mid-call). */
  otherSize?: string;
  /** The diff image, when asked for. */
  diffPng?: Buffer;
}

/** What a comparison compares against. */
export interface Baseline {
  png: Buffer;
  raw: RawImage;
  masks: Rect[];
  threshold: number;
}

/** A passing comparison's outcome. */
export function matchedDone(diffPixels: number, allowed: number): Done<ScreenshotDone> {
  return {
    outcome: "matched",
    result: { diffPixels },
    ...(diffPixels ? { detail: `${diffPixels} pixels differed (allowed ${allowed})` } : {}),
  };
}

/** How many pixels may differ from a stored baseline under the call's allowance. */
export function allowedFor(stored: StoredBaseline, params: ScreenshotParams): number {
  const { width, height } = stored.record.device.screen;
  return allowedDiffPixels(width * height, params);
}

/** Poll the screen until it matches the baseline or the poll ends; a mismatch is counted in full. */
export async function useBaseline(
  call: Call,
  stored: StoredBaseline,
  { params, until }: { params: ScreenshotParams; until: number },
): Promise<Use<ScreenshotDone, PixelMismatch>> {
  const allowed = allowedFor(stored, params);
  const comparison = baselineComparison(stored, params);
  let baseline: Baseline | undefined;
  const decodedBaseline = async () => (baseline ??= baselineOf(stored, await decode(stored.image), params));
  const poll = { until, masks: baselineMasks(stored, params), settle: params.settle };
  const polled = await pollForMatch<{ shot?: Shot; result: Comparison }>(call, poll, async (png) => {
    // Bytes first: the baseline's own bytes, or a screenshot identical to one that passed, match undecoded.
    const remembered = png.equals(stored.image) ? 0 : passedBefore(call.session, comparison, png);
    if (remembered !== undefined) return { matched: true, value: { result: { diffPixels: remembered } } };
    const { result, shot } = await countUntilVerdict({ stored, png, params, allowed, decodedBaseline });
    const matched = result.diffPixels <= allowed;
    if (matched) rememberPassed(call.session, comparison, png, result.diffPixels);
    return { matched, value: { shot, result } };
  });
  if (polled.matched) return { done: matchedDone(polled.value.result.diffPixels, allowed) };
  // A failed look only counted until the verdict was known: the failure decodes both, counts in full and draws
  // the diff, while the call has time left (a screen that kept changing fails at its timeout, counted or not).
  const decoded = await decodedBaseline();
  const shot = polled.value.shot ?? { png: polled.png, raw: await decode(polled.png) };
  let result = polled.value.result;
  let counted = Boolean(result.otherSize);
  if (!counted) {
    const full = await fullCount(call, decoded, shot);
    if (full) [result, counted] = [full, true];
  }
  // The shift estimate is synchronous (seconds on a large screen of a loaded machine): only for a still
  // screen, where it means something, and with time left for it.
  const shift =
    polled.ended === "settled" && call.deadline.remaining() >= SHIFT_BUDGET_MS
      ? shiftClause(call, decoded.raw, shot.raw)
      : "";
  const text = describeMismatch(result, decoded.raw, { allowed, params, counted }) + shift;
  const { diffPixels, diffPng } = result;
  const mismatch = { text, healable: !result.otherSize, ended: polled.ended, baseline: decoded, shot, diffPixels };
  return { mismatch: { ...mismatch, ...(diffPng ? { diffPng } : {}) } };
}

/** One look, no polling: the matched outcome when the screen matches the baseline now, else `null`. */
export async function useBaselineNow(
  call: Call,
  stored: StoredBaseline,
  params: ScreenshotParams,
): Promise<Done<ScreenshotDone> | null> {
  const png = await call.screenshot();
  const allowed = allowedFor(stored, params);
  const decodedBaseline = async () => baselineOf(stored, await decode(stored.image), params);
  const { result } = await countUntilVerdict({ stored, png, params, allowed, decodedBaseline });
  return result.diffPixels <= allowed ? matchedDone(result.diffPixels, allowed) : null;
}

/** The baseline a comparison reads, from its record and decoded image. */
export function baselineOf(stored: StoredBaseline, raw: RawImage, params: ScreenshotParams): Baseline {
  return { png: stored.image, raw, masks: baselineMasks(stored, params), threshold: params.threshold };
}

/** What a comparison with a baseline ignores: the system bars, the stored varying boxes and the call's masks. */
function baselineMasks(stored: StoredBaseline, params: ScreenshotParams): Rect[] {
  const { device, varying } = stored.record;
  return [...systemBarMasks(device), ...varying, ...params.mask];
}

/** One screenshot to count against a stored baseline. */
interface VerdictCount {
  stored: StoredBaseline;
  png: Buffer;
  params: ScreenshotParams;
  /** Counting stops once more pixels than this differ. */
  allowed: number;
  /** The decoded baseline, for when the PNGs cannot be compared row by row. */
  decodedBaseline: () => Promise<Baseline>;
}

/**
 * Count `png` against the stored baseline until the verdict is known: from the two PNGs row by
 * row, undecoded where their rows are equal (src/core/pixels/png-compare.ts), or, when they cannot be
 * compared that way (another kind of PNG, another size), from both decoded; the decoded
 * screenshot then comes back as `shot` for a report.
 */
async function countUntilVerdict({
  stored,
  png,
  params,
  allowed,
  decodedBaseline,
}: VerdictCount): Promise<{ result: Comparison; shot?: Shot }> {
  const masks = baselineMasks(stored, params);
  const counted = comparePngRows(stored.image, png, { threshold: params.threshold, masks, stopAbove: allowed });
  if (counted) return { result: { diffPixels: counted.diffPixels } };
  const shot = { png, raw: await decode(png) };
  const result = await comparePixels(await decodedBaseline(), shot, { withDiffImage: false, stopAbove: allowed });
  return { result, shot };
}

/** What a comparison computes: a diff image (and so the full count), or a verdict that may stop counting early. */
type Counting = { withDiffImage: true; signal?: AbortSignal } | { withDiffImage: false; stopAbove?: number };

/** The full count and diff image of a failure, while the call has time left (the diff stops at the deadline). */
function fullCount(call: Call, baseline: Baseline, shot: Shot): Promise<Comparison | undefined> {
  return call.whileTimeLeft("counting every differing pixel and drawing the diff", () =>
    comparePixels(baseline, shot, { withDiffImage: true, signal: call.deadline.signal }),
  );
}

/** Compare a decoded screenshot with the baseline. */
export async function comparePixels(
  baseline: Baseline,
  shot: Shot,
  counting: Counting = { withDiffImage: false },
): Promise<Comparison> {
  const { raw } = baseline;
  if (shot.raw.width !== raw.width || shot.raw.height !== raw.height) {
    return { diffPixels: raw.width * raw.height, otherSize: `${shot.raw.width}x${shot.raw.height}` };
  }
  if (!counting.withDiffImage && shot.png.equals(baseline.png)) return { diffPixels: 0 };
  const { diffPixels, diffPng } = await compare(raw, shot.raw, {
    threshold: baseline.threshold,
    masks: baseline.masks,
    ...(counting.withDiffImage ? { diff: true, signal: counting.signal } : { stopAbove: counting.stopAbove }),
  });
  return { diffPixels, diffPng };
}

/** What a baseline comparison's verdict depends on: the record, its image, the call's masks and threshold. */
function baselineComparison(stored: StoredBaseline, params: ScreenshotParams): string {
  const { varying, imageSha256 } = stored.record;
  return `baseline ${imageSha256} ${JSON.stringify([varying, params.mask, params.threshold])}`;
}

/** What a mismatch's message says of its count; `counted` is false when counting stopped at the verdict. */
interface Count {
  allowed: number;
  params: ScreenshotParams;
  counted: boolean;
}

function describeMismatch(result: Comparison, expected: RawImage, { allowed, params, counted }: Count): string {
  const total = expected.width * expected.height;
  if (result.otherSize)
    return `the screen is now ${result.otherSize}, the baseline ${expected.width}x${expected.height}`;
  if (!counted)
    return `more than ${allowed} pixels differ from the baseline, allowed ${describeAllowance(allowed, params)}`;
  return (
    `${result.diffPixels} pixels differ from the baseline (${percent(result.diffPixels / total)} of ${total}), ` +
    `allowed ${describeAllowance(allowed, params)}`
  );
}

/** "; the content below y=Y moved down by N px" when the content moved as a block, else nothing (docs/heal.md). */
function shiftClause(call: Call, baseline: RawImage, shot: RawImage): string {
  const { screen, insets } = call.device;
  const shift = estimateContentShift(baseline, shot, { top: insets.top, bottom: screen.height - insets.bottom });
  return shift ? `; ${describeContentShift(shift)}` : "";
}

function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(ratio < 0.01 ? 3 : 1)}%`;
}

/** Expected, actual, diff and the three side by side. */
export async function reportMismatch(call: Call, baseline: Baseline, shot: Shot, diffPng?: Buffer): Promise<void> {
  await call.report("expected", baseline.png);
  await call.report("actual", shot.png);
  diffPng ??= (await fullCount(call, baseline, shot))?.diffPng;
  if (!diffPng) return;
  await call.report("diff", diffPng);
  const composite = await call.whileTimeLeft("the side-by-side image", () =>
    sideBySide([baseline.png, shot.png, diffPng!]),
  );
  if (composite) await call.report("composite", composite);
}
