/**
 * Screenshot baselines as stored values (docs/design.md section 5): the screen is compared with
 * the baseline stored for this name and device; the model judges a first one against the prompt
 * (and other devices' baselines) and re-assesses a mismatch to heal it. When each happens, and
 * how records are written, is the lifecycle's (src/core/run/lifecycle.ts).
 */
import { Call, toAiImage } from "../../run/call.js";
import type { Box, Reference } from "../../model/contract.js";
import { screenOf } from "../../device/description.js";
import { AiAnswerError, NotStoredError, RejectedError, ScreenshotMismatchError, clause } from "../../ground/errors.js";
import type { Rect } from "../../ground/geometry.js";
import { compare, decode, sideBySide, type RawImage } from "../../pixels/images.js";
import { describeContentShift, estimateContentShift } from "../../pixels/content-shift.js";
import { runStored, type Done, type Mismatch, type StoredKind } from "../../run/lifecycle.js";
import { clipToScreen, isUniformOutside, systemBarMasks, unionArea } from "../../pixels/masks.js";
import { passedBefore, rememberPassed } from "../../run/passed-screens.js";
import { comparePngRows } from "../../pixels/png-compare.js";
import { pollForMatch, waitForStable, type Shot } from "../../run/stable-screen.js";
import { allowedDiffPixels, describeAllowance, type ScreenshotParams } from "./input.js";
import { baselineFolder, baselineKey } from "../../store/keys.js";
import { baselineFingerprint } from "../../store/rejections.js";
import {
  BaselineRecordSchema,
  BaselineValueSchema,
  readRecord,
  type BaselineRecord,
  type Stored,
} from "../../store/records.js";

/** Other devices' baselines sent to `judge` as references, most recent first. */
const MAX_REFERENCES = 3;
/** Share of the screen the model may mark as varying; more would hide real changes. */
export const MAX_VARYING_SHARE = 0.25;
type StoredBaseline = Stored<BaselineRecord>;

/** What a comparison returns besides its outcome and model calls. */
export interface ScreenshotDone {
  diffPixels: number;
}

/** A comparison that did not pass: the last screenshot and what it was compared with. */
interface PixelMismatch extends Mismatch {
  baseline: Baseline;
  shot: Shot;
  diffPixels: number;
  /** The diff image, when the mismatch was counted in full. */
  diffPng?: Buffer;
}

/** The store key of a baseline on the call's device. */
export function baselineKeyOf(call: Call, params: ScreenshotParams): string {
  return baselineKey(call.device.platform, params.name, call.deviceSlug);
}

export function runScreenshot(call: Call, key: string, params: ScreenshotParams): Promise<Done<ScreenshotDone>> {
  return runStored(call, key, baselineKind(call, key, params));
}

