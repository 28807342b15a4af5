/*
 * Taps as stored values (docs/design.md section 5): a stored point is replayed once the crop
 * under it matches the screen; the model locates the element to learn or heal it. When each
 * happens, and how records are written, is the lifecycle's (src/core/run/lifecycle.ts). This
 * module only wires the tap's parts into a `StoredKind`:
 * - crop-check.ts: the crop check that decides a replay;
 * - heal-ladder.ts: the cheap rungs of a heal, before the model;
 * - locate.ts: asking the model, tapping, `verify`;
 * - page-source-rung.ts: a first learn the page source decides, before the model;
 * - scroll-tap.ts: taps that scroll to find their element;
 * - transfer.ts: a tap stored on other devices of the platform, tried before the model.
 */
import { ElementNotFoundError, ReplayMismatchError, clause } from "../../ground/errors.js";
import { decodeRegion, type RawImage } from "../../pixels/image-decode.js";
import { encodePng, outlineRect } from "../../pixels/image-encode.js";
import { rectFits } from "../../pixels/pixel-rects.js";
import type { Call } from "../../run/call.js";
import { runStored, type Done, type NewValue, type StoredKind } from "../../run/lifecycle.js";
import type { Stored } from "../../store/record-io.js";
import { tapKey } from "../../store/keys.js";
import { TapRecordSchema, TapValueSchema, type TapRecord } from "../../store/tap-record.js";
import { tapFingerprint } from "../../store/rejections.js";
import { useCrop, useCropNow } from "./crop-check.js";
import { evidenceText, healCheaply, movedHint } from "./heal-ladder.js";
import { settledScreenshot } from "../shared/settled-screenshot.js";
import { locateAndTap, tapValue } from "./locate.js";
import { locateInPageSource } from "./page-source-rung.js";
import { tapNotStored } from "./not-stored.js";
import { storedThumb } from "../shared/stored-screen.js";
import { learnScrolled, useScrolled } from "./scroll-tap.js";
import { transferHint, tryTransfer } from "./transfer.js";
import type { CropMismatch, TapDone, TapParams } from "./tap-params.js";

export type { TapDone, TapParams } from "./tap-params.js";

/** The store key of a tap on the call's device. */
export function tapKeyOf(call: Call, { prompt, verify, scroll }: TapParams): string {
  // Where a tap scrolls is part of what it stores; how far it may scroll is not (docs/storage.md).
  const scrolls = scroll && { scroll: scroll.direction, ...(scroll.within ? { within: scroll.within } : {}) };
  return tapKey(call.device.platform, call.deviceSlug, prompt, verify, scrolls);
}

/** Replay, learn or heal one tap. */
export function runTap(call: Call, key: string, params: TapParams): Promise<Done<TapDone>> {
  return runStored(call, key, tapKind(call, key, params));
}

/** What the tap kind's steps share: the call, its key and parameters, and the tap's name in messages. */
interface TapRun {
  call: Call;
  key: string;
  params: TapParams;
  noun: "tap" | "locator";
  subject: string;
}

// A factory of small methods, each naming the step of the lifecycle it answers; the longer ones are below it.
function tapKind(call: Call, key: string, params: TapParams): StoredKind<TapRecord, TapDone, CropMismatch> {
  const noun = params.kind ?? "tap";
  const run: TapRun = { call, key, params, noun, subject: `${noun} "${params.prompt}" on ${call.deviceSlug}` };
  return {
    noun,
    schema: TapRecordSchema,
    valueSchema: TapValueSchema,
    // Mode update learns a tap whose crop no longer matches again, as autoHeal does (heal ladder, then the model).
    healing: (params.autoHeal && call.config.mode === "auto") || call.config.mode === "update",
    notStored: () => notStoredTap(run),
    use(stored, until) {
      if (params.scroll) return useScrolled(call, stored, params.scroll, until);
      return useCrop(call, key, stored, { params, until });
    },
    // A scroll tap's screen is scrolled by now: a parallel run's value is healed from, not looked for here.
    useNow: async (stored) => (params.scroll ? null : useCropNow(call, stored, params)),
    fail: (stored, mismatch) => failTap(run, stored, mismatch),
    async healsTo(mismatch, rejection) {
      if (!rejection.crop || !rectFits(rejection.crop, call.device.screen.width, call.device.screen.height)) {
        return undefined;
      }
      return tapFingerprint(await decodeRegion(mismatch.screenshot, rejection.crop));
    },
    learn: () => learnTap(run),
    heal: (stored, mismatch) => healTap(run, stored, mismatch),
  };
}

