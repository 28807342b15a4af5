/*
 * The arguments of `toMatchScreenshot`, checked before any device or model call, and the
 * allowance of differing pixels they set (as Playwright's `toHaveScreenshot` combines them).
 */
import type { Box } from "../../model/contract.js";
import { InputError } from "../../ground/errors.js";
import {
  checkBoolean,
  checkCount,
  checkKnownOptions,
  checkRatio,
  checkSignal,
  checkText,
  checkTimeout,
} from "../../ground/checks.js";
import { checkMaskEntries, type CheckedMasks } from "./mask-entries.js";
import { checkFullPage, type FullPageParams } from "./page-options.js";
import { DEFAULT_THRESHOLD } from "../../pixels/image-compare.js";
import { checkSettle, DEFAULT_SETTLE, type SettleRule } from "../../run/settle.js";
import { baselineNameProblem, suggestBaselineName } from "../../store/keys.js";

export const DEFAULT_MAX_DIFF_PIXEL_RATIO = 0.001;

/** Parameters of one toMatchScreenshot call, already validated. */
export interface ScreenshotParams {
  name: string;
  prompt: string;
  autoHeal: boolean;
  threshold: number;
  /** As given; `undefined` when not set (see {@link allowedDiffPixels}). */
  maxDiffPixels: number | undefined;
  maxDiffPixelRatio: number | undefined;
  /** The caller's extra masks as boxes; after src/core/flows/screenshot/element-masks.ts resolved them, with the rest's. */
  mask: Box[];
  /** The caller's selector, element and prompt masks (src/core/flows/screenshot/mask-entries.ts). */
  byElement: Omit<CheckedMasks, "boxes">;
  /** When a screen that does not match counts as final. */
  settle: SettleRule;
  /** Set for a whole-page baseline (src/core/flows/screenshot/page-capture.ts): how far to scroll at most. */
  fullPage: FullPageParams | undefined;
}

const SCREENSHOT_OPTIONS = [
  "autoHeal",
  "timeout",
  "signal",
  "threshold",
  "maxDiffPixels",
  "maxDiffPixelRatio",
  "mask",
  "settle",
  "fullPage",
];

/** Check every argument before any device or model call. */
export function checkScreenshotInput(name: unknown, prompt: unknown, options: unknown) {
  const opts = checkKnownOptions(options, SCREENSHOT_OPTIONS, "toMatchScreenshot");
  const params: ScreenshotParams = {
    name: checkName(name),
    prompt: checkText(prompt, "toMatchScreenshot's prompt", '"the cart with 2 items; prices may differ"'),
    autoHeal: checkBoolean(opts.autoHeal, "autoHeal"),
    threshold: checkRatio(opts.threshold, "threshold", DEFAULT_THRESHOLD),
    maxDiffPixels: opts.maxDiffPixels === undefined ? undefined : checkCount(opts.maxDiffPixels, "maxDiffPixels", 0),
    maxDiffPixelRatio:
      opts.maxDiffPixelRatio === undefined ? undefined : checkRatio(opts.maxDiffPixelRatio, "maxDiffPixelRatio", 0),
    ...checkMasks(opts.mask),
    settle: checkSettle(opts.settle, DEFAULT_SETTLE.toMatchScreenshot),
    fullPage: checkFullPage(opts.fullPage),
  };
  if (params.fullPage && (params.byElement.elements.length || params.byElement.prompts.length)) {
    throw new InputError(
      `toMatchScreenshot "${params.name}": fullPage takes masks as boxes in page pixels only; selector, element ` +
        `and prompt masks name places on one screen, not on the stitched page. Give the region as ` +
        `{ x, y, width, height } in the stored page's pixels, or drop fullPage.`,
    );
  }
  return { params, timeout: checkTimeout(opts.timeout), signal: checkSignal(opts.signal) };
}

function checkName(value: unknown): string {
  const name = checkText(value, "toMatchScreenshot's name", '"cart-page"');
  const problem = baselineNameProblem(name);
  if (!problem) return name;
  const suggestion = suggestBaselineName(name);
  throw new InputError(
    `toMatchScreenshot's name ${JSON.stringify(name)} is not a valid baseline name: it names a folder in ` +
      `every checkout of the storage, and ${problem}. Try "${suggestion}".` +
      // Names of this shape were accepted before tapshot 0.2: say how to keep what is stored under them.
      (/^[A-Za-z0-9._-]+$/.test(name)
        ? ` Baselines stored under the old name keep working once their folder is renamed: ` +
          `git mv _ai_/screenshots/<platform>/${name} _ai_/screenshots/<platform>/${suggestion}`
        : ""),
  );
}

function checkMasks(value: unknown): Pick<ScreenshotParams, "mask" | "byElement"> {
  const { boxes, ...byElement } = checkMaskEntries(value);
  return { mask: boxes, byElement };
}

/**
 * Differing pixels a comparison allows, as Playwright's `toHaveScreenshot` decides it:
 * with both options set the stricter applies, with one set only that one, with neither
 * `maxDiffPixelRatio` {@link DEFAULT_MAX_DIFF_PIXEL_RATIO}. The ratio is of all the screenshot's pixels.
 */
export function allowedDiffPixels(
  total: number,
  { maxDiffPixels, maxDiffPixelRatio }: Pick<ScreenshotParams, "maxDiffPixels" | "maxDiffPixelRatio">,
): number {
  const byRatio = maxDiffPixelRatio === undefined ? undefined : Math.floor(total * maxDiffPixelRatio);
  if (maxDiffPixels !== undefined && byRatio !== undefined) return Math.min(maxDiffPixels, byRatio);
  return maxDiffPixels ?? byRatio ?? Math.floor(total * DEFAULT_MAX_DIFF_PIXEL_RATIO);
}

export function describeAllowance(allowed: number, params: ScreenshotParams): string {
  const { maxDiffPixels, maxDiffPixelRatio } = params;
  if (maxDiffPixels !== undefined && maxDiffPixelRatio !== undefined) {
    return `${allowed} (the stricter of maxDiffPixels ${maxDiffPixels} and maxDiffPixelRatio ${maxDiffPixelRatio})`;
  }
  if (maxDiffPixels !== undefined) return `${allowed} (maxDiffPixels)`;
  return `${allowed} (maxDiffPixelRatio ${maxDiffPixelRatio ?? DEFAULT_MAX_DIFF_PIXEL_RATIO})`;
}
