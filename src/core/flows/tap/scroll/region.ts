/**
 * A scroll tap's region given as a prompt (docs/api.md "Scrolling to find"): the model locates
 * it once on the settled screen, when learning or healing; the box it gives is what the swipe is
 * planned in and what the record stores, so a replay needs no model call.
 */
import { toAiImage, type Call } from "../../../run/call.js";
import type { Box } from "../../../model/contract.js";
import { ElementNotFoundError, InputError, clause } from "../../../ground/errors.js";
import { systemBarMasks } from "../../../pixels/masks.js";
import { waitForStable } from "../../../run/stable-screen.js";
import { axisOf, scrollRegion } from "../../../device/swipe-geometry.js";
import type { ScrollParams } from "./options.js";

/**
 * The shortest located region along the scroll axis, in tap units (dp, points). Its swipe
 * travels half of it, 32 units, well past the few units of touch slop after which a press
 * becomes a drag on Android and iOS.
 */
export const MIN_LOCATED_SPAN_UNITS = 64;

/** `scroll` with `within` as a box: a prompt located by the model, a box or nothing as given. */
export type BoxedScroll = Omit<ScrollParams, "within"> & { within: Box | undefined };

/** `scroll` with a prompt `within` replaced by the box the model locates on the settled screen. */
export async function locateWithin(call: Call, scroll: ScrollParams): Promise<BoxedScroll> {
  const { within } = scroll;
  if (typeof within !== "string") return { ...scroll, within };
  const until = call.deadline.after("settleBeforeModel");
  const shot = await waitForStable(call, { until, masks: systemBarMasks(call.device), requireDrawn: true });
  const answer = await call.ask({ kind: "locate", screen: await toAiImage(shot.png), prompt: within });
  if (!answer.found || !answer.box) {
    await call.report("screenshot", shot.png, "scroll-within");
    throw new ElementNotFoundError(
      `scroll.within "${within}" on ${call.deviceSlug}: the model did not find the region: ${clause(answer.reason)}. ` +
        `Describe the scrollable region more precisely, or give its box in screenshot pixels.`,
    );
  }
  const box = wholeBox(answer.box);
  const region = scrollRegion(call.device, box);
  const axis = axisOf(scroll.direction);
  const span = axis === "y" ? region.height : region.width;
  const across = axis === "y" ? region.width : region.height;
  const least = MIN_LOCATED_SPAN_UNITS * call.device.scale;
  if (span < least || across < 1) {
    await call.report("screenshot", shot.png, "scroll-within");
    throw new InputError(
      `scroll.within "${within}" on ${call.deviceSlug}: the model (${answer.model}) located ${JSON.stringify(box)}, ` +
        `${span} px ${axis === "y" ? "tall" : "wide"} inside the screen's content area, too small to swipe ` +
        `${scroll.direction} in (at least ${least} px, ${MIN_LOCATED_SPAN_UNITS} tap units). ` +
        `Describe the whole scrollable region, or give its box in screenshot pixels.`,
    );
  }
  return { ...scroll, within: box };
}

/** The model's box rounded out to whole pixels, as a given `within` box is. */
function wholeBox(box: Box): Box {
  const x = Math.max(0, Math.floor(box.x));
  const y = Math.max(0, Math.floor(box.y));
  return { x, y, width: Math.ceil(box.x + box.width) - x, height: Math.ceil(box.y + box.height) - y };
}
