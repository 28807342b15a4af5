/*
 * The forms a `toMatchScreenshot` mask entry takes (docs/api.md, "Masks"): a box in screenshot
 * pixels, a selector, an element the test holds, or a prompt the model locates when the baseline
 * is judged; checked before any device or model call.
 */
import { BoxSchema, type Box } from "../../model/contract.js";
import type { ElementTarget } from "../../device/description.js";
import { InputError } from "../../ground/errors.js";

/**
 * A WebdriverIO element as core sees it without importing WebdriverIO: `driver.$()`'s result,
 * awaited (it has an `elementId`) or not (a promise with a `selector`).
 */
export interface MaskElement {
  readonly elementId?: unknown;
  readonly selector?: unknown;
}

/** A mask the model locates once, when the baseline is judged, and that is stored with it. */
export interface PromptMask {
  prompt: string;
  /** When true, a model that does not find it stores no mask instead of failing the call. */
  optional?: boolean;
}

/**
 * One entry of `toMatchScreenshot`'s `mask`: a box in screenshot pixels; a selector
 * (anything `driver.$()` accepts: `"~price"`, `"id=com.shop:id/price"`, XPath); a WebdriverIO
 * element; `{ selector | element, optional: true }` for one that may be absent; or `{ prompt }`.
 */
export type MaskEntry =
  | Box
  | string
  | MaskElement
  | { selector: string; optional?: boolean }
  | { element: MaskElement; optional?: boolean }
  | PromptMask;

/** A selector or element mask, checked: resolved on every comparison. */
export interface ElementMask {
  target: ElementTarget;
  optional: boolean;
  /** For messages: `mask[2] ("~price")`. */
  label: string;
}

/** The call's masks, by when they are resolved. */
export interface CheckedMasks {
  boxes: Box[];
  elements: ElementMask[];
  prompts: Required<PromptMask>[];
}

const EXAMPLES =
  '[{ x: 0, y: 300, width: 1080, height: 120 }, "~price", await $("~banner"), { selector: "~promo", optional: true }, ' +
  '{ prompt: "the delivery date" }]';

/** Check `mask`: what it holds, by kind. */
export function checkMaskEntries(value: unknown): CheckedMasks {
  const masks: CheckedMasks = { boxes: [], elements: [], prompts: [] };
  if (value === undefined) return masks;
  if (!Array.isArray(value)) {
    throw new InputError(
      `mask must be an array of boxes, selectors, elements or prompts, e.g. ${EXAMPLES}; got ${shown(value)}.`,
    );
  }
  value.forEach((entry: unknown, i) => addEntry(masks, entry, i));
  return masks;
}

function addEntry(masks: CheckedMasks, entry: unknown, i: number): void {
  const at = `mask[${i}]`;
  if (typeof entry === "string") {
    if (!entry.trim()) throw new InputError(`${at} is an empty selector; give one driver.$() accepts, e.g. "~price".`);
    masks.elements.push({ target: { selector: entry }, optional: false, label: `${at} (${JSON.stringify(entry)})` });
    return;
  }
  if (isElement(entry)) {
    masks.elements.push({ target: { element: entry }, optional: false, label: `${at} (${elementName(entry)})` });
    return;
  }
  if (!entry || typeof entry !== "object") throw notAMask(at, entry);
  const record = entry as Record<string, unknown>;
  if ("x" in record || "width" in record) {
    const parsed = BoxSchema.safeParse(entry);
    if (!parsed.success) {
      throw new InputError(
        `${at} must be a box { x, y, width, height } in screenshot pixels (x and y 0 or more, width and height ` +
          `more than 0), e.g. { x: 0, y: 300, width: 1080, height: 120 }; got ${shown(entry)}.`,
      );
    }
    masks.boxes.push(parsed.data);
    return;
  }
  const optional = checkOptional(record, at);
  if ("prompt" in record) {
    checkKeys(record, ["prompt", "optional"], at);
    if (typeof record.prompt !== "string" || !record.prompt.trim()) {
      throw new InputError(`${at}.prompt must be a non-empty text naming what to mask, e.g. "the delivery date".`);
    }
    if (masks.prompts.some((p) => p.prompt === record.prompt)) {
      throw new InputError(`${at}: the prompt ${JSON.stringify(record.prompt)} is listed twice; list it once.`);
    }
    masks.prompts.push({ prompt: record.prompt, optional });
    return;
  }
  if ("selector" in record) {
    checkKeys(record, ["selector", "optional"], at);
    if (typeof record.selector !== "string" || !record.selector.trim()) {
      throw new InputError(`${at}.selector must be a non-empty selector driver.$() accepts, e.g. "~price".`);
    }
    const label = `${at} (${JSON.stringify(record.selector)})`;
    masks.elements.push({ target: { selector: record.selector }, optional, label });
    return;
  }
  if ("element" in record) {
    checkKeys(record, ["element", "optional"], at);
    if (!isElement(record.element)) {
      throw new InputError(
        `${at}.element must be a WebdriverIO element (what driver.$() returns); got ${shown(record.element)}.`,
      );
    }
    masks.elements.push({
      target: { element: record.element },
      optional,
      label: `${at} (${elementName(record.element)})`,
    });
    return;
  }
  throw notAMask(at, entry);
}

/**
 * `driver.$()`'s result: awaited it has an `elementId` (or, found nothing, an `error` and element commands such
 * as `isExisting`), not awaited it is a promise with a `selector`.
 */
function isElement(value: unknown): value is MaskElement {
  if (!value || (typeof value !== "object" && typeof value !== "function")) return false;
  const v = value as Record<string, unknown>;
  if ("elementId" in v) return true;
  return "selector" in v && (typeof v.then === "function" || typeof v.isExisting === "function");
}

function elementName(element: MaskElement): string {
  const selector = element.selector;
  return typeof selector === "string" ? `element ${JSON.stringify(selector)}` : "element";
}

function checkOptional(record: Record<string, unknown>, at: string): boolean {
  if (record.optional === undefined) return false;
  if (typeof record.optional !== "boolean") {
    throw new InputError(`${at}.optional must be true or false; got ${shown(record.optional)}.`);
  }
  return record.optional;
}

function checkKeys(record: Record<string, unknown>, known: string[], at: string): void {
  const unknown = Object.keys(record).filter((k) => !known.includes(k));
  if (unknown.length) {
    throw new InputError(
      `${at} has unknown key${unknown.length > 1 ? "s" : ""} ${unknown.join(", ")}; it takes ${known.join(" and ")}.`,
    );
  }
}

function notAMask(at: string, entry: unknown): InputError {
  return new InputError(
    `${at} must be a box, a selector, a WebdriverIO element, { selector | element, optional } or { prompt }, ` +
      `e.g. ${EXAMPLES}; got ${shown(entry)}.`,
  );
}

function shown(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
