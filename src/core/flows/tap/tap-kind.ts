/**
 * Taps as stored values (docs/design.md section 5): a stored point is replayed once the crop
 * under it matches the screen; the model locates the element to learn or heal it. When each
 * happens, and how records are written, is the lifecycle's (src/core/run/lifecycle.ts).
 */
import { Call, toAiImage, type CallPageSource } from "../../run/call.js";
import type { Box } from "../../model/contract.js";
import type { DeviceDescription } from "../../device/description.js";
import {
  AiAnswerError,
  ElementNotFoundError,
  NotStoredError,
  ReplayMismatchError,
  TimeoutError,
  VerifyFailedError,
  clause,
} from "../../ground/errors.js";
import type { Point, Rect } from "../../ground/geometry.js";
import { compare, decode, decodeRegion, cropPng, encodePng, outlineRect, rectFits, toRect } from "../../pixels/images.js";
import type { RawImage } from "../../pixels/images.js";
import { runStored, type Done, type Mismatch, type NewValue, type StoredKind, type Use } from "../../run/lifecycle.js";
import { systemBarMasks } from "../../pixels/masks.js";
import { decodedStored, passedBefore, rememberPassed } from "../../run/passed-screens.js";
import { pollForMatch, waitForStable } from "../../run/stable-screen.js";
import { tapKey } from "../../store/keys.js";
import { nearbyShift, searchMoved, shifted, type SearchFinding, type Shift } from "../../pixels/moved-crop.js";
import { tapFingerprint } from "../../store/rejections.js";
import { describeAttributes, elementAt, findElement, type A11yElement, type A11yFinding } from "../../device/page-source.js";
import { TapRecordSchema, TapValueSchema, type ScrollRecord, type Stored, type TapRecord } from "../../store/records.js";
import { findAlong } from "../../pixels/crop-along.js";
import { axisOf, scrollRegion } from "./scroll/geometry.js";
import type { ScrollParams } from "./scroll/options.js";
import {
  learningSwipe,
  plannedSwipe,
  REPLAY_EXTRA_SWIPES,
  rewind,
  scrollRecord,
  scrollUntil,
  swipesText,
} from "./scroll/swipes.js";

/** Wait after a fresh tap before the first `verify` check, so the screen can react. */
const VERIFY_SETTLE_MS = 500;
/** Per-pixel tolerance of the crop comparison (pixelmatch threshold). */
const CROP_THRESHOLD = 0.1;
/** Share of crop pixels that may differ (anti-aliasing, a blinking caret). */
const CROP_MAX_DIFF_RATIO = 0.01;
/** The stored crop is the element's box padded by this many tap units on each side. */
const CROP_PAD_UNITS = 4;

/** Parameters of one tap, already validated. */
export interface TapParams {
  prompt: string;
  verify: string | undefined;
  autoHeal: boolean;
  /** Scroll to find the element (docs/api.md "Scrolling to find"); `undefined` for a plain tap. */
  scroll?: ScrollParams | undefined;
  /** Rungs of the heal ladder that may be skipped (docs/heal.md); all on by default. */
  heal: { nearby: boolean; search: boolean; accessibility: boolean };
}

/** What a tap returns besides its outcome and model calls. */
export interface TapDone {
  point: Point;
}

/** Model name of a heal from the whole-screen crop search (docs/heal.md): not a model's judgment. */
export const CROP_SEARCH_MODEL = "local:crop-search";
/** Model name of a heal from the stored element found in the page source alone. */
export const A11Y_MODEL = "local:a11y";
/** Model name of a heal where crop search and the page source agree. */
export const AGREED_MODEL = "local:crop-search+a11y";

/** A replay that did not match: the last screenshot and crop compared. */
interface CropMismatch extends Mismatch {
  screenshot: Buffer;
  actual: RawImage | undefined;
}

/** The store key of a tap on the call's device. */
export function tapKeyOf(call: Call, { prompt, verify, scroll }: TapParams): string {
  // Where a tap scrolls is part of what it stores; how far it may scroll is not (docs/storage.md).
  const scrolls = scroll && { scroll: scroll.direction, ...(scroll.within ? { within: scroll.within } : {}) };
  return tapKey(call.device.platform, call.deviceSlug, prompt, verify, scrolls);
}

export function runTap(call: Call, key: string, params: TapParams): Promise<Done<TapDone>> {
  return runStored(call, key, tapKind(call, key, params));
}

