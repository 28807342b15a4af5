/** Waiting for the screen to stop changing before a model looks at it or a baseline is stored. */
import type { Call } from "./call.js";
import type { Rect } from "../ground/geometry.js";
import { decode, type RawImage } from "../pixels/images.js";
import { isUniformOutside, sameOutside } from "../pixels/masks.js";

const STABLE_POLL_MS = 100;
/** How often a replay or comparison takes a new screenshot while the screen is still loading. */
const MATCH_POLL_MS = 200;
/** With autoHeal, a screen unchanged for this long without matching goes to the model without waiting longer. */
const HEAL_AFTER_UNCHANGED_MS = 3_000;

/** A screenshot with its decoded pixels. */
export interface Shot {
  png: Buffer;
  raw: RawImage;
}

/** A screenshot, decoded unless its bytes equal `last`'s (then `last`'s pixels are reused). */
async function shoot(call: Call, last?: Shot): Promise<Shot> {
  const png = await call.screenshot();
  return { png, raw: last?.png.equals(png) ? last.raw : await decode(png) };
}

/** How {@link waitForStable} waits. */
export interface StableWait {
  /** Give up at this time and use the last screenshot (noted as unsettled). */
  until: number;
  /** Regions whose changes are not motion (system bars, varying content). */
  masks: Rect[];
  /** Count a blank screen (one colour outside the masks) as still loading. */
  requireDrawn: boolean;
  /** A screenshot already taken, compared with the next. */
  first?: Shot;
}

/**
 * Take screenshots until two consecutive ones are identical outside the masks (a clock
 * tick is not motion), or `until` passes; then the last one, noted as unsettled.
 */
export async function waitForStable(
  call: Call,
  { until, masks, requireDrawn: drawn, first }: StableWait,
): Promise<Shot> {
  let last = first ?? (await shoot(call));
  for (;;) {
    if (Date.now() + STABLE_POLL_MS >= until) {
      call.note("the screen did not settle (no two identical screenshots in a row): used the last one");
      return last;
    }
    await call.deadline.sleep(STABLE_POLL_MS);
    const next = await shoot(call, last);
    const stable = next.raw === last.raw || sameOutside(next.raw, last.raw, masks);
    if (stable && !(drawn && isUniformOutside(next.raw, masks))) return next;
    last = next;
  }
}

/** What one look at a screenshot found: whether it matches, and what the flow keeps of it. */
export interface Look<T> {
  matched: boolean;
  value: T;
}

/**
 * Take screenshots until `look` finds a match, or the poll ends: at `until`, or, when `healing`,
 * once the screen has stopped changing for a while (it will not match later, so the model should
 * look now). A screenshot with the same bytes as the last one is not looked at again. Returns the
 * last screenshot and the last look.
 */
export async function pollForMatch<T>(
  call: Call,
  { until, healing }: { until: number; healing: boolean },
  look: (png: Buffer) => Promise<Look<T>>,
): Promise<Look<T> & { png: Buffer }> {
  let last: (Look<T> & { png: Buffer }) | undefined;
  let unchangedSince = Date.now();
  for (;;) {
    const png = await call.screenshot();
    if (!last?.png.equals(png)) {
      unchangedSince = Date.now();
      last = { png, ...(await look(png)) };
    }
    if (last.matched) return last;
    if (Date.now() + MATCH_POLL_MS >= until) return last;
    if (healing && Date.now() - unchangedSince >= HEAL_AFTER_UNCHANGED_MS) return last;
    await call.deadline.sleep(MATCH_POLL_MS);
  }
}
