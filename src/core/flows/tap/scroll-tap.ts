/*
 * Taps that scroll to find their element (docs/api.md "Scrolling to find"): a replay repeats the
 * stored swipe and looks for the crop along the scroll axis; a learn or heal asks the model on
 * each settled screen. The swipes themselves are in ./scroll/.
 */
import { ElementNotFoundError, clause } from "../../ground/errors.js";
import { findAlong } from "../../pixels/crop-along.js";
import { decode } from "../../pixels/image-decode.js";
import type { Call } from "../../run/call.js";
import type { NewValue, Use } from "../../run/lifecycle.js";
import type { Stored } from "../../store/record-io.js";
import type { TapRecord } from "../../store/tap-record.js";
import { CROP_VERDICT } from "../shared/crop-verdict.js";
import { storedCrop } from "./crop-check.js";
import { locateAndTap, tapValue } from "./locate.js";
import { axisOf, scrollRegion } from "../../device/swipe-geometry.js";
import type { ScrollParams } from "./scroll/options.js";
import { learningSwipe, plannedSwipe, REPLAY_EXTRA_SWIPES, scrollRecord, scrollUntil } from "./scroll/swipes.js";
import { rewind, swipesText } from "../../run/scrolling.js";
import type { CropMismatch, TapDone, TapParams } from "./tap-params.js";

/**
 * Replay a scroll tap: swipe the stored swipe, looking for the crop along the scroll axis after
 * each, and tap once it is there; at most the stored count plus {@link REPLAY_EXTRA_SWIPES}.
 */
export async function useScrolled(
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
      const screen = await decode(png);
      const found = await findAlong({ expected, crop: record.crop, screen, axis, region, verdict: CROP_VERDICT });
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

/** What a scroll learn is for: a first learn, or a heal of a stored value that did not replay. */
export interface ScrollLearn {
  params: TapParams;
  scroll: ScrollParams;
  /** Present when healing: the stored value and how its replay failed. */
  healing?: { stored: Stored<TapRecord>; mismatch: CropMismatch } | undefined;
}

/**
 * Learn (or heal) a scroll tap: ask the model on each settled screen, swiping between, until it
 * finds the element; stored with the swipe and the count.
 */
export async function learnScrolled(
  call: Call,
  { params, scroll, healing }: ScrollLearn,
): Promise<NewValue<TapRecord, TapDone>> {
  const subject = `tap "${params.prompt}" on ${call.deviceSlug}`;
  const planned = await learningSwipe(call, scroll, healing?.stored.record.scroll?.swipe);
  const swipe = planned.swipe;
  const settle = () => call.deadline.after("settleBeforeModel");
  if (healing || scroll.fromStart) await rewind(call, swipe, scroll.direction, settle);
  const reference = healing?.stored.image;
  const scrolled = await scrollUntil(call, swipe, scroll.maxSwipes, settle, async (png) => {
    const located = await locateAndTap(call, { screenshot: png, params, reference });
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
  const identity = healing
    ? { kind: healing.stored.record.kind, prompt: healing.stored.record.prompt, verify: healing.stored.record.verify }
    : { kind: "tap" as const, prompt: params.prompt, verify: params.verify ?? null };
  const value = tapValue(call, scrolled.value, {
    identity,
    outcome: healing ? "healed" : "learned",
    scroll: scrollRecord(planned.scroll, swipe, scrolled.swipes),
  });
  value.done.detail = `found after ${swipesText(scrolled.swipes, scroll.direction)}`;
  return value;
}