/** What a transfer would have done on this screen, nothing tapped or stored; a failed look is only noted. */
async function notStoredTap({ call, key, params }: TapRun): Promise<Error> {
  const transfer = await transferHint(call, key, () => settledScreenshot(call), params).catch((error: unknown) => {
    call.note(`transfer not weighed: ${(error as Error).message.split("\n")[0]}`);
    return "";
  });
  return tapNotStored(call, key, params, { transfer });
}

/** Report the expected and actual crops and the screenshot, then fail saying what may have changed. */
async function failTap(
  { call, key, params, subject }: TapRun,
  stored: Stored<TapRecord>,
  mismatch: CropMismatch,
): Promise<never> {
  await call.report("expected", stored.image, "expected-crop");
  const { actual, screenshot } = mismatch;
  await call.whileTimeLeft("the failure's crop and screenshot images", async () => {
    if (actual) await call.report("actual", await encodePng(actual), "actual-crop");
    await call.report("screenshot", await outlineRect(screenshot, stored.record.crop), "screenshot");
  });
  const moved = mismatch.rejected
    ? ""
    : ((await call.whileTimeLeft("looking for the element elsewhere", () =>
        movedHint(call, stored, mismatch, params),
      )) ?? "");
  const hint = mismatch.rejected
    ? `${mismatch.rejected}. Fix the app; or, if the new place is right after all, delete ${key}.json to learn it again.`
    : `The screen may have changed. If the element moved or was restyled, run with { autoHeal: true } or ` +
      `TAPSHOT_MODE=update to find it again and update ${key}.json; if the prompt or verify no longer fits, ` +
      `reword it to learn a new value.`;
  throw new ReplayMismatchError(`${subject}: ${mismatch.text}.${moved} ${hint}`);
}

/** Learn: a scroll tap scrolls; else a transfer, the page source, then the model, on a settled screenshot. */
async function learnTap({ call, key, params, noun, subject }: TapRun): Promise<NewValue<TapRecord, TapDone>> {
  if (params.scroll) return learnScrolled(call, { params, scroll: params.scroll });
  const shot = await settledScreenshot(call);
  const transfer = params.transfer ? await tryTransfer(call, key, shot, params) : {};
  if (transfer.value) return withThumb(call, transfer.value, shot.raw);
  const screenshot = shot.png;
  const fromPage = await locateInPageSource(call, screenshot, params);
  const located =
    fromPage.located ??
    (await locateAndTap(call, { screenshot, params, evidence: transfer.evidence, controls: fromPage.controls }));
  if (!located.found) {
    await call.report("screenshot", screenshot);
    throw new ElementNotFoundError(
      `${subject}: the model did not find it: ${clause(located.reason)}. ` +
        `Check that the screen shows it, or describe it more precisely.`,
    );
  }
  const identity = { kind: noun, prompt: params.prompt, verify: params.verify ?? null };
  return withThumb(call, tapValue(call, located, { identity, outcome: "learned" }), shot.raw);
}

/** Heal: the cheap rungs of the ladder, then the model with the stored crop as its reference. */
async function healTap(
  { call, params, subject }: TapRun,
  stored: Stored<TapRecord>,
  mismatch: CropMismatch,
): Promise<NewValue<TapRecord, TapDone>> {
  // A scroll tap's replay swiped away from the start: it goes back, then finds the element as when learning.
  if (params.scroll) return learnScrolled(call, { params, scroll: params.scroll, healing: { stored, mismatch } });
  const shot = await settledScreenshot(call);
  const cheap = await healCheaply(call, stored, shot, params);
  if (cheap.value) return withThumb(call, cheap.value, shot.raw);
  const evidence = evidenceText(call, stored.record, cheap.found);
  const located = await locateAndTap(call, { screenshot: shot.png, params, reference: stored.image, evidence });
  if (!located.found) {
    await call.report("expected", stored.image, "expected-crop");
    await call.report("screenshot", await outlineRect(mismatch.screenshot, stored.record.crop), "screenshot");
    throw new ElementNotFoundError(
      `${subject}: ${mismatch.text}, and autoHeal found no such element: ${clause(located.reason)}. ` +
        `A removed element is a real change, so nothing was healed.`,
    );
  }
  const { kind, prompt, verify } = stored.record;
  const healed = tapValue(call, located, { identity: { kind, prompt, verify }, outcome: "healed" });
  const was = stored.record.point;
  healed.done.detail = `point (${was.x}, ${was.y}) -> (${located.point.x}, ${located.point.y}); ${mismatch.text}`;
  return withThumb(call, healed, shot.raw);
}

/**
 * A plain tap's new value with the thumbnail of the settled screen it was found on (before its
 * tap), which later replays judge a screen without the crop by (./stored-screen.ts).
 */
function withThumb(call: Call, value: NewValue<TapRecord, TapDone>, screen: RawImage): NewValue<TapRecord, TapDone> {
  return { ...value, fields: { ...value.fields, screenThumb: storedThumb(screen, call.device) } };
}