function baselineKind(
  call: Call,
  key: string,
  params: ScreenshotParams,
): StoredKind<BaselineRecord, ScreenshotDone, PixelMismatch> {
  const subject = `toMatchScreenshot "${params.name}" on ${call.deviceSlug}`;
  const healing = params.autoHeal && call.config.mode === "auto";
  const where = `${call.config.store.location}/${key}`;
  const matched = (diffPixels: number, allowed: number): Done<ScreenshotDone> => ({
    outcome: "matched",
    result: { diffPixels },
    ...(diffPixels ? { detail: `${diffPixels} pixels differed (allowed ${allowed})` } : {}),
  });
  return {
    noun: "baseline",
    schema: BaselineRecordSchema,
    valueSchema: BaselineValueSchema,
    healing,

    notStored(otherScreen) {
      const d = call.device;
      const what = otherScreen
        ? `The baseline "${params.name}" for ${call.deviceSlug} (${where}.json) was stored on a ` +
          `${screenOf(otherScreen.record.device)} screen and this one is ${screenOf(d)}, so it cannot be compared.`
        : `No baseline "${params.name}" is stored for ${call.deviceSlug} (${where}.json).`;
      return new NotStoredError(
        `${what} mode is "replay", so the model is not asked to judge one. Store it by running this step once on ` +
          `a ${d.model} (${d.platform} ${d.osVersion}) with mode "auto" and a model configured, then commit the ` +
          `new files under _ai_/.`,
      );
    },

    async use(stored, until) {
      const { width, height } = stored.record.device.screen;
      const allowed = allowedDiffPixels(width * height, params);
      const comparison = baselineComparison(stored, params);
      let baseline: Baseline | undefined;
      const polled = await pollForMatch<{ shot?: Shot; result: Comparison }>(call, { until, healing }, async (png) => {
        // Bytes first: the baseline's own bytes, or a screenshot identical to one that passed, match undecoded.
        const remembered = png.equals(stored.image) ? 0 : passedBefore(call.session, comparison, png);
        if (remembered !== undefined) return { matched: true, value: { result: { diffPixels: remembered } } };
        const { result, shot } = await countUntilVerdict(
          stored,
          png,
          params,
          allowed,
          async () => (baseline ??= baselineOf(stored, await decode(stored.image), params)),
        );
        const matched = result.diffPixels <= allowed;
        if (matched) rememberPassed(call.session, comparison, png, result.diffPixels);
        return { matched, value: { shot, result } };
      });
      if (polled.matched) return { done: matched(polled.value.result.diffPixels, allowed) };
      // A failed look only counted until the verdict was known: the failure decodes both, counts in full and draws the diff.
      baseline ??= baselineOf(stored, await decode(stored.image), params);
      const shot = polled.value.shot ?? { png: polled.png, raw: await decode(polled.png) };
      let result = polled.value.result;
      if (!result.otherSize) result = await comparePixels(baseline, shot, { withDiffImage: true });
      const text = describeMismatch(result, baseline.raw, allowed, params) + shiftClause(call, baseline.raw, shot.raw);
      return {
        mismatch: {
          text,
          healable: !result.otherSize,
          baseline,
          shot,
          diffPixels: result.diffPixels,
          diffPng: result.diffPng,
        },
      };
    },

    async healsTo(mismatch) {
      return baselineFingerprint(mismatch.shot.raw, call.device);
    },

    async useNow(stored) {
      const png = await call.screenshot();
      const { width, height } = stored.record.device.screen;
      const allowed = allowedDiffPixels(width * height, params);
      const { result } = await countUntilVerdict(stored, png, params, allowed, async () =>
        baselineOf(stored, await decode(stored.image), params),
      );
      return result.diffPixels <= allowed ? matched(result.diffPixels, allowed) : null;
    },

    async fail(_stored, { text, baseline, shot, diffPixels, diffPng, rejected }) {
      await reportMismatch(call, baseline, shot, diffPng);
      const hint = rejected
        ? `; ${rejected}. Fix the app; or, if the new screen is right after all, `
        : `, still at the deadline. ` +
          (params.autoHeal && call.config.mode === "replay"
            ? `autoHeal is off in mode "replay". `
            : `If the change is intended, run with { autoHeal: true } to let the model confirm it and update the baseline. `) +
          `To judge a new baseline instead, `;
      throw new ScreenshotMismatchError(
        `${subject}: ${text}${hint}delete ${where}.json and .png.`,
        diffPixels,
        diffPixels / (baseline.raw.width * baseline.raw.height),
      );
    },

    async learn() {
      const masks = [...systemBarMasks(call.device), ...params.mask];
      const until = call.deadline.after("settleBeforeModel");
      const shot = await waitForStable(call, { until, masks, requireDrawn: true });
      await refuseBlank(call, shot, masks, params);

      const references = await referencesFor(call, params.name);
      const answer = await call.ask({
        kind: "judge",
        screen: await toAiImage(shot.png),
        prompt: params.prompt,
        references,
      });
      if (!answer.accept) {
        await call.report("screenshot", shot.png);
        throw new RejectedError(
          `${subject}: the model (${answer.model}) found that the screen does not show "${params.prompt}": ` +
            `${clause(answer.reason)}. Nothing was stored. If the screen is right, describe it more precisely in ` +
            `the prompt; otherwise fix the app.`,
        );
      }
      const varying = checkVarying(call, answer.varying ?? [], answer.model, "judge");
      const judged = `judged against ${references.length} other device${references.length === 1 ? "" : "s"}`;
      return {
        fields: baselineFields(call, params, varying, answer),
        image: shot.png,
        done: { outcome: "stored", result: { diffPixels: 0 }, detail: `${key}.json ${judged}` },
      };
    },

    async heal(stored, mismatch) {
      const baseline =
        stored.image === mismatch.baseline.png
          ? mismatch.baseline
          : baselineOf(stored, await decode(stored.image), params);
      const allowed = allowedDiffPixels(baseline.raw.width * baseline.raw.height, params);
      // Judge a settled screen, not a frame of an animation.
      const until = call.deadline.after("settleBeforeModel");
      const shot = await waitForStable(call, {
        until,
        masks: baseline.masks,
        requireDrawn: false,
        first: mismatch.shot,
      });
      const again = await comparePixels(baseline, shot, { withDiffImage: true });
      if (again.otherSize) {
        await reportMismatch(call, baseline, shot);
        throw new ScreenshotMismatchError(
          `${subject}: ${mismatch.text}; then the screen became ${again.otherSize} (rotated?), so nothing was healed.`,
          again.diffPixels,
          1,
        );
      }
      if (again.diffPixels <= allowed) {
        call.note("matched once the screen settled");
        return { done: matched(again.diffPixels, allowed) };
      }
      await refuseBlank(call, shot, [...systemBarMasks(call.device), ...params.mask], params);

      const answer = await call.ask({
        kind: "compare",
        screen: await toAiImage(shot.png),
        baseline: await toAiImage(stored.image),
        diff: await toAiImage(again.diffPng!),
        prompt: params.prompt,
      });
      if (answer.realChange) {
        await reportMismatch(call, baseline, shot, again.diffPng);
        throw new RejectedError(
          `${subject}: ${mismatch.text}, and the model (${answer.model}) found it a real change: ` +
            `${clause(answer.reason)}. The baseline was kept. Fix the app; or, if the new screen is right, delete ` +
            `${where}.json and .png so the next run judges a new baseline.`,
        );
      }
      const varying = answer.varying
        ? checkVarying(call, answer.varying, answer.model, "compare")
        : stored.record.varying;
      return {
        fields: baselineFields(call, params, varying, answer),
        image: shot.png,
        done: {
          outcome: "healed",
          result: { diffPixels: again.diffPixels },
          detail: `${mismatch.text}; the model: ${answer.reason}`,
        },
      };
    },
  };
}

