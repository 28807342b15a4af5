/*
 * `tapshot/android`: `tap` and `expect` for UiAutomator2 / Espresso sessions. Import as a namespace:
 *
 * ```ts
 * import * as ai from "tapshot/android";
 * await ai.tap(driver, "the checkout button", { verify: "the order summary is shown" });
 * await ai.expect(driver).toMatchScreenshot("cart-page", "the cart with 2 items; prices may differ");
 * ```
 */
import type { Browser, ChainablePromiseElement } from "webdriverio";
import { registerDefaultChannel } from "../core/config/config.js";
import { createPlatformApi, type Matchers } from "../core/engine/engine.js";
import type {
  ActOptions,
  ControlsOptions,
  ScreenControl,
  ActResult,
  FindOptions,
  PointElement,
  TapOptions,
  TapResult,
} from "../core/engine/options.js";
import { envDefaultChannel } from "../providers/env.js";
import { androidAdapter } from "./adapter.js";

registerDefaultChannel(envDefaultChannel());

const api = createPlatformApi(androidAdapter);

/**
 * Tap the element the prompt describes. The first run on a device model + OS asks the model
 * and stores the point with a crop of the screen; later runs replay it without a model.
 */
export const tap: (driver: Browser, prompt: string, options?: TapOptions) => Promise<TapResult> = api.tap;

/**
 * `expect(driver).toMatchScreenshot(name, prompt, options?)`: per-device baselines judged by the model once.
 * `expect(driver | element).toSatisfy(statement, options?)` and `.not.toSatisfy`: semantic assertions, judged
 * once per distinct snapshot and replayed without a model (docs/api.md, "Semantic assertions").
 */
export const expect: (subject: Browser | WebdriverIO.Element | ChainablePromiseElement) => Matchers = api.expect;

/**
 * The element the description names, as a WebdriverIO element of this session (docs/api.md
 * "Finding elements"): located by the model once per device model and OS and stored under
 * `_ai_/locators/`, then found again without a model. It answers the element under the stored
 * point; where there is none (a canvas, a game), a `PointElement` whose `click` taps the point.
 * The call's outcome and model calls are in its log line, as for every call.
 */
export async function find(
  driver: Browser,
  description: string,
  options?: FindOptions,
): Promise<WebdriverIO.Element | PointElement> {
  return (await api.find(driver, description, options)).element as WebdriverIO.Element | PointElement;
}

/**
 * Reach a goal in words with the screen's visible, labelled controls (docs/api.md "ai.act"): the first
 * run on a device model + OS asks the model for one action per step and stores the steps; later runs
 * replay them without a model. Values are typed verbatim and only their names reach the model.
 *
 * ```ts
 * await ai.act(driver, "sign in", { values: { email: "qa@example.com", password: process.env.PASSWORD! } });
 * ```
 */
export const act: (driver: Browser, goal: string, options?: ActOptions) => Promise<ActResult> = api.act;

/**
 * The screen's visible, labelled controls as `act` sees them (kind, text, id, bounds), read from the page
 * source: no screenshot, no model call, no log entry (docs/api.md "Controls").
 */
export const controls: (driver: Browser, options?: ControlsOptions) => Promise<ScreenControl[]> = api.controls;

export type {
  ControlsOptions,
  ScreenControl,
  FindOptions,
  FindResult,
  PointElement,
  ActOptions,
  ActResult,
  ActStepSummary,
  ActAttempt,
  TapOptions,
  TapResult,
  HealRungs,
  ScreenshotOptions,
  MaskEntry,
  ScreenshotResult,
  ScrollOptions,
  SettleOptions,
  FullPageOptions,
  ScrollDirection,
  SatisfyOptions,
  SatisfyResult,
} from "../core/engine/options.js";
export type { ScreenshotMatchers, SatisfyMatchers, Matchers } from "../core/engine/engine.js";
export * from "../errors.js";
