/* The screenshot a model is asked about, or a learned value is taken from: the screen once it stops changing. */
import type { RawImage } from "../../pixels/image-decode.js";
import { systemBarMasks } from "../../pixels/masks.js";
import type { Call } from "../../run/call.js";
import { waitForStable } from "../../run/stable-screen.js";

/**
 * A screenshot for the model to locate on: wait until the screen stops changing, so a page
 * still navigating after the previous step is not what gets stored.
 */
export async function settledScreenshot(call: Call): Promise<{ png: Buffer; raw: RawImage }> {
  const until = call.deadline.after("settleBeforeModel");
  return waitForStable(call, { until, masks: systemBarMasks(call.device), requireDrawn: true });
}
