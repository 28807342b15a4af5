/**
 * The tap flow (DESIGN.md section 5): replay a stored point once its crop matches
 * the screen, or learn it from the model once per device model and OS version.
 */
import { Call, toAiImage } from "./call.js";
import type { Box } from "./contract.js";
import { sameScreen, screenOf, type DeviceDescription, type Point } from "./device.js";
import {
  AiAnswerError,
  ElementNotFoundError,
  NotStoredError,
  ReplayMismatchError,
  TimeoutError,
  VerifyFailedError,
  clause,
} from "./errors.js";
import {
  compare,
  decode,
  decodeRegion,
  cropPng,
  encodePng,
  outlineRect,
  rectFits,
  toRect,
  type RawImage,
} from "./images.js";
import { HEALED_MESSAGE } from "./log.js";
import { systemBarMasks } from "./masks.js";
import { pollForMatch, waitForStable } from "./stable-screen.js";
import { tapKey } from "./store/keys.js";
import {
  createRecord,
  readRecord,
  replaceRecord,
  sha256,
  TapRecordSchema,
  FORMAT,
  type Stored,
  type TapRecord,
} from "./store/records.js";
import type { TapResult } from "./options.js";

/** Wait after a fresh tap before the first `verify` check, so the screen can react. */
const VERIFY_SETTLE_MS = 500;
/** Per-pixel tolerance of the crop comparison (pixelmatch threshold). */
const CROP_THRESHOLD = 0.1;
/** Share of crop pixels that may differ (anti-aliasing, a blinking caret). */
const CROP_MAX_DIFF_RATIO = 0.01;
/** The stored crop is the element's box padded by this many tap units on each side. */
const CROP_PAD_UNITS = 4;

type StoredTap = Stored<TapRecord>;

/** Parameters of one tap, already validated. */
export interface TapParams {
  prompt: string;
  verify: string | undefined;
  autoHeal: boolean;
}

export async function runTap(call: Call, { prompt, verify, autoHeal }: TapParams): Promise<TapResult> {
  const device = await call.describe();
  const store = call.config.store;
  const key = tapKey(device.platform, call.deviceSlug, prompt, verify);
  call.key = key;

  const first = await readCompatible(call, key, device);
  if (first.usable) return replayOrHeal(call, key, first.usable, { prompt, verify, autoHeal });

  if (call.config.mode === "replay") {
    throw new NotStoredError(
      `No stored tap for "${prompt}"${verify ? ` with verify "${verify}"` : ""} on ${call.deviceSlug} ` +
        `(${store.location}/${key}.json). mode is "replay", so the model is not asked. ` +
        `Learn it by running this flow once on a ${device.model} (${device.platform} ${device.osVersion}) ` +
        `with mode "auto" and a model configured, then commit the new files under _ai_/.`,
    );
  }

  // One learner per key: parallel runs of this device wait here, then replay what it stored.
  const release = await store.lock(key, { deadline: call.deadline.end, signal: call.deadline.signal });
  let stored: StoredTap;
  try {
    const { usable, otherScreen } = await readCompatible(call, key, device, false);
    if (!usable) return await learn(call, key, { prompt, verify }, otherScreen);
    call.note("learned by a parallel run");
    stored = usable;
  } finally {
    await release();
  }
  return replayOrHeal(call, key, stored, { prompt, verify, autoHeal });
}

/**
 * The stored record as `usable`, or as `otherScreen` when it was made on another screen size or
 * orientation (not replayed, noted in the log).
 */
async function readCompatible(call: Call, key: string, device: DeviceDescription, noteSkip = true) {
  const stored = await readRecord(call.config.store, key, TapRecordSchema);
  if (!stored) return { usable: null, otherScreen: null };
  if (sameScreen(stored.record.device, device)) return { usable: stored, otherScreen: null };
  if (noteSkip) {
    call.note(
      `stored tap was made on a ${screenOf(stored.record.device)} screen, this one is ${screenOf(device)}: not replayed`,
    );
  }
  return { usable: null, otherScreen: stored };
}

