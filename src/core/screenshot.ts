/**
 * The toMatchScreenshot flow (DESIGN.md section 5): compare the screen with the
 * baseline stored for this name and device, or have the model judge a first one
 * against the prompt (and other devices' baselines) and store it.
 */
import { Call, toAiImage } from "./call.js";
import { BoxSchema, type Box, type Reference } from "./contract.js";
import { sameScreen, screenOf, type DeviceDescription } from "./device.js";
import {
  AiAnswerError,
  InputError,
  NotStoredError,
  RejectedError,
  ScreenshotMismatchError,
  StoreError,
  clause,
} from "./errors.js";
import { compare, decode, sideBySide, type RawImage, type Rect } from "./images.js";
import { HEALED_MESSAGE } from "./log.js";
import { clipToScreen, isUniformOutside, systemBarMasks, unionArea } from "./masks.js";
import { pollForMatch, waitForStable, type Shot } from "./stable-screen.js";
import {
  checkBoolean,
  checkCount,
  checkKnownOptions,
  checkRatio,
  checkSignal,
  checkText,
  checkTimeout,
  type ScreenshotResult,
} from "./options.js";
import { BASELINE_NAME, baselineFolder, baselineKey, slugify } from "./store/keys.js";
import {
  BaselineRecordSchema,
  createRecord,
  FORMAT,
  readRecord,
  replaceRecord,
  sha256,
  type BaselineRecord,
  type Stored,
} from "./store/records.js";

/** Other devices' baselines sent to `judge` as references, most recent first. */
const MAX_REFERENCES = 3;
/** Share of the screen the model may mark as varying; more would hide real changes. */
export const MAX_VARYING_SHARE = 0.25;
export const DEFAULT_THRESHOLD = 0.1;
export const DEFAULT_MAX_DIFF_PIXEL_RATIO = 0.001;
const MAX_NAME_LENGTH = 100;

type StoredBaseline = Stored<BaselineRecord>;

/** Parameters of one toMatchScreenshot call, already validated. */
export interface ScreenshotParams {
  name: string;
  prompt: string;
  autoHeal: boolean;
  threshold: number;
  /** As given; `undefined` when not set (see {@link allowedDiffPixels}). */
  maxDiffPixels: number | undefined;
  maxDiffPixelRatio: number | undefined;
  /** The caller's extra masks. */
  mask: Box[];
}

const SCREENSHOT_OPTIONS = ["autoHeal", "timeout", "signal", "threshold", "maxDiffPixels", "maxDiffPixelRatio", "mask"];

/** Check every argument before any device or model call. */
export function checkScreenshotInput(name: unknown, prompt: unknown, options: unknown) {
  const opts = checkKnownOptions(options, SCREENSHOT_OPTIONS, "toMatchScreenshot");
  const params: ScreenshotParams = {
    name: checkName(name),
    prompt: checkText(prompt, "toMatchScreenshot's prompt", '"the cart with 2 items; prices may differ"'),
    autoHeal: checkBoolean(opts.autoHeal, "autoHeal"),
    threshold: checkRatio(opts.threshold, "threshold", DEFAULT_THRESHOLD),
    maxDiffPixels: opts.maxDiffPixels === undefined ? undefined : checkCount(opts.maxDiffPixels, "maxDiffPixels", 0),
    maxDiffPixelRatio:
      opts.maxDiffPixelRatio === undefined ? undefined : checkRatio(opts.maxDiffPixelRatio, "maxDiffPixelRatio", 0),
    mask: checkMasks(opts.mask),
  };
  return { params, timeout: checkTimeout(opts.timeout), signal: checkSignal(opts.signal) };
}

function checkName(value: unknown): string {
  const name = checkText(value, "toMatchScreenshot's name", '"cart-page"');
  if (BASELINE_NAME.test(name) && !/^\.+$/.test(name) && name.length <= MAX_NAME_LENGTH) return name;
  throw new InputError(
    `toMatchScreenshot's name ${JSON.stringify(name)} is not a valid baseline name: it names a folder, so use only ` +
      `letters, digits, ".", "_" and "-" (not only dots, at most ${MAX_NAME_LENGTH} characters). ` +
      `Try "${slugify(name)}".`,
  );
}

