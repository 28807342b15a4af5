/**
 * The flow the rig benchmarks run: the demo shop's three taps, cart -> checkout ->
 * confirmation -> cart, which cycles, so a run of any length needs no page loads between
 * steps. With a fixed seed every session shows the same pixels.
 */
import type { Browser } from "webdriverio";
import type { Box } from "tapshot/runner";
import type { Knowledge } from "../rig/model-doubles/index.js";
import type { RigSession } from "../rig/session.js";
import { SCRIPTED_MODEL, ScriptedChannel } from "../rig/scripted-channel.js";

/** The seed every benchmark page is opened with. */
export const SEED = 7;

/** One step: the screen it starts on, what is tapped, and the screen it leads to. */
export interface Step {
  screen: "cart" | "checkout" | "confirmation";
  prompt: string;
  testid: string;
  next: "cart" | "checkout" | "confirmation";
}

export const FLOW: readonly Step[] = [
  { screen: "cart", prompt: "the checkout button", testid: "checkout-button", next: "checkout" },
  { screen: "checkout", prompt: "the place order button", testid: "place-order-button", next: "confirmation" },
  { screen: "confirmation", prompt: "the continue shopping button", testid: "continue-button", next: "cart" },
];

/** Step `i` of an endless run of the flow. */
export const stepAt = (i: number): Step => FLOW[i % FLOW.length]!;

/** Wait until the page shows `screen` (a tap's navigation has finished). */
export async function waitForScreen(driver: Browser, screen: string): Promise<void> {
  await driver.waitUntil(async () => (await driver.execute(() => document.body?.dataset.screen)) === screen, {
    timeout: 15_000,
    interval: 20,
    timeoutMsg: `the demo page did not show the ${screen} screen`,
  });
}

/** The box (screenshot pixels) of each step's button, read from the DOM of one session. */
export async function flowBoxes(session: RigSession): Promise<Map<string, Box>> {
  const boxes = new Map<string, Box>();
  for (const step of FLOW) {
    await session.open(step.screen, { seed: SEED });
    boxes.set(step.prompt, await session.box(step.testid));
  }
  return boxes;
}

/** Wire-double knowledge that finds the flow's buttons, in pixels of the frame it is asked about. */
export function flowKnowledge(boxes: Map<string, Box>, screenWidth: number): Knowledge {
  return {
    locate(target, frame) {
      const box = boxes.get(target);
      if (!box) return { found: false, reason: `double: no button for "${target}"` };
      const s = frame.width / screenWidth;
      return { box: { x: box.x * s, y: box.y * s, width: box.width * s, height: box.height * s } };
    },
  };
}

/** A channel that answers `locate` from the DOM boxes, naming itself as a test double. */
export function flowChannel(boxes: Map<string, Box>): ScriptedChannel {
  return new ScriptedChannel({
    locate: (request) => {
      const box = boxes.get(request.prompt);
      return box
        ? { found: true, box, reason: "DOM box", model: SCRIPTED_MODEL }
        : { found: false, reason: `no button for "${request.prompt}"`, model: SCRIPTED_MODEL };
    },
  });
}