async function replayOrHeal(call: Call, key: string, stored: StoredTap, params: TapParams): Promise<TapResult> {
  const { record } = stored;
  const expected = await decode(stored.image);
  // With autoHeal, keep half the budget for the model; without, wait for the screen until the deadline.
  const healing = params.autoHeal && call.config.mode === "auto";
  const pollUntil = healing ? Date.now() + call.deadline.remaining() / 2 : call.deadline.end;

  let actual: RawImage | undefined;
  let diffRatio = 1;
  let last: Buffer | undefined;
  const { png: screenshot, matched } = await pollForMatch(call, { until: pollUntil, healing }, async (png) => {
    // An unchanged screen gives the same answer: skip decoding and comparing it again.
    if (!last?.equals(png)) ({ actual, diffRatio } = await cropDiff(call, expected, record, png));
    last = png;
    return diffRatio <= CROP_MAX_DIFF_RATIO;
  });
  if (matched) return replayed(call, key, record);

  const mismatch =
    `the stored crop at (${record.crop.x}, ${record.crop.y}) ${record.crop.width}x${record.crop.height} ` +
    `never matched the screen: ${(diffRatio * 100).toFixed(1)}% of its pixels differed at the last try ` +
    `(allowed ${CROP_MAX_DIFF_RATIO * 100}%)`;
  if (healing) return heal(call, key, stored, screenshot, params, mismatch);

  await call.report("expected", stored.image, "expected-crop");
  if (actual) await call.report("actual", await encodePng(actual), "actual-crop");
  await call.report("screenshot", await outlineRect(screenshot, record.crop), "screenshot");
  throw new ReplayMismatchError(
    `tap "${params.prompt}" on ${call.deviceSlug}: ${mismatch}. The screen may have changed. ` +
      `If the element moved or was restyled, run with { autoHeal: true } to let the model find it again and update ` +
      `${key}.json; if the prompt or verify no longer fits, reword it to learn a new value.`,
  );
}

/** The share of the stored crop's pixels that differ in `png` (1 when the crop does not fit the screen). */
async function cropDiff(call: Call, expected: RawImage, record: TapRecord, png: Buffer) {
  if (!rectFits(record.crop, call.device.screen.width, call.device.screen.height)) return { diffRatio: 1 };
  const actual = await decodeRegion(png, record.crop);
  const { diffRatio } = await compare(expected, actual, { threshold: CROP_THRESHOLD });
  return { actual, diffRatio };
}

async function replayed(call: Call, key: string, record: TapRecord): Promise<TapResult> {
  await tapAt(call, record.point);
  await call.config.store.touch(`${key}.json`);
  call.finish("replayed");
  return { outcome: "replayed", point: record.point, aiCalls: call.aiCalls };
}