function checkMasks(value: unknown): Box[] {
  if (value === undefined) return [];
  const example = "[{ x: 0, y: 300, width: 1080, height: 120 }]";
  if (!Array.isArray(value)) {
    throw new InputError(`mask must be an array of boxes in screenshot pixels, e.g. ${example}; got ${String(value)}.`);
  }
  return value.map((box: unknown, i) => {
    const parsed = BoxSchema.safeParse(box);
    if (!parsed.success) {
      throw new InputError(
        `mask[${i}] must be a box { x, y, width, height } in screenshot pixels (x and y 0 or more, width and ` +
          `height more than 0), e.g. ${example}; got ${JSON.stringify(box)}.`,
      );
    }
    return parsed.data;
  });
}

/**
 * Differing pixels a comparison allows, as Playwright's `toHaveScreenshot` decides it:
 * with both options set the stricter applies, with one set only that one, with neither
 * `maxDiffPixelRatio` {@link DEFAULT_MAX_DIFF_PIXEL_RATIO}. The ratio is of all the screenshot's pixels.
 */
export function allowedDiffPixels(
  total: number,
  { maxDiffPixels, maxDiffPixelRatio }: Pick<ScreenshotParams, "maxDiffPixels" | "maxDiffPixelRatio">,
): number {
  const byRatio = maxDiffPixelRatio === undefined ? undefined : Math.floor(total * maxDiffPixelRatio);
  if (maxDiffPixels !== undefined && byRatio !== undefined) return Math.min(maxDiffPixels, byRatio);
  return maxDiffPixels ?? byRatio ?? Math.floor(total * DEFAULT_MAX_DIFF_PIXEL_RATIO);
}

function describeAllowance(allowed: number, params: ScreenshotParams): string {
  const { maxDiffPixels, maxDiffPixelRatio } = params;
  if (maxDiffPixels !== undefined && maxDiffPixelRatio !== undefined) {
    return `${allowed} (the stricter of maxDiffPixels ${maxDiffPixels} and maxDiffPixelRatio ${maxDiffPixelRatio})`;
  }
  if (maxDiffPixels !== undefined) return `${allowed} (maxDiffPixels)`;
  return `${allowed} (maxDiffPixelRatio ${maxDiffPixelRatio ?? DEFAULT_MAX_DIFF_PIXEL_RATIO})`;
}

export async function runScreenshot(call: Call, params: ScreenshotParams): Promise<ScreenshotResult> {
  const device = await call.describe();
  const store = call.config.store;
  const key = baselineKey(device.platform, params.name, call.deviceSlug);
  call.key = key;

  let found = await readBaseline(call, key, device);
  if (found.usable) return compareOrHeal(call, key, found.usable, params);
  if (call.config.mode === "replay") throw notStored(call, key, params, found.otherScreen);

  // One judge per key: parallel runs of this device wait here, then compare against what it stored.
  let stored: StoredBaseline | null;
  const release = await store.lock(key, { deadline: call.deadline.end, signal: call.deadline.signal });
  try {
    found = await readBaseline(call, key, call.device, false);
    if (found.usable) {
      call.note("stored by a parallel run");
      stored = found.usable;
    } else {
      const result = await judgeAndStore(call, key, params, found.otherScreen);
      if (result) return result;
      call.note("another run stored this baseline first");
      stored = (await readBaseline(call, key, call.device, false)).usable;
      if (!stored) throw new StoreError(`${call.config.store.location}/${key}.json could not be stored or read.`);
    }
  } finally {
    await release();
  }
  return compareOrHeal(call, key, stored, params);
}

/** The stored baseline when it fits this screen (`usable`), or the one made on another screen size. */
async function readBaseline(call: Call, key: string, device: DeviceDescription, noteSkip = true) {
  const stored = await readRecord(call.config.store, key, BaselineRecordSchema);
  if (!stored) return { usable: null, otherScreen: null };
  if (sameScreen(stored.record.device, device)) return { usable: stored, otherScreen: null };
  if (noteSkip)
    call.note(`stored baseline ${screenOf(stored.record.device)}, this one is ${screenOf(device)}: not compared`);
  return { usable: null, otherScreen: stored };
}

