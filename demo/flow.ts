/**
 * The demo flow on the shop: sign in through `ai.act` with the demo account's values (when the
 * run signs in), the cart's baseline, Checkout (verified), the order summary's baseline, Place
 * order (verified), then the confirmation screen. Prompts quote the labels, so the local OCR
 * engine can answer the taps and baselines as well as a vision model; the sign-in needs a vision
 * model to learn (ocr() cannot decide an act's steps), and replays without any.
 */
import type { Variant } from "./app/server.js";
import type { RigSession } from "../rig/session.js";
import { DEMO_VALUES, SIGN_IN_GOAL } from "./sign-in.js";

/** Options of one pass through the flow. */
export interface FlowOptions {
  variant: Variant;
  autoHeal: boolean;
  /** Fixes the shop's varying content (balance, dates, clock). */
  seed: number;
  /** Budget of each call in ms. */
  timeout: number;
  /** Check the cart's baseline (off where the channel cannot judge the redesign's restyle). */
  cartBaseline: boolean;
  /** Start on the sign-in page and sign in with `ai.act`; otherwise open the cart directly. */
  signIn: boolean;
}

/** One step's outcome, for the summary table. */
export interface StepResult {
  step: string;
  outcome: string;
  aiCalls: number;
  ms: number;
}

export async function runFlow(session: RigSession, options: FlowOptions): Promise<StepResult[]> {
  const { driver, ai } = session;
  const { autoHeal, timeout } = options;
  const results: StepResult[] = [];
  async function step(name: string, run: () => Promise<{ outcome: string; aiCalls: number }>) {
    const started = Date.now();
    const { outcome, aiCalls } = await run();
    results.push({ step: name, outcome, aiCalls, ms: Date.now() - started });
  }

  if (options.signIn) {
    await session.open("login", { variant: options.variant, seed: options.seed });
    await step(`act "${SIGN_IN_GOAL}"`, () => ai.act(driver, SIGN_IN_GOAL, { values: DEMO_VALUES, autoHeal, timeout }));
    await driver.waitUntil(async () => (await session.currentScreen()) === "cart", {
      timeout,
      timeoutMsg: "signing in did not open the cart",
    });
  } else {
    await session.open("cart", { variant: options.variant, seed: options.seed });
  }
  if (options.cartBaseline)
    await step("screenshot cart", () =>
      ai.expect(driver).toMatchScreenshot("cart", 'the cart with 2 items, a "Total" and a "Checkout" button', {
        autoHeal,
        timeout,
      }),
    );
  await step('tap "Checkout"', () =>
    ai.tap(driver, 'the "Checkout" button', { verify: 'the "Order summary" is shown', autoHeal, timeout }),
  );
  await step("screenshot order summary", () =>
    ai
      .expect(driver)
      .toMatchScreenshot("order-summary", 'the "Order summary" with the items and a "Place order" button', {
        autoHeal,
        timeout,
      }),
  );
  await step('tap "Place order"', () =>
    ai.tap(driver, 'the "Place order" button', { verify: '"Thank you for your order!" is shown', autoHeal, timeout }),
  );
  await driver.waitUntil(async () => (await session.currentScreen()) === "confirmation", {
    timeout,
    timeoutMsg: "the flow did not reach the confirmation screen",
  });
  return results;
}
