/**
 * `browser.aiTap` and `browser.aiMatchScreenshot`: tapshot's calls as WebdriverIO commands, so a test
 * never passes the driver. The service adds them to every session; a standalone `remote()` session
 * gets them from {@link addAiCommands}. On a multiremote browser WebdriverIO adds each command to
 * every instance, and the browser's own command runs it on all of them.
 */
import type { PlatformApi } from "../core/engine.js";
import type { ScreenshotOptions, ScreenshotResult, TapOptions, TapResult } from "../core/options.js";
import { adapterFor, platformApiOf, type AdapterChoice } from "./platform-api.js";

/** One finished command, for reporters (heals become an Allure warning step). */
export type CommandResult =
  | { api: "tap"; subject: string; result: TapResult }
  | { api: "toMatchScreenshot"; subject: string; result: ScreenshotResult };

/** Options of {@link addAiCommands}. */
export interface AiCommandOptions {
  /** The device adapter, or a function choosing one per session. Default: Android or iOS by `platformName`. */
  adapter?: AdapterChoice;
  /** Called after each successful command (the service reports heals through it). */
  onResult?: (done: CommandResult) => void | Promise<void>;
}

/**
 * Add `aiTap(prompt, options?)` and `aiMatchScreenshot(name, prompt, options?)` to a WebdriverIO
 * browser (or every instance of a multiremote browser).
 *
 * ```ts
 * const browser = await remote({ capabilities });
 * addAiCommands(browser);
 * await browser.aiTap("the checkout button");
 * ```
 */
export function addAiCommands(
  browser: WebdriverIO.Browser | WebdriverIO.MultiRemoteBrowser,
  options: AiCommandOptions = {},
): void {
  const apis = new WeakMap<object, PlatformApi>();
  const apiOf = (driver: WebdriverIO.Browser): PlatformApi => {
    let api = apis.get(driver);
    if (!api) apis.set(driver, (api = platformApiOf(adapterFor(driver, options.adapter))));
    return api;
  };

  // A multiremote browser's addCommand takes the same arguments (it adds to every instance).
  const target = browser as WebdriverIO.Browser;
  target.addCommand("aiTap", async function (this: WebdriverIO.Browser, prompt: string, tapOptions?: TapOptions) {
    const result = await apiOf(this).tap(this, prompt, tapOptions);
    await options.onResult?.({ api: "tap", subject: prompt, result });
    return result;
  });

  target.addCommand(
    "aiMatchScreenshot",
    async function (this: WebdriverIO.Browser, name: string, prompt: string, shotOptions?: ScreenshotOptions) {
      const result = await apiOf(this).expect(this).toMatchScreenshot(name, prompt, shotOptions);
      await options.onResult?.({ api: "toMatchScreenshot", subject: name, result });
      return result;
    },
  );
}