function notStored(call: Call, key: string, params: ScreenshotParams, otherScreen: StoredBaseline | null) {
  const d = call.device;
  const where = `${call.config.store.location}/${key}.json`;
  const what = otherScreen
    ? `The baseline "${params.name}" for ${call.deviceSlug} (${where}) was stored on a ` +
      `${screenOf(otherScreen.record.device)} screen and this one is ${screenOf(d)}, so it cannot be compared.`
    : `No baseline "${params.name}" is stored for ${call.deviceSlug} (${where}).`;
  return new NotStoredError(
    `${what} mode is "replay", so the model is not asked to judge one. Store it by running this step once on a ` +
      `${d.model} (${d.platform} ${d.osVersion}) with mode "auto" and a model configured, then commit the new ` +
      `files under _ai_/.`,
  );
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

async function judgeAndStore(
  call: Call,
  key: string,
  params: ScreenshotParams,
  otherScreen: StoredBaseline | null,
): Promise<ScreenshotResult | null> {
  const masks = [...systemBarMasks(call.device), ...params.mask];
  // Keep half the budget for the model.
  const shot = await waitForStable(call, Date.now() + call.deadline.remaining() / 2, masks, true);
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
      `toMatchScreenshot "${params.name}" on ${call.deviceSlug}: the model (${answer.model}) found that the screen ` +
        `does not show "${params.prompt}": ${clause(answer.reason)}. Nothing was stored. If the screen is right, describe ` +
        `it more precisely in the prompt; otherwise fix the app.`,
    );
  }
  const varying = checkVarying(call, answer.varying ?? [], answer.model, "judge");

  const now = new Date().toISOString();
  const record: BaselineRecord = {
    format: FORMAT,
    kind: "baseline",
    name: params.name,
    device: call.device,
    prompt: params.prompt,
    varying,
    model: answer.model,
    reason: answer.reason,
    imageSha256: sha256(shot.png),
    storedAt: now,
    createdAt: now,
  };
  const judged = `judged against ${references.length} other device${references.length === 1 ? "" : "s"}`;
  if (otherScreen) {
    await replaceRecord(
      call.config.store,
      key,
      { ...record, previous: valueOf(otherScreen.record) },
      shot.png,
      otherScreen.image,
    );
    call.finish("stored", `${key}.json ${judged}; replaced the ${screenOf(otherScreen.record.device)} baseline`);
  } else {
    if (!(await createRecord(call.config.store, key, record, shot.png))) return null;
    call.finish("stored", `${key}.json ${judged}`);
  }
  return { outcome: "stored", aiCalls: call.aiCalls, diffPixels: 0 };
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
  const { device, varying } = stored.record;
  return {
    png: stored.image,
    raw,
    masks: [...systemBarMasks(device), ...varying, ...params.mask],
    threshold: params.threshold,
  };
}

async function comparePixels(baseline: Baseline, shot: Shot, diff = false): Promise<Comparison> {
  const { raw } = baseline;
  if (shot.raw.width !== raw.width || shot.raw.height !== raw.height) {
    return { diffPixels: raw.width * raw.height, otherSize: `${shot.raw.width}x${shot.raw.height}` };
  }
  if (!diff && shot.png.equals(baseline.png)) return { diffPixels: 0 };
  const { diffPixels, diffPng } = await compare(raw, shot.raw, {
    threshold: baseline.threshold,
    masks: baseline.masks,
    diff,
  });
  return { diffPixels, diffPng };
}

