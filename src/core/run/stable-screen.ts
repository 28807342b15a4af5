/** Waiting for the screen to stop changing before a model looks at it or a baseline is stored. */
import type { Call } from "./call.js";
import type { Rect } from "../ground/geometry.js";
import { decode, type RawImage } from "../pixels/image-decode.js";
import { isUniformOutside, sameOutside } from "../pixels/masks.js";
import { sameScreen, type SettleRule } from "./settle.js";

const STABLE_POLL_MS = 100;
/** How often a replay or comparison takes a new screenshot while the screen is still loading. */
const MATCH_POLL_MS = 200;

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

/** Whether a settled screen without a match is final, and why, from {@link MatchPoll.isFinal}. */
export interface Finality {
  final: boolean;
  /** For the log and messages, e.g. "it shares 38% of its content with the stored screen". */
  why: string;
}

/** How {@link pollForMatch} polls. */
export interface MatchPoll {
  /** The time (ms since the epoch) by which the poll has ended: no look starts that could not end by then. */
  until: number;
  /** Regions whose changes are not motion, for the settle rule. */
  masks: Rect[];
  /** When a screen that does not match counts as final (src/core/run/settle.ts). */
  settle: SettleRule;
  /**
   * Asked once per settled screen (after the grace period) that does not match: whether it is final.
   * One that is not (a loading screen) is watched until `until`, as a screen still changing is.
   * Without it every settled screen is final.
   */
  isFinal?: (png: Buffer) => Promise<Finality>;
  /**
   * Whether two screenshots count as the same screen for the settle rule; default {@link sameScreen}
   * (identical outside the masks). Whole pages pass a rule with room for lossy frames.
   */
  same?: (a: Buffer, b: Buffer) => Promise<boolean>;
}

/** How a poll without a match ended: the screen `settled` without matching, or was still changing at the `deadline`. */
export type MismatchEnd = "settled" | "deadline";

/** What a poll returns: the last screenshot and look, and how the poll ended. */
export type Polled<T> = { png: Buffer; value: T } & (
  | { matched: true; ended: "matched" }
  /** `waited`: why the settled screen was not final, when it was watched until `until`. */
  | { matched: false; ended: MismatchEnd; waited?: string }
);

/**
 * Take screenshots until `look` finds a match, or the poll ends: once the screen has settled
 * (`settle.shots` screenshots in a row identical outside the masks) and stayed so for
 * `settle.graceMs` without matching, and `isFinal` agrees, or before `until` would pass. A
 * screenshot with the same bytes as the last one is not looked at again. Returns the last
 * screenshot, the last look and how the poll ended.
 */
export async function pollForMatch<T>(
  call: Call,
  poll: MatchPoll,
  look: (png: Buffer) => Promise<Look<T>>,
): Promise<Polled<T>> {
  const { until, masks, settle, same: sameAs } = poll;
  let last: (Look<T> & { png: Buffer }) | undefined;
  let inARow = 0;
  let settledAt: number | undefined;
  // Whether the screen settled since it last changed was judged final; asked once per settled screen.
  let judged: Finality | undefined;
  // The longest screenshot-and-look so far: the next one starts only if it can end by `until`.
  let longest = 0;
  for (;;) {
    const started = Date.now();
    const png = await call.screenshot();
    const same = last !== undefined && (await (sameAs ? sameAs(last.png, png) : sameScreen(last.png, png, masks)));
    inARow = same ? inARow + 1 : 1;
    if (!last?.png.equals(png)) last = { png, ...(await look(png)) };
    let now = Date.now();
    longest = Math.max(longest, now - started);
    const { png: lastPng, value } = last;
    if (last.matched) return { png: lastPng, value, matched: true, ended: "matched" };
    if (inARow < settle.shots) [settledAt, judged] = [undefined, undefined];
    else if ((settledAt ??= now) + settle.graceMs <= now) {
      judged ??= await judge(call, poll, lastPng);
      if (judged.final) return { png: lastPng, value, matched: false, ended: "settled" };
      now = Date.now();
    }
    if (now + MATCH_POLL_MS + longest > until) {
      const ended = inARow >= settle.shots ? "settled" : "deadline";
      return { png: lastPng, value, matched: false, ended, ...(judged ? { waited: judged.why } : {}) };
    }
    await call.deadline.sleep(MATCH_POLL_MS);
  }
}

/** Whether a settled screen is final; a screen judged not final is noted once, with why. */
async function judge(call: Call, poll: MatchPoll, png: Buffer): Promise<Finality> {
  if (!poll.isFinal) return { final: true, why: "" };
  const judged = await poll.isFinal(png);
  if (!judged.final) call.note(`a settled screen without a match was not final, so it was waited for: ${judged.why}`);
  return judged;
}

/**
 * How a failed poll ended, for messages: ", on a settled screen (…)", the same waited for until
 * the timeout because it was not final (`waited` says why), or ", still changing at the timeout".
 */
export function describeEnd(ended: MismatchEnd | undefined, settle: SettleRule, waited?: string): string {
  if (ended === "settled" && waited) {
    return `, on a screen that had stopped changing but was waited for because ${waited}`;
  }
  if (ended === "settled") {
    return `, on a screen that had stopped changing (${settle.shots} identical screenshots in a row)`;
  }
  return ended === "deadline" ? ", and the screen was still changing at the timeout" : "";
}
