/**
 * The swiping of a scroll tap (docs/api.md "Scrolling to find"): look at the screen, swipe once,
 * look again, until the element is there, the swipes run out or the screen stops changing (the
 * end of the list). Learning looks with the model, replaying with the stored crop; what is seen
 * and tapped is the flow's (src/core/flows/tap/tap-kind.ts).
 */
import type { Call } from "../../../run/call.js";
import { InputError } from "../../../ground/errors.js";
import type { ScrollRecord } from "../../../store/tap-record.js";
import { sameScreenOutsideBars, settledScreen } from "../../../run/scrolling.js";
import { scrollRegion, swipeFor, type Swipe } from "../../../device/swipe-geometry.js";
import type { ScrollParams } from "./options.js";
import { locateWithin, type BoxedScroll } from "./region.js";

/** Swipes a replay tries beyond the stored count: the list may have grown by a row or two. */
export const REPLAY_EXTRA_SWIPES = 2;

/** What one look at a screen gave: the thing looked for, or why it is not there. */
export type Seen<T> = { found: true; value: T } | { found: false; reason: string };

/** The outcome of {@link scrollUntil}. */
export type Scrolled<T> =
  | { found: true; value: T; swipes: number; png: Buffer }
  | { found: false; reason: string; swipes: number; endReached: boolean; png: Buffer };

/**
 * The swipe a scroll tap makes on the call's device; an InputError when `within` leaves no room.
 * A prompt `within` has no box until located ({@link learningSwipe}).
 */
export function plannedSwipe(call: Call, scroll: Pick<ScrollParams, "direction" | "within">): Swipe {
  if (typeof scroll.within === "string") {
    throw new Error(`tapshot bug: scroll.within "${scroll.within}" was not located before planning its swipe.`);
  }
  const region = scrollRegion(call.device, scroll.within);
  if (region.width < 4 || region.height < 4) {
    const { width, height } = call.device.screen;
    throw new InputError(
      `scroll.within ${JSON.stringify(scroll.within)} leaves no room to swipe on the ${width}x${height} screen ` +
        `outside its system bars; give the scrollable region's box in screenshot pixels.`,
    );
  }
  return swipeFor(region, scroll.direction);
}

/**
 * The swipe to learn (or heal) with, and `scroll` with its region as a box: a prompt `within` is
 * located on this screen, healing included; otherwise the stored swipe when healing, or the planned one.
 */
export async function learningSwipe(
  call: Call,
  scroll: ScrollParams,
  storedSwipe: Swipe | undefined,
): Promise<{ scroll: BoxedScroll; swipe: Swipe }> {
  if (typeof scroll.within === "string") {
    const boxed = await locateWithin(call, scroll);
    return { scroll: boxed, swipe: plannedSwipe(call, boxed) };
  }
  return { scroll: { ...scroll, within: scroll.within }, swipe: storedSwipe ?? plannedSwipe(call, scroll) };
}

/** What a scroll tap stores: its swipe and how many swipes it took. */
export function scrollRecord(scroll: BoxedScroll, swipe: Swipe, swipes: number): ScrollRecord {
  return { direction: scroll.direction, ...(scroll.within ? { within: scroll.within } : {}), swipe, swipes };
}

/**
 * Look at the settled screen; while `look` does not find it, swipe and look again, at most
 * `limit` swipes. Stops early when a swipe leaves the screen as it was: the end of the list.
 */
export async function scrollUntil<T>(
  call: Call,
  swipe: Swipe,
  limit: number,
  until: () => number,
  look: (png: Buffer) => Promise<Seen<T>>,
): Promise<Scrolled<T>> {
  let shot = await settledScreen(call, until(), limit + 1);
  for (let swipes = 0; ; swipes++) {
    const seen = await look(shot.png);
    if (seen.found) return { found: true, value: seen.value, swipes, png: shot.png };
    if (swipes >= limit) return { found: false, reason: seen.reason, swipes, endReached: false, png: shot.png };
    await call.swipe(swipe);
    const next = await settledScreen(call, until(), limit - swipes);
    if (sameScreenOutsideBars(call, shot, next)) {
      return { found: false, reason: seen.reason, swipes: swipes + 1, endReached: true, png: next.png };
    }
    shot = next;
  }
}