/** The fields of a baseline the model judged or healed on this call's screen. */
function baselineFields(
  call: Call,
  params: ScreenshotParams,
  varying: Rect[],
  answer: { model: string; reason: string },
) {
  const { model, reason } = answer;
  return {
    kind: "baseline" as const,
    name: params.name,
    device: call.device,
    prompt: params.prompt,
    varying,
    model,
    reason,
  };
}

/** Fail when the screen is blank: storing it would make every later comparison meaningless. */
async function refuseBlank(call: Call, shot: Shot, masks: Rect[], params: ScreenshotParams): Promise<void> {
  if (!isUniformOutside(shot.raw, masks)) return;
  await call.report("screenshot", shot.png);
  throw new RejectedError(
    `toMatchScreenshot "${params.name}" on ${call.deviceSlug}: the screen is blank (one colour outside the ` +
      `system bars and masks), so it was not stored as a baseline. The app may not have drawn ` +
      `yet (wait for it before this step) or the window may be secure (screenshots of it come out black).`,
  );
}

/** Baselines of this name on other devices of the platform, most recently stored first. */
async function referencesFor(call: Call, name: string): Promise<Reference[]> {
  const store = call.config.store;
  const own = baselineKey(call.device.platform, name, call.deviceSlug);
  const keys = (await store.list(baselineFolder(call.device.platform, name)))
    .filter((k) => k.endsWith(".json"))
    .map((k) => k.slice(0, -".json".length))
    .filter((k) => k !== own);
  // Rank by the records alone, then read only the images that are sent.
  const ranked: { key: string; storedAt: string }[] = [];
  for (const key of keys) {
    const parsed = BaselineRecordSchema.safeParse(parseJson(await store.read(`${key}.json`)));
    if (parsed.success) ranked.push({ key, storedAt: parsed.data.storedAt });
    else call.note(`skipped reference ${key}.json: not a valid baseline record`);
  }
  ranked.sort((a, b) => b.storedAt.localeCompare(a.storedAt) || a.key.localeCompare(b.key));
  const references: Reference[] = [];
  for (const { key } of ranked) {
    if (references.length === MAX_REFERENCES) break;
    try {
      const stored = await readRecord(store, key, BaselineRecordSchema);
      if (stored) references.push({ device: key.split("/").pop()!, image: await toAiImage(stored.image) });
    } catch (error) {
      call.note(`skipped reference ${key}: ${(error as Error).message}`);
    }
  }
  return references;
}

function parseJson(data: Buffer | null): unknown {
  try {
    return data ? JSON.parse(data.toString("utf8")) : undefined;
  } catch {
    return undefined;
  }
}

