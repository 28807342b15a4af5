/*
 * Masks by element (docs/api.md, "Masks"): selector and element masks are found on the device at
 * every comparison and turned into boxes in screenshot pixels; `{ prompt }` masks are located by
 * the model when a baseline is judged or healed, stored with it, and read back from the record.
 * The comparison itself (pixel-check.ts) then only sees boxes.
 */
import { ElementNotFoundError, InputError, RejectedError, clause } from "../../ground/errors.js";
import type { Rect } from "../../ground/geometry.js";
import { clipToScreen } from "../../pixels/masks.js";
import { toAiImage, type Call } from "../../run/call.js";
import type { NewValue } from "../../run/lifecycle.js";
import type { BaselineRecord } from "../../store/baseline-record.js";
import type { ScreenshotParams } from "./input.js";
import type { StoredBaseline } from "./pixel-check.js";

/** A `{ prompt }` mask as a baseline record stores it: no box when an optional one was not found. */
export type StoredPromptMask = NonNullable<BaselineRecord["promptMasks"]>[number];

/**
 * The call's parameters with every mask as a box: the caller's boxes, where the selector and
 * element masks are now, and, against a stored baseline, the boxes stored for its prompt masks.
 * Throws when an element that is not optional is not on the screen, or when a prompt mask was
 * not located when the baseline was judged.
 */
export async function resolveMasks(
  call: Call,
  params: ScreenshotParams,
  stored: StoredBaseline | null,
): Promise<ScreenshotParams> {
  const { elements, prompts } = params.byElement;
  if (!elements.length && !(stored && prompts.length)) return params;
  const found = await elementBoxes(call, params);
  const fromRecord = stored ? promptBoxes(call, params, stored) : [];
  return { ...params, mask: [...params.mask, ...found, ...fromRecord] };
}

async function elementBoxes(call: Call, params: ScreenshotParams): Promise<Rect[]> {
  const { elements } = params.byElement;
  if (!elements.length) return [];
  const rects = await call.elementRects(elements.map((e) => e.target));
  const { width, height } = call.device.screen;
  const boxes: Rect[] = [];
  elements.forEach((mask, i) => {
    const rect = rects[i];
    if (rect === null || rect === undefined) {
      if (mask.optional) return call.note(`${mask.label}: no element on the screen; optional, so not masked`);
      throw new ElementNotFoundError(
        `toMatchScreenshot "${params.name}" on ${call.deviceSlug}: ${mask.label} matches no element on the screen, ` +
          `so it cannot be masked. Wait for the element before this step, fix the selector, or pass it as ` +
          `{ selector, optional: true } (or { element, optional: true }) when it may be absent.`,
      );
    }
    // An element scrolled off the screen masks nothing.
    const box = clipToScreen(rect, width, height);
    if (box) boxes.push(box);
  });
  return boxes;
}

function promptBoxes(call: Call, params: ScreenshotParams, stored: StoredBaseline): Rect[] {
  const storedMasks = stored.record.promptMasks ?? [];
  const boxes: Rect[] = [];
  for (const { prompt } of params.byElement.prompts) {
    const entry = storedMasks.find((m) => m.prompt === prompt);
    if (!entry) {
      throw new InputError(
        `toMatchScreenshot "${params.name}" on ${call.deviceSlug}: the mask { prompt: ${JSON.stringify(prompt)} } ` +
          `was not located when this baseline was judged (prompt masks are located once, by the model, and stored ` +
          `with the baseline). Delete the baseline's .json and .png so the next run in mode "auto" judges it with ` +
          `the mask, or mask the element by selector, which is found at every comparison.`,
      );
    }
    if (entry.box) boxes.push(entry.box);
  }
  return boxes;
}

/**
 * Locate the call's prompt masks on a baseline image about to be stored (one model call each);
 * `undefined` when the call has none. Throws a RejectedError, storing nothing, when the model
 * does not find one that is not optional.
 */
export async function locatePromptMasks(
  call: Call,
  params: ScreenshotParams,
  png: Buffer,
): Promise<StoredPromptMask[] | undefined> {
  const { prompts } = params.byElement;
  if (!prompts.length) return undefined;
  const screen = await toAiImage(png);
  const located: StoredPromptMask[] = [];
  for (const { prompt, optional } of prompts) {
    const answer = await call.ask({ kind: "locate", screen, prompt });
    const box = answer.found && answer.box ? clipToScreen(answer.box, screen.width, screen.height) : null;
    if (box) {
      located.push({ prompt, box });
      continue;
    }
    if (!optional) {
      throw new RejectedError(
        `toMatchScreenshot "${params.name}" on ${call.deviceSlug}: the model (${answer.model}) did not find the mask ` +
          `{ prompt: ${JSON.stringify(prompt)} } on the screen: ${clause(answer.reason)}. Nothing was stored. ` +
          `Describe it more precisely, or pass { prompt, optional: true } when it may be absent.`,
      );
    }
    call.note(`mask { prompt: ${JSON.stringify(prompt)} } not found by the model; optional, so not masked`);
    located.push({ prompt });
  }
  return located;
}

/** A judged or healed baseline with its prompt masks located on its image (a `done` passes as is). */
export async function withPromptMasks<V extends NewValue<BaselineRecord, unknown> | { done: unknown }>(
  call: Call,
  params: ScreenshotParams,
  value: V,
): Promise<V> {
  if (!("fields" in value)) return value;
  const promptMasks = await locatePromptMasks(call, params, value.image);
  return promptMasks ? { ...value, fields: { ...value.fields, promptMasks } } : value;
}
