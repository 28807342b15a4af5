/* tap's `scroll` option (docs/api.md "Scrolling to find"): what the caller may pass, and its checks. */
import type { Box } from "../../../model/contract.js";
import { InputError } from "../../../ground/errors.js";
import type { ScrollDirection } from "../../../device/swipe-geometry.js";

/** `tap`'s `scroll` option as an object; `scroll: true` is `{}` (scroll down up to 5 times). */
export interface ScrollOptions {
  /** Which way to scroll: `down` (default) shows what is below, the finger moving up; `right` what is to the right. */
  direction?: ScrollDirection;
  /** The most swipes while learning, a whole number from 1 to 50. Default 5. */
  maxSwipes?: number;
  /**
   * The scrollable region to swipe in, when the screen has several: a box in screenshot pixels, or
   * a prompt the model locates once when learning (and again when healing). Default: the screen
   * outside its system bars.
   */
  within?: Box | string;
  /**
   * Swipe back to the start of the list (until the screen stops changing) before looking: for
   * flows that come back to a list they left scrolled. Without it, the list is taken to be at its start.
   */
  fromStart?: boolean;
}

/** The scroll option, checked, with defaults. */
export interface ScrollParams {
  direction: ScrollDirection;
  maxSwipes: number;
  within: Box | string | undefined;
  fromStart: boolean;
}

export const DEFAULT_MAX_SWIPES = 5;
const MOST_SWIPES = 50;
const DIRECTIONS: readonly ScrollDirection[] = ["down", "up", "left", "right"];
const KNOWN = ["direction", "maxSwipes", "within", "fromStart"];

/** Check tap's `scroll` option; `undefined` for no scrolling. */
export function checkScroll(value: unknown): ScrollParams | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return { direction: "down", maxSwipes: DEFAULT_MAX_SWIPES, within: undefined, fromStart: false };
  const example = 'e.g. { scroll: true } or { scroll: { direction: "down", maxSwipes: 5 } }';
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InputError(`scroll must be true or an object, ${example}; got ${JSON.stringify(value)}.`);
  }
  const given = value as Record<string, unknown>;
  const unknown = Object.keys(given).filter((k) => !KNOWN.includes(k));
  if (unknown.length) {
    throw new InputError(
      `scroll got unknown option ${unknown.map((k) => `"${k}"`).join(", ")}; known: ${KNOWN.join(", ")}.`,
    );
  }
  const { direction = "down", maxSwipes = DEFAULT_MAX_SWIPES, within, fromStart = false } = given;
  if (!DIRECTIONS.includes(direction as ScrollDirection)) {
    throw new InputError(`scroll.direction must be one of ${DIRECTIONS.join(", ")}; got ${JSON.stringify(direction)}.`);
  }
  if (typeof maxSwipes !== "number" || !Number.isInteger(maxSwipes) || maxSwipes < 1 || maxSwipes > MOST_SWIPES) {
    throw new InputError(
      `scroll.maxSwipes must be a whole number from 1 to ${MOST_SWIPES}, e.g. 5; got ${String(maxSwipes)}.`,
    );
  }
  if (typeof fromStart !== "boolean")
    throw new InputError(`scroll.fromStart must be true or false; got ${String(fromStart)}.`);
  return { direction: direction as ScrollDirection, maxSwipes, within: checkWithin(within), fromStart };
}

function checkWithin(value: unknown): Box | string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === "string") {
    if (value.trim()) return value;
    throw new InputError(
      `scroll.within must be a box or a prompt naming the scrollable region, e.g. "the product list"; got an empty string.`,
    );
  }
  const box = value as Partial<Record<keyof Box, unknown>> | null;
  const whole = (v: unknown, min: number) => typeof v === "number" && Number.isInteger(v) && v >= min;
  if (
    !box ||
    typeof box !== "object" ||
    !whole(box.x, 0) ||
    !whole(box.y, 0) ||
    !whole(box.width, 1) ||
    !whole(box.height, 1)
  ) {
    throw new InputError(
      `scroll.within must be a box in screenshot pixels with whole numbers, e.g. { x: 0, y: 300, width: 1080, height: 900 }, ` +
        `or a prompt naming the region, e.g. "the product list"; ` +
        `got ${JSON.stringify(value)}.`,
    );
  }
  return { x: box.x as number, y: box.y as number, width: box.width as number, height: box.height as number };
}