function tapKind(call: Call, key: string, params: TapParams): StoredKind<TapRecord, TapDone, CropMismatch> {
  const subject = `tap "${params.prompt}" on ${call.deviceSlug}`;
  const healing = params.autoHeal && call.config.mode === "auto";
  return {
    noun: "tap",
    schema: TapRecordSchema,
    valueSchema: TapValueSchema,
    healing,

    notStored() {
      const d = call.device;
      return new NotStoredError(
        `No stored tap for "${params.prompt}"${params.verify ? ` with verify "${params.verify}"` : ""} on ` +
          `${call.deviceSlug} (${call.config.store.location}/${key}.json). mode is "replay", so the model is not ` +
          `asked. Learn it by running this flow once on a ${d.model} (${d.platform} ${d.osVersion}) ` +
          `with mode "auto" and a model configured, then commit the new files under _ai_/.`,
      );
    },

    async use(stored, until) {
      if (params.scroll) return useScrolled(call, stored, params.scroll, until);
      const comparison = cropComparison(key, stored.record);
      let expected: RawImage | undefined;
      const polled = await pollForMatch(call, { until, healing }, async (png) => {
        // Bytes first: a screenshot identical to one that matched this crop matches again, undecoded.
        const remembered = passedBefore(call.session, comparison, png);
        if (remembered !== undefined) return { matched: true, value: { diffRatio: remembered } };
        expected ??= await storedCrop(call, stored);
        const found: CropLook = await cropDiff(call, expected, stored.record, png);
        const matched = found.diffRatio <= CROP_MAX_DIFF_RATIO;
        if (matched) rememberPassed(call.session, comparison, png, found.diffRatio);
        if (matched || !params.heal.nearby || !found.actual) return { matched, value: found };
        // A shifted match is not remembered: a remembered pass replays the stored point unshifted.
        const shift = await nearbyShift(png, expected, stored.record.crop, call.device, VERDICT);
        return { matched: shift !== undefined, value: { ...found, shift } };
      });
      if (polled.matched) return { done: await replay(call, stored.record, polled.value.shift) };
      const { crop } = stored.record;
      const { actual } = polled.value;
      // The poll stopped counting once the crop could not match: the message gives the full share.
      const diffRatio = actual ? (await compare(expected!, actual, { threshold: CROP_THRESHOLD })).diffRatio : 1;
      const text =
        `the stored crop at (${crop.x}, ${crop.y}) ${crop.width}x${crop.height} never matched the screen: ` +
        `${(diffRatio * 100).toFixed(1)}% of its pixels differed at the last try (allowed ${CROP_MAX_DIFF_RATIO * 100}%)`;
      return { mismatch: { text, healable: true, screenshot: polled.png, actual } };
    },

    async useNow(stored) {
      // A scroll tap's screen is scrolled by now: a parallel run's value is healed from, not looked for here.
      if (params.scroll) return null;
      const { diffRatio } = await cropDiff(
        call,
        await storedCrop(call, stored),
        stored.record,
        await call.screenshot(),
      );
      return diffRatio <= CROP_MAX_DIFF_RATIO ? replay(call, stored.record) : null;
    },

    async fail(stored, mismatch) {
      await call.report("expected", stored.image, "expected-crop");
      if (mismatch.actual) await call.report("actual", await encodePng(mismatch.actual), "actual-crop");
      await call.report("screenshot", await outlineRect(mismatch.screenshot, stored.record.crop), "screenshot");
      const moved = mismatch.rejected ? "" : await movedHint(call, stored, mismatch, params);
      const hint = mismatch.rejected
        ? `${mismatch.rejected}. Fix the app; or, if the new place is right after all, delete ${key}.json to learn it again.`
        : `The screen may have changed. If the element moved or was restyled, run with { autoHeal: true } to let ` +
          `the model find it again and update ${key}.json; if the prompt or verify no longer fits, reword it to ` +
          `learn a new value.`;
      throw new ReplayMismatchError(`${subject}: ${mismatch.text}.${moved} ${hint}`);
    },

    async healsTo(mismatch, rejection) {
      if (!rejection.crop || !rectFits(rejection.crop, call.device.screen.width, call.device.screen.height)) {
        return undefined;
      }
      return tapFingerprint(await decodeRegion(mismatch.screenshot, rejection.crop));
    },

    async learn() {
      if (params.scroll) return learnScrolled(call, params, params.scroll, "learned");
      const screenshot = (await settledScreenshot(call)).png;
      const located = await locateAndTap(call, screenshot, params);
      if (!located.found) {
        await call.report("screenshot", screenshot);
        throw new ElementNotFoundError(
          `${subject}: the model did not find it: ${clause(located.reason)}. ` +
            `Check that the screen shows it, or describe it more precisely.`,
        );
      }
      return tapValue(call, located, { kind: "tap", prompt: params.prompt, verify: params.verify ?? null }, "learned");
    },

    async heal(stored, mismatch) {
      if (params.scroll) {
        // The replay swiped away from the start: go back, then find the element as when learning.
        const { kind, prompt, verify } = stored.record;
        const healed = await learnScrolled(call, params, params.scroll, "healed", { stored, mismatch });
        healed.fields = { ...healed.fields, kind, prompt, verify };
        return healed;
      }
      const shot = await settledScreenshot(call);
      const cheap = await healCheaply(call, stored, shot, params);
      if (cheap.value) return cheap.value;
      const evidence = evidenceText(call, stored.record, cheap.found);
      const located = await locateAndTap(call, shot.png, params, stored.image, evidence);
      if (!located.found) {
        await call.report("expected", stored.image, "expected-crop");
        await call.report("screenshot", await outlineRect(mismatch.screenshot, stored.record.crop), "screenshot");
        throw new ElementNotFoundError(
          `${subject}: ${mismatch.text}, and autoHeal found no such element: ${clause(located.reason)}. ` +
            `A removed element is a real change, so nothing was healed.`,
        );
      }
      const { kind, prompt, verify } = stored.record;
      const healed = tapValue(call, located, { kind, prompt, verify }, "healed");
      const was = stored.record.point;
      healed.done.detail = `point (${was.x}, ${was.y}) -> (${located.point.x}, ${located.point.y}); ${mismatch.text}`;
      return healed;
    },
  };
}

