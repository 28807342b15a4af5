/**
 * `tapshot/wdio`: tapshot in the runners its users have (docs/runners.md). A WebdriverIO service
 * for wdio.conf.ts, `browser.aiTap` / `browser.aiMatchScreenshot` / `browser.aiSatisfy` / `browser.aiAct` commands, the
 * `toMatchAiScreenshot` matcher for WDIO's `expect` and Jest/Vitest's `expect.extend`, and an
 * artifact reporter for `@wdio/allure-reporter`.
 *
 * ```ts
 * // wdio.conf.ts
 * import { TapshotService } from "tapshot/wdio";
 * export const config: WebdriverIO.Config = { services: [[TapshotService, { storageDir: "storage" }]] };
 * // a spec
 * await browser.aiTap("the checkout button");
 * await expect(browser).toMatchAiScreenshot("cart-page", "the cart with 2 items");
 * ```
 */
import "./types.js";
import { registerDefaultChannel } from "../core/config/config.js";
import { envDefaultChannel } from "../providers/env.js";

registerDefaultChannel(envDefaultChannel());

export { TapshotService, type TapshotServiceOptions } from "./service.js";
export { addAiCommands, type AiCommandOptions, type AiSatisfyOptions, type CommandResult } from "./commands.js";
export { setDefaultAdapter, type AdapterChoice } from "./platform-api.js";
export { targetFromCapabilities } from "./capabilities.js";
export { allureArtifactReporter, loadAllure, usesAllure, type AllureApi } from "./allure.js";
export {
  aiMatchers,
  type MatcherStyle,
  type MatcherContext,
  type MatcherResult,
} from "../matchers/to-match-ai-screenshot.js";
export type { AiScreenshotMatcher, AiSatisfyMatcher } from "./types.js";
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
  SatisfyOptions,
  SatisfyResult,
  ScrollOptions,
  SettleOptions,
  ScrollDirection,
} from "../core/engine/options.js";
export * from "../errors.js";
