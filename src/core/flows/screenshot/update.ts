/**
 * Mode `update` for baselines (docs/reviewing.md "Update mode"), as `jest -u` and Playwright's
 * `--update-snapshots`: a mismatching baseline is replaced by the settled screenshot, no model
 * asked. The lifecycle stores it pending review and keeps the replaced value as `previous`.
 */
import { ScreenshotMismatchError } from "../../ground/errors.js";
import { systemBarMasks } from "../../pixels/masks.js";
import type { Call } from "../../run/call.js";
import type { NewValue } from "../../run/lifecycle.js";
import type { BaselineRecord } from "../../store/baseline-record.js";
import type { ScreenshotParams } from "./input.js";
import { baselineFields, refuseBlank } from "./judge.js";
import { reportMismatch, type PixelMismatch, type ScreenshotDone, type StoredBaseline } from "./pixel-check.js";

/** The `model` of a baseline mode `update` stored: no model judged it, a person reviews it. */
export const UPDATE_MODEL = "tapshot mode update (no model)";

/** The settled screenshot of `mismatch` as the new value of `stored`; a screen that kept changing is not stored. */
export async function updateBaseline(
  call: Call,
  { stored, mismatch, params }: { stored: StoredBaseline; mismatch: PixelMismatch; params: ScreenshotParams },
): Promise<NewValue<BaselineRecord, ScreenshotDone>> {
  const { shot, text, diffPixels } = mismatch;
  if (mismatch.ended !== "settled") {
    await reportMismatch(call, mismatch.baseline, shot, mismatch.diffPng);
    throw new ScreenshotMismatchError(
      `toMatchScreenshot "${params.name}" on ${call.deviceSlug}: ${text}, and the screen was still changing at ` +
        `half the timeout, so mode "update" stored nothing: it stores only a screen that has stopped changing. ` +
        `Wait for the app to finish animating before this step, or give it a longer timeout.`,
      diffPixels,
      diffPixels / (shot.raw.width * shot.raw.height),
    );
  }
  await refuseBlank(call, shot, [...systemBarMasks(call.device), ...params.mask], params);
  const { varying } = stored.record;
  return {
    fields: baselineFields(call, params, {
      varying,
      model: UPDATE_MODEL,
      reason: `mode "update" replaced the baseline, which differed (${text}); no model was asked`,
    }),
    image: shot.png,
    done: { outcome: "updated", result: { diffPixels }, detail: text },
  };
}
