/*
 * Screenshot baselines as stored values (docs/design.md section 5): the screen is compared with
 * the baseline stored for this name and device; the model judges a first one against the prompt
 * (and other devices' baselines) and re-assesses a mismatch to heal it. When each happens, and
 * how records are written, is the lifecycle's (src/core/run/lifecycle.ts). This module only
 * wires the baseline's parts into a `StoredKind`:
 * - pixel-check.ts: the comparison that decides a baseline, and its failure report;
 * - judge.ts: what the model decides (a first baseline, a heal);
 * - input.ts: the call's checked arguments;
 * - element-masks.ts: selector, element and prompt masks turned into boxes;
 * - element-tree.ts: the accessibility tree stored with a baseline, and what changed on a mismatch;
 * - full-page.ts: what differs for a whole-page baseline (`fullPage`).
 */
import { screenOf } from "../../device/description.js";
import { NotStoredError, ScreenshotMismatchError, withArticle } from "../../ground/errors.js";
import type { Call } from "../../run/call.js";
import { describeEnd } from "../../run/stable-screen.js";
import { runStored, type Done, type StoredKind } from "../../run/lifecycle.js";
import { baselineKey } from "../../store/keys.js";
import { BaselineRecordSchema, BaselineValueSchema, type BaselineRecord } from "../../store/baseline-record.js";
import { baselineFingerprint } from "../../store/rejections.js";
import type { Stored } from "../../store/record-io.js";
import { resolveMasks, withPromptMasks } from "./element-masks.js";
import { withChangesNamed, withChangesOf, withTree } from "./element-tree.js";
import type { ScreenshotParams } from "./input.js";
import { healBaseline, learnBaseline } from "./judge.js";
import { updateBaseline } from "./update.js";
import { fullPageKind, refuseOtherKind } from "./full-page.js";
import { reportMismatch, useBaseline, useBaselineNow, type PixelMismatch, type ScreenshotDone } from "./pixel-check.js";

export type { ScreenshotDone } from "./pixel-check.js";

/** The store key of a baseline on the call's device. */
export function baselineKeyOf(call: Call, params: ScreenshotParams): string {
  return baselineKey(call.device.platform, params.name, call.deviceSlug);
}

/** Match, judge or heal one baseline. */
export function runScreenshot(call: Call, key: string, params: ScreenshotParams): Promise<Done<ScreenshotDone>> {
  return runStored(call, key, baselineKind(call, key, params));
}

/** Where a baseline is stored: its key, and its full location for messages. */
type Place = { key: string; where: string };

// A factory of small methods, each naming the step of the lifecycle it answers; the longer ones are below it.
function baselineKind(
  call: Call,
  key: string,
  params: ScreenshotParams,
): StoredKind<BaselineRecord, ScreenshotDone, PixelMismatch> {
  const { mode } = call.config;
  const place: Place = { key, where: `${call.config.store.location}/${key}` };
  const kind: StoredKind<BaselineRecord, ScreenshotDone, PixelMismatch> = {
    noun: "baseline",
    schema: BaselineRecordSchema,
    valueSchema: BaselineValueSchema,
    healing: (params.autoHeal && mode === "auto") || mode === "update",
    notStored: (otherScreen) => baselineNotStored(call, params, place, otherScreen),
    // Selector and element masks are found again at every comparison (element-masks.ts).
    use: async (stored, until) => {
      refuseOtherKind(call, params, stored, place);
      const resolved = await resolveMasks(call, params, stored);
      return withChangesNamed(call, stored, until, (end) =>
        useBaseline(call, stored, { params: resolved, until: end }),
      );
    },
    useNow: async (stored) => {
      refuseOtherKind(call, params, stored, place);
      return useBaselineNow(call, stored, await resolveMasks(call, params, stored));
    },
    healsTo: async (mismatch) => baselineFingerprint(mismatch.shot.raw, call.device),
    fail: (_stored, mismatch) => failBaseline(call, params, place, mismatch),
    learn: async () =>
      withPromptMasks(
        call,
        params,
        await withTree(call, await learnBaseline(call, await resolveMasks(call, params, null), place)),
      ),
    heal: (stored, mismatch) => healOrUpdate(call, params, place, { stored, mismatch }),
  };
  return params.fullPage ? fullPageKind(call, params, place, kind) : kind;
}

/** Mode replay with no baseline for this device (or one of another screen size): what to run to store one. */
function baselineNotStored(
  call: Call,
  params: ScreenshotParams,
  place: Place,
  otherScreen: Stored<BaselineRecord> | null,
): NotStoredError {
  const d = call.device;
  const what = otherScreen
    ? `The baseline "${params.name}" for ${call.deviceSlug} (${place.where}.json) was stored on a ` +
      `${screenOf(otherScreen.record.device)} screen and this one is ${screenOf(d)}, so it cannot be compared.`
    : `No baseline "${params.name}" is stored for ${call.deviceSlug} (${place.where}.json).`;
  return new NotStoredError(
    `${what} mode is "replay", so the model is not asked to judge one. Store it by running this step once on ` +
      `${withArticle(d.model)} (${d.platform} ${d.osVersion}) with mode "auto" and a model configured, then commit the ` +
      `new files under _ai_/.`,
  );
}

/** Report the mismatch's images, then fail saying how to accept the change or judge a new baseline. */
async function failBaseline(
  call: Call,
  params: ScreenshotParams,
  place: Place,
  mismatch: PixelMismatch,
): Promise<never> {
  const { text, baseline, shot, diffPixels, diffPng, rejected, ended } = mismatch;
  await reportMismatch(call, baseline, shot, diffPng);
  const hint = rejected
    ? `; ${rejected}. Fix the app; or, if the new screen is right after all, `
    : `${describeEnd(ended, params.settle)}. ` +
      (params.autoHeal && call.config.mode === "replay"
        ? `autoHeal is off in mode "replay". `
        : params.fullPage
          ? `If the change is intended, rerun with TAPSHOT_MODE=update (the page taken then becomes the baseline), ` +
            `or run with { autoHeal: true } to let the model confirm it. `
          : `If the change is intended, accept it with \`npx tapshot accept --failed\` (the screenshot this run kept ` +
            `becomes the baseline), rerun with TAPSHOT_MODE=update, or run with { autoHeal: true } to let the model ` +
            `confirm it. `) +
      `To judge a new baseline instead, `;
  throw new ScreenshotMismatchError(
    `toMatchScreenshot "${params.name}" on ${call.deviceSlug}: ${text}${hint}delete ${place.where}.json and .png.`,
    diffPixels,
    diffPixels / (baseline.raw.width * baseline.raw.height),
  );
}

/** Mode update takes the new screen with no model call (the stored prompt masks carry over); autoHeal asks the model. */
async function healOrUpdate(
  call: Call,
  params: ScreenshotParams,
  place: Place,
  { stored, mismatch }: { stored: Stored<BaselineRecord>; mismatch: PixelMismatch },
) {
  const resolved = await resolveMasks(call, params, stored);
  if (call.config.mode === "update") {
    const updated = await updateBaseline(call, { stored, mismatch, params: resolved });
    const { promptMasks } = stored.record;
    const kept = promptMasks ? { ...updated, fields: { ...updated.fields, promptMasks } } : updated;
    return withTree(call, withChangesOf(mismatch, kept));
  }
  const healed = await healBaseline(call, { stored, mismatch, params: resolved }, place);
  return withPromptMasks(call, params, await withTree(call, withChangesOf(mismatch, healed)));
}
