/*
 * `tapshot/ios`: `tap` and `expect` for XCUITest sessions. Import as a namespace:
 *
 * ```ts
 * import * as ai from "tapshot/ios";
 * await ai.tap(driver, "the checkout button", { verify: "the order summary is shown" });
 * await ai.expect(driver).toMatchScreenshot("cart-page", "the cart with 2 items; prices may differ");
 * ```
 */
import type { Browser, ChainablePromiseElement } from "webdriverio";
import { registerDefaultChannel } from "../core/config/config.js";
import { createPlatformApi, type Matchers } from "../core/engine/engine.js";
import type { ActOptions, ActResult, TapOptions, TapResult } from "../core/engine/options.js";
import { envDefaultChannel } from "../providers/env.js";
import { iosAdapter } from "./adapter.js";

registerDefaultChannel(envDefaultChannel());

const api = createPlatformApi(iosAdapter);

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
 * Reach a goal in words with the screen's visible, labelled controls (docs/api.md "ai.act"): the first
 * run on a device model + OS asks the model for one action per step and stores the steps; later runs
 * replay them without a model. Values are typed verbatim and only their names reach the model.
 *
 * ```ts
 * await ai.act(driver, "sign in", { values: { email: "qa@example.com", password: process.env.PASSWORD! } });
 * ```
 */
export const act: (driver: Browser, goal: string, options?: ActOptions) => Promise<ActResult> = api.act;

export type {
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