async function compareOrHeal(
  call: Call,
  key: string,
  stored: StoredBaseline,
  params: ScreenshotParams,
): Promise<ScreenshotResult> {
  const baseline = baselineOf(stored, await decode(stored.image), params);
  const total = baseline.raw.width * baseline.raw.height;
  const allowed = allowedDiffPixels(total, params);
  // With autoHeal, keep half the budget for the model; without, retry until the deadline.
  const healing = params.autoHeal && call.config.mode === "auto";
  const pollUntil = healing ? Date.now() + call.deadline.remaining() / 2 : call.deadline.end;

  let shot: Shot | undefined;
  let result: Comparison = { diffPixels: total };
  const last = await pollForMatch(call, { until: pollUntil, healing }, async (png) => {
    // An unchanged screen needs no new comparison (pixelmatch is the costly part).
    if (!shot || !png.equals(shot.png)) {
      shot = { png, raw: png.equals(stored.image) ? baseline.raw : await decode(png) };
      result = await comparePixels(baseline, shot);
    }
    return result.diffPixels <= allowed;
  });
  if (last.matched) return matched(call, key, result.diffPixels, allowed);
  shot = shot!; // pollForMatch calls the matcher at least once

  const mismatch = describeMismatch(result, baseline.raw, allowed, params);
  if (healing && !result.otherSize) return heal(call, key, stored, baseline, shot, params, mismatch);

  await reportMismatch(call, baseline, shot);
  const hint =
    params.autoHeal && call.config.mode === "replay"
      ? `autoHeal is off in mode "replay". `
      : `If the change is intended, run with { autoHeal: true } to let the model confirm it and update the baseline. `;
  throw new ScreenshotMismatchError(
    `toMatchScreenshot "${params.name}" on ${call.deviceSlug}: ${mismatch}, still at the deadline. ` +
      `${hint}To judge a new baseline instead, delete ${call.config.store.location}/${key}.json and .png.`,
    result.diffPixels,
    result.diffPixels / total,
  );
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

async function matched(call: Call, key: string, diffPixels: number, allowed: number): Promise<ScreenshotResult> {
  await call.config.store.touch(`${key}.json`);
  call.finish("matched", diffPixels ? `${diffPixels} pixels differed (allowed ${allowed})` : undefined);
  return { outcome: "matched", aiCalls: call.aiCalls, diffPixels };
}

function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(ratio < 0.01 ? 3 : 1)}%`;
}

/** Expected, actual, diff and the three side by side. */
async function reportMismatch(call: Call, baseline: Baseline, shot: Shot, diffPng?: Buffer): Promise<void> {
  await call.report("expected", baseline.png);
  await call.report("actual", shot.png);
  diffPng ??= (await comparePixels(baseline, shot, true)).diffPng;
  if (!diffPng) return;
  await call.report("diff", diffPng);
  await call.report("composite", await sideBySide([baseline.png, shot.png, diffPng]));
}

async function heal(
  call: Call,
  key: string,
  stored: StoredBaseline,
  baseline: Baseline,
  last: Shot,
  params: ScreenshotParams,
  mismatch: string,
): Promise<ScreenshotResult> {
  const store = call.config.store;
  const allowed = allowedDiffPixels(baseline.raw.width * baseline.raw.height, params);
  const release = await store.lock(key, { deadline: call.deadline.end, signal: call.deadline.signal });
  try {
    const current = await readRecord(store, key, BaselineRecordSchema);
    if (current && current.record.imageSha256 !== stored.record.imageSha256) {
      // A parallel run healed it while this one waited for the lock: compare with its baseline, heal from it.
      call.note("healed by a parallel run");
      stored = current;
      baseline = baselineOf(current, await decode(current.image), params);
      const result = await comparePixels(baseline, last);
      if (result.diffPixels <= allowed) return await matched(call, key, result.diffPixels, allowed);
    }

    // Judge a settled screen, not a frame of an animation.
    const shot = await waitForStable(call, Date.now() + call.deadline.remaining() / 3, baseline.masks, false, last);
    const again = await comparePixels(baseline, shot, true);
    if (again.otherSize) {
      await reportMismatch(call, baseline, shot);
      throw new ScreenshotMismatchError(
        `toMatchScreenshot "${params.name}" on ${call.deviceSlug}: ${mismatch}; then the screen became ` +
          `${again.otherSize} (rotated?), so nothing was healed.`,
        again.diffPixels,
        1,
      );
    }
    if (again.diffPixels <= allowed) {
      call.note("matched once the screen settled");
      return await matched(call, key, again.diffPixels, allowed);
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
        `toMatchScreenshot "${params.name}" on ${call.deviceSlug}: ${mismatch}, and the model (${answer.model}) ` +
          `found it a real change: ${clause(answer.reason)}. The baseline was kept. Fix the app; or, if the new screen is ` +
          `right, delete ${store.location}/${key}.json and .png so the next run judges a new baseline.`,
      );
    }
    const varying = answer.varying
      ? checkVarying(call, answer.varying, answer.model, "compare")
      : stored.record.varying;

    const record: BaselineRecord = {
      ...stored.record,
      device: call.device,
      prompt: params.prompt,
      varying,
      model: answer.model,
      reason: answer.reason,
      imageSha256: sha256(shot.png),
      storedAt: new Date().toISOString(),
      previous: valueOf(stored.record),
    };
    await replaceRecord(store, key, record, shot.png, stored.image);
    call.finish("healed", `${HEALED_MESSAGE}: ${key}.json; ${mismatch}; the model: ${answer.reason}`);
    return { outcome: "healed", aiCalls: call.aiCalls, diffPixels: again.diffPixels };
  } finally {
    await release();
  }
}

function valueOf(record: BaselineRecord) {
  const { prompt, varying, model, reason, imageSha256, storedAt } = record;
  return { prompt, varying, model, reason, imageSha256, storedAt };
}
