/*
 * Looking at a screen between swipes (docs/api.md "Scrolling to find" and "Whole-page baselines"):
 * a settled screenshot within a share of the time left, whether a swipe changed anything, and
 * swiping back to the start of a list. Shared by scroll taps and full-page baselines; where they
 * swipe is src/core/device/swipe-geometry.ts.
 */
import type { Swipe } from "../device/description.js";
import { opposite, type ScrollDirection } from "../device/swipe-geometry.js";
import { sameOutside, systemBarMasks } from "../pixels/masks.js";
import type { Call } from "./call.js";
import { waitForStable, type Shot } from "./stable-screen.js";

/** The most swipes back to the start (`fromStart`, or before a heal) before giving up on reaching it. */
const MOST_REWIND_SWIPES = 30;
/**
 * The longest one settle waits for two identical screenshots. A still screen settles in a few
 * hundred ms; a screen with continuous animation (a spinner, a video) never does, and its
 * screenshot is then looked at as it is, as a plain tap's replay looks at every screenshot.
 */
export const SETTLE_MAX_MS = 3_000;

/** `3 swipes down`, for details and messages. */
export function swipesText(swipes: number, direction: string): string {
  return `${swipes} swipe${swipes === 1 ? "" : "s"} ${direction}`;
}

/**
 * Swipe against `direction` until the screen stops changing: the list is at its start.
 * Returns the swipes made.
 */
export async function rewind(call: Call, swipe: Swipe, direction: ScrollDirection, until: () => number) {
  // The forward swipe with its ends swapped.
  const back: Swipe = { from: swipe.to, to: swipe.from, durationMs: swipe.durationMs };
  // A rewind leaves at least half of what is left for the scroll after it.
  const end = Date.now() + Math.max(0, until() - Date.now()) / 2;
  let shot = await settledScreen(call, end, MOST_REWIND_SWIPES + 1);
  for (let swipes = 1; swipes <= MOST_REWIND_SWIPES; swipes++) {
    await call.swipe(back);
    const next = await settledScreen(call, end, MOST_REWIND_SWIPES + 1 - swipes);
    if (sameScreenOutsideBars(call, shot, next)) return swipes;
    shot = next;
  }
  call.note(`scrolled ${swipesText(MOST_REWIND_SWIPES, opposite(direction))} and the screen still changed`);
  return MOST_REWIND_SWIPES;
}

/**
 * The screen once settled, waiting at most an even share of what is left before `until` among the
 * `looks` still to come (and {@link SETTLE_MAX_MS}), so one screen that never settles cannot take
 * the time of the swipes after it.
 */
export function settledScreen(call: Call, until: number, looks: number): Promise<Shot> {
  const now = Date.now();
  const share = Math.min(SETTLE_MAX_MS, Math.max(0, until - now) / Math.max(1, looks));
  return waitForStable(call, { until: now + share, masks: systemBarMasks(call.device), requireDrawn: true });
}

/** Whether two screenshots are the same outside the system bars: a swipe between them moved nothing. */
export function sameScreenOutsideBars(call: Call, a: Shot, b: Shot): boolean {
  return a.raw === b.raw || sameOutside(a.raw, b.raw, systemBarMasks(call.device));
}