/** One look at the crop: its share of differing pixels in place, and a nearby shift that matched. */
interface CropLook {
  diffRatio: number;
  actual?: RawImage;
  shift?: Shift | undefined;
}

/** The stored crop's pixels, decoded once per session however many rungs and replays look at it. */
function storedCrop(call: Call, stored: Stored<TapRecord>): Promise<RawImage> {
  return decodedStored(call.session, stored.image, decode);
}

/** What a crop's verdict depends on: the record and its image (the crop threshold is fixed). */
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
  const stopAbove = mostAllowed(actual.width * actual.height, CROP_MAX_DIFF_RATIO);
  const { diffRatio } = await compare(expected, actual, { threshold: CROP_THRESHOLD, stopAbove });
  return { actual, diffRatio };
}

/** The most differing pixels of `total` whose share is still at most `ratio` (as the verdict computes it). */
function mostAllowed(total: number, ratio: number): number {
  let n = Math.floor(total * ratio);
  while ((n + 1) / total <= ratio) n++;
  while (n > 0 && n / total > ratio) n--;
  return n;
}

/** The in-place verdict, as the heal ladder's rungs apply it. */
const VERDICT = { threshold: CROP_THRESHOLD, maxDiffRatio: CROP_MAX_DIFF_RATIO };

/** Tap the stored point, moved by `shift` when the crop matched a few pixels off its place (docs/heal.md). */
async function replay(call: Call, record: TapRecord, shift?: Shift): Promise<Done<TapDone>> {
  const point = shift ? shifted(record.point, shift) : record.point;
  await call.tap(point);
  if (!shift) return { outcome: "replayed", result: { point } };
  const detail =
    `the stored crop matched ${shift.dx}, ${shift.dy} px off its place ` +
    `(${(shift.diffRatio * 100).toFixed(2)}% differed): tapped (${point.x}, ${point.y}); the stored value is unchanged`;
  return { outcome: "replayed", result: { point }, detail };
}

/** What the cheap rungs of a heal found: each rung's finding when it ran. */
interface CheapFindings {
  search?: SearchFinding;
  a11y?: A11yFinding;
}

/**
 * The cheap rungs of a heal (docs/heal.md): crop search, then the stored element in the page
 * source. Without `verify` a cheap heal needs both rungs to agree (the crop found inside the
 * element's bounds); with `verify` one unambiguous rung may tap, and verify must pass. Otherwise
 * `undefined`: the heal goes on to the model.
 */
