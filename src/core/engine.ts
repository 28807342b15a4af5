/**
 * Binds the flows to one platform adapter; each platform entry exports what this returns.
 * Input is checked here, before any device or model call.
 */
import { Call } from "./call.js";
import { resolveConfig } from "./config.js";
import { Deadline } from "./deadline.js";
import type { DeviceAdapter } from "./device.js";
import {
  checkBoolean,
  checkKnownOptions,
  checkOptionalText,
  checkSignal,
  checkText,
  checkTimeout,
  type ScreenshotOptions,
  type ScreenshotResult,
  type TapOptions,
  type TapResult,
} from "./options.js";
import { runTap } from "./tap.js";
import { checkScreenshotInput, runScreenshot } from "./screenshot.js";

/** What `expect(driver)` returns. `.not` is deliberately not offered: a baseline records what should be there. */
export interface ScreenshotMatchers {
  /**
   * Compare the screen with the baseline stored for `name` on this device; with none,
   * the model judges the screen against `prompt` (and other devices' baselines) and it is stored.
   */
  toMatchScreenshot(name: string, prompt: string, options?: ScreenshotOptions): Promise<ScreenshotResult>;
}

/** The API of one platform entry. */
export interface PlatformApi {
  tap(driver: unknown, prompt: string, options?: TapOptions): Promise<TapResult>;
  expect(driver: unknown): ScreenshotMatchers;
}

const TAP_OPTIONS = ["verify", "autoHeal", "timeout", "signal"];

export function createPlatformApi(adapter: DeviceAdapter): PlatformApi {
  async function run<R>(
    api: "tap" | "toMatchScreenshot",
    subject: string,
    driver: unknown,
    timeout: number,
    signal: AbortSignal | undefined,
    flow: (call: Call) => Promise<R>,
  ): Promise<R> {
    const config = resolveConfig(driver);
    const deadline = new Deadline(timeout, `${api} "${subject}"`, signal);
    const call = new Call(api, subject, config, adapter, driver, deadline);
    try {
      return await flow(call);
    } catch (error) {
      return call.fail(error);
    } finally {
      deadline.dispose();
    }
  }

  return {
    async tap(driver, prompt, options) {
      const opts = checkKnownOptions(options, TAP_OPTIONS, "tap");
      const params = {
        prompt: checkText(prompt, "tap's prompt", '"the checkout button"'),
        verify: checkOptionalText(opts.verify, "verify", '"the order summary is shown"'),
        autoHeal: checkBoolean(opts.autoHeal, "autoHeal"),
      };
      const timeout = checkTimeout(opts.timeout);
      const signal = checkSignal(opts.signal);
      adapter.assertDriver(driver);
      return run("tap", params.prompt, driver, timeout, signal, (call) => runTap(call, params));
    },

    expect(driver) {
      return {
        async toMatchScreenshot(name, prompt, options) {
          const { params, timeout, signal } = checkScreenshotInput(name, prompt, options);
          adapter.assertDriver(driver);
          return run("toMatchScreenshot", params.name, driver, timeout, signal, (call) => runScreenshot(call, params));
        },
      };
    },
  };
}
