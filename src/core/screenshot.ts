/**
 * The toMatchScreenshot flow (DESIGN.md section 5). PLACEHOLDER: implemented in issue 4.
 */
import type { Call } from "./call.js";
import {
  checkKnownOptions,
  checkSignal,
  checkText,
  checkTimeout,
  type ScreenshotOptions,
  type ScreenshotResult,
} from "./options.js";

export interface ScreenshotParams {
  name: string;
  prompt: string;
  options: ScreenshotOptions;
}

const SCREENSHOT_OPTIONS = ["autoHeal", "timeout", "signal", "threshold", "maxDiffPixels", "maxDiffPixelRatio", "mask"];

export function checkScreenshotInput(name: unknown, prompt: unknown, options: unknown) {
  const opts = checkKnownOptions(options, SCREENSHOT_OPTIONS, "toMatchScreenshot") as ScreenshotOptions;
  return {
    params: {
      name: checkText(name, "name", '"cart-page"'),
      prompt: checkText(prompt, "prompt", '"the cart"'),
      options: opts,
    },
    timeout: checkTimeout(opts.timeout),
    signal: checkSignal(opts.signal),
  };
}

export async function runScreenshot(_call: Call, _params: ScreenshotParams): Promise<ScreenshotResult> {
  throw new Error("toMatchScreenshot is not implemented yet");
}