async function healCheaply(
  call: Call,
  stored: { record: TapRecord; image: Buffer },
  shot: { png: Buffer; raw: RawImage },
  params: TapParams,
): Promise<{ value?: NewValue<TapRecord, TapDone>; found: CheapFindings }> {
  const found: CheapFindings = {};
  if (params.heal.search) {
    const started = Date.now();
    found.search = await searchMoved(
      shot.raw,
      await storedCrop(call, stored),
      stored.record.crop,
      call.device,
      VERDICT,
    );
    call.note(`heal ladder: crop search ${describeFinding(found.search)} (${Date.now() - started} ms)`);
  }
  const element = stored.record.element;
  if (params.heal.accessibility && element) {
    const reading = await call.pageSource();
    if ("skipped" in reading) call.note(`heal ladder: accessibility skipped: ${reading.skipped}`);
    else {
      found.a11y = findElement(reading.elements, element, call.device.platform);
      call.note(`heal ladder: accessibility ${describeA11y(found.a11y, element)} (${readCost(reading)})`);
    }
  }
  const search = found.search?.kind === "unique" ? found.search : undefined;
  const a11y = found.a11y?.kind === "unique" ? found.a11y : undefined;
  let heal: CheapHeal | undefined;
  if (search && a11y) {
    const point = shifted(stored.record.point, search.shift);
    if (inside(a11y.element.bounds, point)) heal = searchHeal(stored.record, search, AGREED_MODEL, a11y);
    else call.note("heal ladder: crop search and the accessibility element disagree; asking the model");
  } else if (params.verify && search) heal = searchHeal(stored.record, search, CROP_SEARCH_MODEL);
  else if (params.verify && a11y) heal = a11yHeal(call, a11y);
  else if (search || a11y) {
    call.note("heal ladder: without verify a cheap heal needs a second agreeing rung; asking the model");
  }
  if (!heal) return { found };
  await call.tap(heal.point);
  if (params.verify) await verifyAfterTap(call, params.verify);
  const { record } = stored;
  const reason = heal.reason + (params.verify ? `, and "${params.verify}" held after the tap` : "");
  const value: NewValue<TapRecord, TapDone> = {
    fields: {
      kind: record.kind,
      prompt: record.prompt,
      verify: record.verify,
      device: call.device,
      point: heal.point,
      box: heal.box,
      crop: heal.crop,
      model: heal.model,
      reason,
      element: heal.element,
    },
    image: await cropPng(shot.png, heal.crop),
    done: {
      outcome: "healed",
      result: { point: heal.point },
      detail: `point (${record.point.x}, ${record.point.y}) -> (${heal.point.x}, ${heal.point.y}) by ${heal.model}`,
    },
  };
  return { value, found };
}

/**
 * What the cheap rungs found, as text for the model next to the screenshot (docs/heal.md), so it
 * can tell candidates apart instead of starting from nothing; `undefined` when there is nothing to say.
 */
function evidenceText(call: Call, record: TapRecord, found: CheapFindings): string | undefined {
  const { width, height } = call.device.screen;
  const at = (r: Rect) => `(${r.x}, ${r.y}) ${r.width}x${r.height}`;
  const lines = [`Places are x, y, width x height in pixels of the full ${width}x${height} screenshot.`];
  lines.push(`The element was stored at ${at(record.box)}.`);
  if (record.element) lines.push(`Its accessibility element had ${describeAttributes(record.element.attributes)}.`);
  const { search, a11y } = found;
  if (search?.kind === "unique") lines.push(`The stored crop now matches once, at ${at(search.rect)}.`);
  if (search?.kind === "ambiguous") {
    lines.push(`The stored crop now matches at ${search.rects.length} places: ${search.rects.map(at).join("; ")}.`);
  }
  if (search?.kind === "none") lines.push("The stored crop matches nowhere on the screen (restyled or removed).");
  if (a11y?.kind === "unique") {
    lines.push(
      `The accessibility tree has one element with the same ${a11y.matched.join(" + ")}, at ${at(a11y.element.bounds)}.`,
    );
  }
  if (a11y?.kind === "ambiguous") {
    const places = a11y.elements.map((e) => at(e.bounds)).join("; ");
    lines.push(
      `The accessibility tree has ${a11y.elements.length} elements with the same ${a11y.matched.join(" + ")}: ${places}.`,
    );
  }
  if (a11y?.kind === "none") lines.push("The accessibility tree has no element with those attributes now.");
  if (!search && !a11y && !record.element) return undefined;
  return lines.join("\n").slice(0, 4000);
}

