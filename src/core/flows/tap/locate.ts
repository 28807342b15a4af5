/*
 * Asking the model where the element is, tapping it, and `verify` (docs/design.md section 5):
 * what a learn and a model heal of a tap share.
 */
import type { DeviceDescription } from "../../device/description.js";
import { describeAttributes, type A11yElement } from "../../device/a11y-element.js";
import { elementAt } from "../../device/element-queries.js";
import { AiAnswerError, TimeoutError, VerifyFailedError, clause } from "../../ground/errors.js";
import type { Point, Rect } from "../../ground/geometry.js";
import type { Box, LocateControl } from "../../model/contract.js";
import { cropPng } from "../../pixels/image-encode.js";
import { toRect } from "../../pixels/pixel-rects.js";
import { toAiImage, type Call, type CallPageSource } from "../../run/call.js";
import type { NewValue } from "../../run/lifecycle.js";
import type { ScrollRecord, TapRecord } from "../../store/tap-record.js";
import { CROP_PAD_UNITS } from "./crop-check.js";
import type { TapDone, TapParams } from "./tap-params.js";

/** Wait after a fresh tap before the first `verify` check, so the screen can react. */
const VERIFY_SETTLE_MS = 500;

/** What the model is asked to find. */
export interface LocateRequest {
  /** The screenshot the model looks at (and the crop is cut from). */
  screenshot: Buffer;
  params: Pick<TapParams, "prompt" | "verify" | "kind">;
  /** The stored crop, when healing: the element as it looked. */
  reference?: Buffer | undefined;
  /** What the heal ladder's cheap rungs found, as text for the model. */
  evidence?: string | undefined;
  /** The screen's controls from the page source, for a text-only model to choose by kind. */
  controls?: LocateControl[] | undefined;
}

/** The element the model found and tapped, with what to store. */
export interface Located {
  found: true;
  box: Box;
  point: Point;
  crop: Rect;
  image: Buffer;
  model: string;
  reason: string;
  element: A11yElement | undefined;
}

/** Ask the model for the element, tap its centre, check `verify`; returns what to store. */
export async function locateAndTap(
  call: Call,
  { screenshot, params, reference, evidence, controls }: LocateRequest,
): Promise<Located | { found: false; reason: string }> {
  const screen = await toAiImage(screenshot);
  const answer = await call.ask({
    kind: "locate",
    screen,
    prompt: params.prompt,
    ...(reference ? { reference: await toAiImage(reference) } : {}),
    ...(evidence ? { evidence } : {}),
    ...(controls?.length ? { controls } : {}),
  });
  if (!answer.found || !answer.box) return { found: false, reason: answer.reason };

  const box = clampBox(answer.box, call.device, answer.model);
  const point = { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
  const crop = toRect(box, call.device.screen.width, call.device.screen.height, CROP_PAD_UNITS * call.device.scale);
  const image = await cropPng(screenshot, crop);
  const element = await elementUnder(call, point);
  await actOn(call, point, params);
  return { found: true, box, point, crop, image, model: answer.model, reason: answer.reason, element };
}

/** How a located element becomes a stored value. */
export interface TapValueOf {
  identity: Pick<TapRecord, "kind" | "prompt" | "verify">;
  outcome: "learned" | "healed";
  /** How a scroll tap got there. */
  scroll?: ScrollRecord;
}

/** The value to store for an element the model located. */
export function tapValue(
  call: Call,
  located: Located,
  { identity, outcome, scroll }: TapValueOf,
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

/** What a page source reading cost, for the detail line. */
export function readCost(reading: CallPageSource & { ms: number }): string {
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

/** What a found element gets: a tap's is tapped (and `verify` checked), a locator's is left as it is. */
export async function actOn(call: Call, point: Point, params: Pick<TapParams, "verify" | "kind">): Promise<void> {
  if ((params.kind ?? "tap") === "tap") await tapAndVerify(call, point, params.verify);
}

/**
 * Tap, then check `verify` when there is one. The check's place in the model request budget is
 * claimed before the tap, so a spent budget fails the call before it acts on the device.
 */
export async function tapAndVerify(call: Call, point: Point, verify: string | undefined): Promise<void> {
  if (verify) await call.claimAhead();
  await call.tap(point);
  if (verify) await verifyAfterTap(call, verify);
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
