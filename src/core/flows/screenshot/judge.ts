/*
 * What the model decides about baselines (docs/design.md section 5): a first baseline is judged
 * against the prompt and other devices' baselines; a mismatch on a settled screen is compared
 * with the stored one, and anything but a real change becomes the baseline.
 */
import { AiAnswerError, RejectedError, ScreenshotMismatchError, clause } from "../../ground/errors.js";
import type { Rect, Size } from "../../ground/geometry.js";
import type { Box, Reference } from "../../model/contract.js";
import { decode } from "../../pixels/image-decode.js";
import { clipToScreen, isUniformOutside, systemBarMasks, unionArea } from "../../pixels/masks.js";
import { toAiImage, type Call } from "../../run/call.js";
import type { Done, NewValue } from "../../run/lifecycle.js";
import { waitForStable, type Shot } from "../../run/stable-screen.js";
import { deviceDistance } from "../../device/description.js";
import { baselineFolder, baselineKey } from "../../store/keys.js";
import { BaselineRecordSchema, type BaselineRecord } from "../../store/baseline-record.js";
import { parseStoredJson, readRecord } from "../../store/record-io.js";
import type { ScreenshotParams } from "./input.js";
import {
  allowedFor,
  baselineOf,
  comparePixels,
  matchedDone,
  reportMismatch,
  type PixelMismatch,
  type ScreenshotDone,
  type StoredBaseline,
} from "./pixel-check.js";

/** Other devices' baselines sent to `judge` as references: the nearest device's first, then the most recent. */
const MAX_REFERENCES = 3;
/** Share of the screen the model may mark as varying; more would hide real changes. */
export const MAX_VARYING_SHARE = 0.25;

/** Where a baseline is stored, for messages: the store's location and the key. */
export interface BaselinePlace {
  key: string;
  /** `<store location>/<key>`, without the extension. */
  where: string;
}

/** Judge a settled screen against the prompt and other devices' baselines; what to store. */
export async function learnBaseline(
  call: Call,
  params: ScreenshotParams,
  { key }: BaselinePlace,
): Promise<NewValue<BaselineRecord, ScreenshotDone>> {
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
      `${subjectOf(call, params)}: the model (${answer.model}) found that the screen does not show "${params.prompt}": ` +
        `${clause(answer.reason)}. Nothing was stored. If the screen is right, describe it more precisely in ` +
        `the prompt; otherwise fix the app.`,
    );
  }
  const varying = checkVarying(call, answer.varying ?? [], { model: answer.model, kind: "judge" });
  const judged = `judged against ${references.length} other device${references.length === 1 ? "" : "s"}`;
  return {
    fields: baselineFields(call, params, { varying, model: answer.model, reason: answer.reason }),
    image: shot.png,
    done: { outcome: "stored", result: { diffPixels: 0 }, detail: `${key}.json ${judged}` },
  };
}

/** Heal a mismatch: on a settled screen that still differs, the model decides whether it is a real change. */
export async function healBaseline(
  call: Call,
  { stored, mismatch, params }: { stored: StoredBaseline; mismatch: PixelMismatch; params: ScreenshotParams },
  { where }: BaselinePlace,
): Promise<NewValue<BaselineRecord, ScreenshotDone> | { done: Done<ScreenshotDone> }> {
  const subject = subjectOf(call, params);
  const baseline =
    stored.image === mismatch.baseline.png ? mismatch.baseline : baselineOf(stored, await decode(stored.image), params);
  const allowed = allowedFor(stored, params);
  // Judge a settled screen, not a frame of an animation.
  const until = call.deadline.after("settleBeforeModel");
  const shot = await waitForStable(call, { until, masks: baseline.masks, requireDrawn: false, first: mismatch.shot });
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
    return { done: matchedDone(again.diffPixels, allowed) };
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
    ? checkVarying(call, answer.varying, { model: answer.model, kind: "compare" })
    : stored.record.varying;
  return {
    fields: baselineFields(call, params, { varying, model: answer.model, reason: answer.reason }),
    image: shot.png,
    done: {
      outcome: "healed",
      result: { diffPixels: again.diffPixels },
      detail: `${mismatch.text}; the model: ${answer.reason}`,
    },
  };
}