/** A cheap rung's heal, before it is tapped. */
interface CheapHeal {
  point: Point;
  box: Box;
  crop: Rect;
  model: string;
  reason: string;
  element?: A11yElement;
}

function searchHeal(
  record: TapRecord,
  search: Extract<SearchFinding, { kind: "unique" }>,
  model: string,
  a11y?: Extract<A11yFinding, { kind: "unique" }>,
): CheapHeal {
  const { shift, rect } = search;
  const moved =
    `the stored crop was found once on the screen, moved by ${shift.dx}, ${shift.dy} px ` +
    `(${(shift.diffRatio * 100).toFixed(2)}% of its pixels differed)`;
  return {
    point: shifted(record.point, shift),
    box: { ...record.box, x: record.box.x + shift.dx, y: record.box.y + shift.dy },
    crop: rect,
    model,
    reason: a11y ? `${moved}, inside the accessibility element found by ${a11y.matched.join(" + ")}` : moved,
    ...(a11y
      ? { element: a11y.element }
      : record.element
        ? { element: { ...record.element, bounds: shiftedRect(record.element.bounds, shift) } }
        : {}),
  };
}

function a11yHeal(call: Call, a11y: Extract<A11yFinding, { kind: "unique" }>): CheapHeal {
  const { width, height } = call.device.screen;
  // Parsed bounds are already clipped to the screen (src/core/device/page-source.ts).
  const box = a11y.element.bounds;
  return {
    point: { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) },
    box,
    crop: toRect(box, width, height, CROP_PAD_UNITS * call.device.scale),
    model: A11Y_MODEL,
    reason:
      `the stored accessibility element was found once in the page source by ` +
      `${describeAttributes(a11y.element.attributes, a11y.matched)}`,
    element: a11y.element,
  };
}

function shiftedRect(r: Rect, shift: Pick<Shift, "dx" | "dy">): Rect {
  return { ...r, x: r.x + shift.dx, y: r.y + shift.dy };
}

function inside(r: Rect, p: Point): boolean {
  return p.x >= r.x && p.y >= r.y && p.x < r.x + r.width && p.y < r.y + r.height;
}

function describeA11y(finding: A11yFinding, stored: Pick<A11yElement, "attributes">): string {
  if (finding.kind === "unique") {
    const b = finding.element.bounds;
    return `found the stored element once by ${finding.matched.join(" + ")}, at (${b.x}, ${b.y}) ${b.width}x${b.height}`;
  }
  if (finding.kind === "ambiguous") {
    return `found ${finding.elements.length} elements with ${describeAttributes(stored.attributes, finding.matched)}: ambiguous`;
  }
  return `did not find the stored element (${describeAttributes(stored.attributes)})`;
}

function describeFinding(finding: SearchFinding): string {
  if (finding.kind === "unique")
    return `found the stored crop once, moved by ${finding.shift.dx}, ${finding.shift.dy} px`;
  if (finding.kind === "ambiguous") {
    return `found ${finding.rects.length} similar places (${finding.rects.map((r) => `(${r.x}, ${r.y})`).join(", ")}): ambiguous`;
  }
  return "did not find the stored crop";
}

/**
 * For a mismatch that is not healed (no autoHeal, mode replay): what the crop search would
 * find, so the message says where the element went; nothing is tapped or stored.
 */
async function movedHint(
  call: Call,
  stored: { record: TapRecord; image: Buffer },
  mismatch: CropMismatch,
  params: TapParams,
): Promise<string> {
  if (!params.heal.search || !mismatch.healable) return "";
  const screen = await decode(mismatch.screenshot);
  if (screen.width !== call.device.screen.width || screen.height !== call.device.screen.height) return "";
  const finding = await searchMoved(screen, await storedCrop(call, stored), stored.record.crop, call.device, VERDICT);
  return ` Crop search (nothing tapped): ${describeFinding(finding)}.`;
}

type Located = Extract<Awaited<ReturnType<typeof locateAndTap>>, { found: true }>;