/** Ask the model for the element, tap its centre, check `verify`; returns what to store. */
async function locateAndTap(call: Call, screenshot: Buffer, params: Omit<TapParams, "autoHeal">, reference?: Buffer) {
  const screen = await toAiImage(screenshot);
  const answer = await call.ask({
    kind: "locate",
    screen,
    prompt: params.prompt,
    ...(reference ? { reference: await toAiImage(reference) } : {}),
  });
  if (!answer.found || !answer.box) return { found: false as const, reason: answer.reason };

  const box = clampBox(answer.box, call.device, answer.model);
  const point = { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
  const crop = toRect(box, call.device.screen.width, call.device.screen.height, CROP_PAD_UNITS * call.device.scale);
  const image = await cropPng(screenshot, crop);
  await tapAt(call, point);
  if (params.verify) await verifyAfterTap(call, params.verify);
  return { found: true as const, box, point, crop, image, model: answer.model, reason: answer.reason };
}

/**
 * A screenshot for the model to locate on: wait (up to a third of the budget) until the screen
 * stops changing, so a page still navigating after the previous step is not what gets stored.
 */
async function settledScreenshot(call: Call): Promise<Buffer> {
  const until = Date.now() + call.deadline.remaining() / 3;
  return (await waitForStable(call, until, systemBarMasks(call.device), true)).png;
}

/** Learn the tap; `otherScreen` is the record made on another screen size, replaced keeping it as previous. */
async function learn(
  call: Call,
  key: string,
  params: Omit<TapParams, "autoHeal">,
  otherScreen: StoredTap | null,
): Promise<TapResult> {
  const screenshot = await settledScreenshot(call);
  const located = await locateAndTap(call, screenshot, params);
  if (!located.found) {
    await call.report("screenshot", screenshot);
    throw new ElementNotFoundError(
      `tap "${params.prompt}" on ${call.deviceSlug}: the model did not find it: ${clause(located.reason)}. ` +
        `Check that the screen shows it, or describe it more precisely.`,
    );
  }
  const now = new Date().toISOString();
  const record: TapRecord = {
    format: FORMAT,
    kind: "tap",
    prompt: params.prompt,
    verify: params.verify ?? null,
    device: call.device,
    point: located.point,
    box: located.box,
    crop: located.crop,
    model: located.model,
    reason: located.reason,
    imageSha256: sha256(located.image),
    storedAt: now,
    createdAt: now,
  };
  if (otherScreen) {
    await replaceRecord(
      call.config.store,
      key,
      { ...record, previous: valueOf(otherScreen.record) },
      located.image,
      otherScreen.image,
    );
  } else {
    const created = await createRecord(call.config.store, key, record, located.image);
    // Only possible when another run held a lock that went stale: its value stays, ours is not stored.
    if (!created) call.note("another run stored this tap at the same time; its value was kept");
  }
  call.finish("learned");
  return { outcome: "learned", point: located.point, aiCalls: call.aiCalls };
}

async function heal(
  call: Call,
  key: string,
  stored: StoredTap,
  screenshot: Buffer,
  params: TapParams,
  mismatch: string,
): Promise<TapResult> {
  const release = await call.config.store.lock(key, { deadline: call.deadline.end, signal: call.deadline.signal });
  try {
    // A parallel run may have healed it while this one waited for the lock: use its value when it matches.
    const current = await readRecord(call.config.store, key, TapRecordSchema);
    if (current && current.record.storedAt !== stored.record.storedAt) {
      const { diffRatio } = await cropDiff(call, await decode(current.image), current.record, await call.screenshot());
      if (diffRatio <= CROP_MAX_DIFF_RATIO) {
        call.note("healed by a parallel run");
        return await replayed(call, key, current.record);
      }
      stored = current;
    }
    const fresh = await settledScreenshot(call);
    const located = await locateAndTap(call, fresh, params, stored.image);
    if (!located.found) {
      await call.report("expected", stored.image, "expected-crop");
      await call.report("screenshot", await outlineRect(screenshot, stored.record.crop), "screenshot");
      throw new ElementNotFoundError(
        `tap "${params.prompt}" on ${call.deviceSlug}: ${mismatch}, and autoHeal found no such element: ` +
          `${clause(located.reason)}. A removed element is a real change, so nothing was healed.`,
      );
    }
    const now = new Date().toISOString();
    const record: TapRecord = {
      ...stored.record,
      device: call.device,
      point: located.point,
      box: located.box,
      crop: located.crop,
      model: located.model,
      reason: located.reason,
      imageSha256: sha256(located.image),
      storedAt: now,
      previous: valueOf(stored.record),
    };
    await replaceRecord(call.config.store, key, record, located.image, stored.image);
    const moved = `(${stored.record.point.x}, ${stored.record.point.y}) -> (${located.point.x}, ${located.point.y})`;
    call.finish("healed", `${HEALED_MESSAGE}: ${key}.json, point ${moved}; ${mismatch}`);
    return { outcome: "healed", point: located.point, aiCalls: call.aiCalls };
  } finally {
    await release();
  }
}

/** After a fresh tap: ask `check` until it passes or the deadline passes. */
async function verifyAfterTap(call: Call, statement: string): Promise<void> {
  await call.deadline.sleep(VERIFY_SETTLE_MS);
  let wait = 1000;
  let failed: { screenshot: Buffer; reason: string } | undefined;
  const fail = async (): Promise<never> => {
    await call.report("screenshot", failed!.screenshot, "after-tap");
    throw new VerifyFailedError(
      `tap "${call.subject}" on ${call.deviceSlug}: after the tap, the model found that "${statement}" ` +
        `does not hold: ${clause(failed!.reason)}. Nothing was stored.`,
    );
  };
  for (;;) {
    try {
      const screenshot = await call.screenshot();
      const answer = await call.ask({ kind: "check", screen: await toAiImage(screenshot), statement });
      if (answer.pass) return;
      failed = { screenshot, reason: answer.reason };
      if (call.deadline.remaining() <= wait) return await fail();
      await call.deadline.sleep(wait);
    } catch (error) {
      // The budget ran out during a retry: what failed is the check the model already answered.
      if (error instanceof TimeoutError && failed) return await fail();
      throw error;
    }
    wait *= 2;
  }
}

async function tapAt(call: Call, point: Point): Promise<void> {
  call.deadline.throwIfAborted();
  await call.adapter.tap(call.driver, point, call.device);
}

/** Clamp a model's box to the screen; a box wholly outside it is a malformed answer. */
function clampBox(box: Box, device: DeviceDescription, model: string): Box {
  const { width, height } = device.screen;
  const x0 = Math.max(0, box.x);
  const y0 = Math.max(0, box.y);
  const x1 = Math.min(width, box.x + box.width);
  const y1 = Math.min(height, box.y + box.height);
  if (x1 - x0 < 1 || y1 - y0 < 1) {
    throw new AiAnswerError(
      "locate",
      `The model (${model}) gave a box outside the ${width}x${height} screen: ${JSON.stringify(box)}.`,
    );
  }
  return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
}

function valueOf(record: TapRecord) {
  const { point, box, crop, model, reason, imageSha256, storedAt } = record;
  return { point, box, crop, model, reason, imageSha256, storedAt };
}