/** The model's varying boxes as whole-pixel rectangles on the screen, refused when they cover too much. */
function checkVarying(call: Call, boxes: Box[], model: string, kind: "judge" | "compare"): Rect[] {
  const { width, height } = call.device.screen;
  const rects = boxes.map((box) => {
    const rect = clipToScreen(box, width, height);
    if (!rect) {
      throw new AiAnswerError(
        kind,
        `The model (${model}) gave a varying box outside the ${width}x${height} screen: ${JSON.stringify(box)}.`,
      );
    }
    return rect;
  });
  const share = unionArea(rects) / (width * height);
  if (share > MAX_VARYING_SHARE) {
    throw new RejectedError(
      `toMatchScreenshot "${call.subject}" on ${call.deviceSlug}: the model (${model}) marked ` +
        `${(share * 100).toFixed(1)}% of the screen as varying, more than the ${MAX_VARYING_SHARE * 100}% allowed: ` +
        `masking that much would hide real changes, so nothing was stored. Name the varying content more ` +
        `precisely in the prompt, or pass { mask } for regions this step should ignore.`,
    );
  }
  return rects;
}

/** How a screenshot compares with the baseline. */
interface Comparison {
  diffPixels: number;
  /** Set when the screenshot has another size than the baseline (the device rotated mid-call). */
  otherSize?: string;
  /** The diff image, when asked for. */
  diffPng?: Buffer;
}

/** What a comparison compares against. */
interface Baseline {
  png: Buffer;
  raw: RawImage;
  masks: Rect[];
  threshold: number;
}

function baselineOf(stored: StoredBaseline, raw: RawImage, params: ScreenshotParams): Baseline {
  return { png: stored.image, raw, masks: baselineMasks(stored, params), threshold: params.threshold };
}

/** What a comparison with a baseline ignores: the system bars, the stored varying boxes and the call's masks. */
function baselineMasks(stored: StoredBaseline, params: ScreenshotParams): Rect[] {
  const { device, varying } = stored.record;
  return [...systemBarMasks(device), ...varying, ...params.mask];
}

/**
 * Count `png` against the stored baseline until the verdict is known: from the two PNGs row by
 * row, undecoded where their rows are equal (src/core/pixels/png-compare.ts), or, when they cannot be
 * compared that way (another kind of PNG, another size), from both decoded; the decoded
 * screenshot then comes back as `shot` for a report. `decodedBaseline` gives the decoded baseline.
 */
async function countUntilVerdict(
  stored: StoredBaseline,
  png: Buffer,
  params: ScreenshotParams,
  allowed: number,
  decodedBaseline: () => Promise<Baseline>,
): Promise<{ result: Comparison; shot?: Shot }> {
  const counted = comparePngRows(stored.image, png, params.threshold, baselineMasks(stored, params), allowed);
  if (counted) return { result: { diffPixels: counted.diffPixels } };
  const shot = { png, raw: await decode(png) };
  const result = await comparePixels(await decodedBaseline(), shot, { withDiffImage: false, stopAbove: allowed });
  return { result, shot };
}

/** What a comparison computes: a diff image (and so the full count), or a verdict that may stop counting early. */
type Counting = { withDiffImage: true } | { withDiffImage: false; stopAbove?: number };

async function comparePixels(
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
    ...(counting.withDiffImage ? { diff: true } : { stopAbove: counting.stopAbove }),
  });
  return { diffPixels, diffPng };
}

/** What a baseline comparison's verdict depends on: the record, its image, the call's masks and threshold. */
function baselineComparison(stored: StoredBaseline, params: ScreenshotParams): string {
  const { varying, imageSha256 } = stored.record;
  return `baseline ${imageSha256} ${JSON.stringify([varying, params.mask, params.threshold])}`;
}

function describeMismatch(result: Comparison, expected: RawImage, allowed: number, params: ScreenshotParams): string {
  const total = expected.width * expected.height;
  if (result.otherSize)
    return `the screen is now ${result.otherSize}, the baseline ${expected.width}x${expected.height}`;
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
async function reportMismatch(call: Call, baseline: Baseline, shot: Shot, diffPng?: Buffer): Promise<void> {
  await call.report("expected", baseline.png);
  await call.report("actual", shot.png);
  diffPng ??= (await comparePixels(baseline, shot, { withDiffImage: true })).diffPng;
  if (!diffPng) return;
  await call.report("diff", diffPng);
  await call.report("composite", await sideBySide([baseline.png, shot.png, diffPng]));
}