function tapValue(
  call: Call,
  located: Located,
  identity: Pick<TapRecord, "kind" | "prompt" | "verify">,
  outcome: "learned" | "healed",
  scroll?: ScrollRecord,
): NewValue<TapRecord, TapDone> {
  const { point, box, crop, model, reason, image, element } = located;
  return {
    fields: {
      ...identity,
      device: call.device,
      point,
      box,
      crop,
      model,
      reason,
      ...(scroll ? { scroll } : {}),
      element,
    },
    image,
    done: { outcome, result: { point } },
  };
}

/** Ask the model for the element, tap its centre, check `verify`; returns what to store. */
async function locateAndTap(
  call: Call,
  screenshot: Buffer,
  params: Omit<TapParams, "autoHeal">,
  reference?: Buffer,
  evidence?: string,
) {
  const screen = await toAiImage(screenshot);
  const answer = await call.ask({
    kind: "locate",
    screen,
    prompt: params.prompt,
    ...(reference ? { reference: await toAiImage(reference) } : {}),
    ...(evidence ? { evidence } : {}),
  });
  if (!answer.found || !answer.box) return { found: false as const, reason: answer.reason };

  const box = clampBox(answer.box, call.device, answer.model);
  const point = { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
  const crop = toRect(box, call.device.screen.width, call.device.screen.height, CROP_PAD_UNITS * call.device.scale);
  const image = await cropPng(screenshot, crop);
  const element = await elementUnder(call, point);
  await call.tap(point);
  if (params.verify) await verifyAfterTap(call, params.verify);
  return { found: true as const, box, point, crop, image, model: answer.model, reason: answer.reason, element };
}

/** What a page source reading cost, for the detail line. */
function readCost(reading: CallPageSource & { ms: number }): string {
  return reading.reused ? "page source of this screen read before" : `page source read in ${reading.ms} ms`;
}

/**
 * The accessibility element at a point the model found, read before the tap changes the screen,
 * so a later heal can find it again (docs/heal.md). `undefined` when the page source is skipped.
 */
async function elementUnder(call: Call, point: Point): Promise<A11yElement | undefined> {
  const reading = await call.pageSource();
  if ("skipped" in reading) {
    if (!reading.absent) call.note(`accessibility element not stored: ${reading.skipped}`);
    return undefined;
  }
  const element = elementAt(reading.elements, point, call.device.platform, call.device.screen);
  call.note(
    element
      ? `accessibility element stored: ${describeAttributes(element.attributes)} (${readCost(reading)})`
      : `accessibility element not stored: no element with an id or text contains (${point.x}, ${point.y})`,
  );
  return element;
}

/**
 * A screenshot for the model to locate on: wait until the screen stops changing, so a page
 * still navigating after the previous step is not what gets stored.
 */
async function settledScreenshot(call: Call): Promise<{ png: Buffer; raw: RawImage }> {
  const until = call.deadline.after("settleBeforeModel");
  return waitForStable(call, { until, masks: systemBarMasks(call.device), requireDrawn: true });
}

/** After a fresh tap: ask `check` until it passes or the deadline passes. */
async function verifyAfterTap(call: Call, statement: string): Promise<void> {
  await call.deadline.sleep(VERIFY_SETTLE_MS);
  let wait = 1000;
  let failed: { screenshot: Buffer; reason: string } | undefined;
  const fail = async ({ screenshot, reason }: { screenshot: Buffer; reason: string }): Promise<never> => {
    await call.report("screenshot", screenshot, "after-tap");
    throw new VerifyFailedError(
      `tap "${call.subject}" on ${call.deviceSlug}: after the tap, the model found that "${statement}" ` +
        `does not hold: ${clause(reason)}. Nothing was stored.`,
    );
  };
  for (;;) {
    try {
      const screenshot = await call.screenshot();
      const answer = await call.ask({ kind: "check", screen: await toAiImage(screenshot), statement });
      if (answer.pass) return;
      failed = { screenshot, reason: answer.reason };
      if (call.deadline.remaining() <= wait) return await fail(failed);
      await call.deadline.sleep(wait);
    } catch (error) {
      // The budget ran out during a retry: what failed is the check the model already answered.
      if (error instanceof TimeoutError && failed) return await fail(failed);
      throw error;
    }
    wait *= 2;
  }
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

/** How a crop is judged, for the scroll search. */
const CROP_RULE = { threshold: CROP_THRESHOLD, maxDiffRatio: CROP_MAX_DIFF_RATIO };

/**
 * Replay a scroll tap: swipe the stored swipe, looking for the crop along the scroll axis after
 * each, and tap once it is there; at most the stored count plus {@link REPLAY_EXTRA_SWIPES}.
 */
async function useScrolled(
  call: Call,
  stored: Stored<TapRecord>,
  scroll: ScrollParams,
  until: number,
): Promise<Use<TapDone, CropMismatch>> {
  const { record } = stored;
  const direction = record.scroll?.direction ?? scroll.direction;
  const swipe = record.scroll?.swipe ?? plannedSwipe(call, scroll);
  const learnedAfter = record.scroll?.swipes ?? 0;
  const axis = axisOf(direction);
  const region = scrollRegion(call.device, record.scroll?.within);
  if (scroll.fromStart) await rewind(call, swipe, direction, () => until);
  const expected = await storedCrop(call, stored);
  const scrolled = await scrollUntil(
    call,
    swipe,
    learnedAfter + REPLAY_EXTRA_SWIPES,
    () => until,
    async (png) => {
      const found = await findAlong(expected, record.crop, await decode(png), axis, region, CROP_RULE);
      return found ? { found: true, value: found.shift } : { found: false, reason: "" };
    },
  );
  if (scrolled.found) {
    const shift = scrolled.value;
    const point =
      axis === "y" ? { ...record.point, y: record.point.y + shift } : { ...record.point, x: record.point.x + shift };
    await call.tap(point);
    const moved = shift
      ? `; the element was ${Math.abs(shift)} px ${shift > 0 ? "further" : "nearer"} along than stored`
      : "";
    return {
      done: {
        outcome: "replayed",
        result: { point },
        detail: `after ${swipesText(scrolled.swipes, direction)}${moved}`,
      },
    };
  }
  const tried = swipesText(scrolled.swipes, direction);
  const text = scrolled.endReached
    ? `the stored crop did not appear after ${tried}, when the screen stopped changing (the end of the list); it was learned after ${learnedAfter}`
    : `the stored crop did not appear in ${tried} (learned after ${learnedAfter}, plus ${REPLAY_EXTRA_SWIPES} more tried)`;
  return { mismatch: { text, healable: true, screenshot: scrolled.png, actual: undefined } };
}

/**
 * Learn (or heal) a scroll tap: ask the model on each settled screen, swiping between, until it
 * finds the element; stored with the swipe and the count.
 */
async function learnScrolled(
  call: Call,
  params: TapParams,
  scroll: ScrollParams,
  outcome: "learned" | "healed",
  healing?: { stored: Stored<TapRecord>; mismatch: CropMismatch },
): Promise<NewValue<TapRecord, TapDone>> {
  const subject = `tap "${params.prompt}" on ${call.deviceSlug}`;
  const planned = await learningSwipe(call, scroll, healing?.stored.record.scroll?.swipe);
  const swipe = planned.swipe;
  const settle = () => call.deadline.after("settleBeforeModel");
  if (healing || scroll.fromStart) await rewind(call, swipe, scroll.direction, settle);
  const reference = healing?.stored.image;
  const scrolled = await scrollUntil(call, swipe, scroll.maxSwipes, settle, async (png) => {
    const located = await locateAndTap(call, png, params, reference);
    return located.found ? { found: true, value: located } : { found: false, reason: located.reason };
  });
  if (!scrolled.found) {
    await call.report("screenshot", scrolled.png);
    const swiped = swipesText(scrolled.swipes, scroll.direction);
    const why = scrolled.endReached
      ? `the screen stopped changing after ${swiped} (the end of the list was reached)`
      : `after ${swiped} (scroll.maxSwipes) it was still not on the screen`;
    const was = healing ? `${healing.mismatch.text}, and autoHeal found no such element: ` : "";
    throw new ElementNotFoundError(
      `${subject}: ${was}the model did not find it: ${clause(scrolled.reason)}; ${why}. ` +
        (scrolled.endReached
          ? `Check the direction, that the list starts at its top (or pass scroll: { fromStart: true }), or describe it more precisely.`
          : `Raise scroll.maxSwipes, check the direction, or describe it more precisely.`),
    );
  }
  const identity = { kind: "tap" as const, prompt: params.prompt, verify: params.verify ?? null };
  const value = tapValue(call, scrolled.value, identity, outcome, scrollRecord(planned.scroll, swipe, scrolled.swipes));
  value.done.detail = `found after ${swipesText(scrolled.swipes, scroll.direction)}`;
  return value;
}