function subjectOf(call: Call, params: ScreenshotParams): string {
  return `toMatchScreenshot "${params.name}" on ${call.deviceSlug}`;
}

/** The fields of a new baseline value on this call's device: what was judged, healed or updated. */
export function baselineFields(
  call: Call,
  params: ScreenshotParams,
  value: { varying: Rect[]; model: string; reason: string },
) {
  const { varying, model, reason } = value;
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
export async function refuseBlank(call: Call, shot: Shot, masks: Rect[], params: ScreenshotParams): Promise<void> {
  if (!isUniformOutside(shot.raw, masks)) return;
  await call.report("screenshot", shot.png);
  throw new RejectedError(
    `${subjectOf(call, params)}: the screen is blank (one colour outside the ` +
      `system bars and masks), so it was not stored as a baseline. The app may not have drawn ` +
      `yet (wait for it before this step) or the window may be secure (screenshots of it come out black).`,
  );
}

/**
 * Baselines of this name on other devices of the platform: the nearest device's first (the closest
 * pixel density and screen shape, src/core/device/description.ts), then the most recently stored.
 */
async function referencesFor(call: Call, name: string): Promise<Reference[]> {
  const store = call.config.store;
  const own = baselineKey(call.device.platform, name, call.deviceSlug);
  const keys = (await store.list(baselineFolder(call.device.platform, name)))
    .filter((k) => k.endsWith(".json"))
    .map((k) => k.slice(0, -".json".length))
    .filter((k) => k !== own);
  // Rank by the records alone, then read only the images that are sent.
  const ranked: { key: string; storedAt: string; distance: number }[] = [];
  for (const key of keys) {
    const parsed = BaselineRecordSchema.safeParse(parseStoredJson(await store.read(`${key}.json`)));
    if (parsed.success) {
      ranked.push({ key, storedAt: parsed.data.storedAt, distance: deviceDistance(call.device, parsed.data.device) });
    } else call.note(`skipped reference ${key}.json: not a valid baseline record`);
  }
  ranked.sort((a, b) => b.storedAt.localeCompare(a.storedAt) || a.key.localeCompare(b.key));
  const nearest = ranked.reduce<(typeof ranked)[number] | undefined>(
    (best, r) => (!best || r.distance < best.distance ? r : best),
    undefined,
  );
  if (nearest) ranked.unshift(...ranked.splice(ranked.indexOf(nearest), 1));
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

/**
 * The model's varying boxes as whole-pixel rectangles on the image judged (the screen, or a
 * whole page), refused when they cover too much of it.
 */
export function checkVarying(
  call: Call,
  boxes: Box[],
  { model, kind, size = call.device.screen }: { model: string; kind: "judge" | "compare"; size?: Size },
): Rect[] {
  const { width, height } = size;
  const what = size === call.device.screen ? "screen" : "page";
  const rects = boxes.map((box) => {
    const rect = clipToScreen(box, width, height);
    if (!rect) {
      throw new AiAnswerError(
        kind,
        `The model (${model}) gave a varying box outside the ${width}x${height} ${what}: ${JSON.stringify(box)}.`,
      );
    }
    return rect;
  });
  const share = unionArea(rects) / (width * height);
  if (share > MAX_VARYING_SHARE) {
    throw new RejectedError(
      `toMatchScreenshot "${call.subject}" on ${call.deviceSlug}: the model (${model}) marked ` +
        `${(share * 100).toFixed(1)}% of the ${what} as varying, more than the ${MAX_VARYING_SHARE * 100}% allowed: ` +
        `masking that much would hide real changes, so nothing was stored. Name the varying content more ` +
        `precisely in the prompt, or pass { mask } for regions this step should ignore.`,
    );
  }
  return rects;
}
