/* Options and results of the public calls, and the checks every call runs on its input first. */
import type { Point } from "../device/description.js";
import {
  checkBoolean,
  checkKnownOptions,
  checkOptionalText,
  checkSignal,
  checkText,
  checkTimeout,
} from "../ground/checks.js";
import { checkScroll, type ScrollOptions } from "../flows/tap/scroll/options.js";
import type { TapParams } from "../flows/tap/tap-params.js";
import type { FindParams } from "../flows/find/find.js";
import { checkSettle, DEFAULT_SETTLE } from "../run/settle.js";
import type { MaskEntry } from "../flows/screenshot/mask-entries.js";
import type { FullPageOptions } from "../flows/screenshot/page-options.js";

import type { SettleOptions } from "../run/settle.js";

export type { ScrollOptions } from "../flows/tap/scroll/options.js";
export type { SettleOptions } from "../run/settle.js";
export type { ScrollDirection } from "../device/swipe-geometry.js";
export type { MaskEntry, MaskElement, PromptMask } from "../flows/screenshot/mask-entries.js";
export type { FullPageOptions } from "../flows/screenshot/page-options.js";
export type { SatisfyOptions, SatisfyResult } from "../flows/satisfy/satisfy.js";
export type { ActOptions, ActResult, ActStepSummary, ActAttempt } from "../flows/act/act-params.js";
import { checkValues, type ActOptions } from "../flows/act/act-params.js";
import type { ControlRole } from "../model/contract.js";
import type { Rect } from "../ground/geometry.js";

/** Options of `tap`. */
export interface TapOptions {
  /**
   * A statement the model checks on the screen after a fresh tap, e.g. "the order summary is shown".
   * A failed check fails the step and stores nothing. Replays never run it. Part of the stored key.
   */
  verify?: string;
  /** When a replay no longer matches, ask the model to find the element again and update the stored value. */
  autoHeal?: boolean;
  /**
   * Rungs of the heal ladder (docs/heal.md), each on unless set to false: `nearby` replays a crop
   * that matches a few pixels off its place, `search` looks for the stored crop elsewhere on the
   * screen before the model is asked.
   */
  heal?: HealRungs;
  /**
   * With nothing stored for this device, first try the tap's records on other devices of the
   * platform, tapping without a model only when all the evidence agrees, and then asking no `verify`
   * (docs/transfer.md). Default true.
   */
  transfer?: boolean;
  /** Total time budget of the call in ms (waiting for the screen, model calls, verify). Default 30000. */
  timeout?: number;
  /**
   * When a screen without the stored crop counts as final (docs/api.md "When a call fails"): once
   * `shots` screenshots in a row are identical outside the system bars and stay so for `graceMs`,
   * the tap fails (or heals) then. Default `{ shots: 2, graceMs: 1000 }`.
   */
  settle?: SettleOptions;
  /** Aborts the call. */
  signal?: AbortSignal;
  /**
   * Scroll to find the element: when it is not on the screen, swipe and look again (docs/api.md
   * "Scrolling to find"). `true` scrolls down up to 5 times. The list is taken to start at its
   * top (or stated edge) unless `fromStart` is set. Replays swipe the stored swipes without a model.
   */
  scroll?: boolean | ScrollOptions;
}

/** Rungs of a tap's heal ladder that may be switched off (docs/heal.md). */
export interface HealRungs {
  /** Replay a stored crop found a few pixels off its place, tapping the point moved the same. Default true. */
  nearby?: boolean;
  /** Search the whole screen for the stored crop before asking the model. Default true. */
  search?: boolean;
  /** Look for the stored accessibility element in the driver's page source before asking the model. Default true. */
  accessibility?: boolean;
}

/** What `tap` did. */
export interface TapResult {
  /** `learned`: the model located the element; `replayed`: the stored value was used; `healed`: re-located and updated. */
  outcome: "learned" | "replayed" | "healed";
  /** Where it tapped, in screenshot pixels. */
  point: Point;
  /** Model requests this call made (0 for a replay). */
  aiCalls: number;
}

/**
 * Options of `toMatchScreenshot`. A comparison ignores the status bar, the navigation bar /
 * home indicator, the baseline's stored `varying` regions and `mask`; it fails when more
 * pixels differ than allowed: with both `maxDiffPixels` and `maxDiffPixelRatio` set the
 * stricter applies, with one set only that one, with neither `maxDiffPixelRatio` 0.001
 * (as Playwright's `toHaveScreenshot` combines them).
 */
export interface ScreenshotOptions {
  /**
   * When pixels still differ once the screen has settled (or at half the time budget), ask the model (with the diff image)
   * whether it is a real change; if not, store the new baseline, keeping the previous one.
   * Ignored in mode `replay`.
   */
  autoHeal?: boolean;
  /** Total time budget of the call in ms (waiting for a stable or matching screen, model calls). Default 30000. */
  timeout?: number;
  /**
   * When a screen that does not match counts as final (docs/api.md "When a call fails"): once
   * `shots` screenshots in a row are identical outside the masks and stay so for `graceMs`, the
   * comparison fails (or heals) then, as Playwright's `toHaveScreenshot` does. Default `{ shots: 2, graceMs: 0 }`.
   */
  settle?: SettleOptions;
  /** Aborts the call. */
  signal?: AbortSignal;
  /** Per-pixel colour tolerance, 0 (exact) to 1 (anything); pixelmatch's `threshold`. Default 0.1. */
  threshold?: number;
  /** Differing pixels allowed, a whole number. Default: not set (`maxDiffPixelRatio` 0.001 applies). */
  maxDiffPixels?: number;
  /** Differing pixels allowed as a ratio of all the screenshot's pixels, 0-1. Default 0.001 (0.1%) if neither set. */
  maxDiffPixelRatio?: number;
  /**
   * Extra regions to ignore, on top of the system bars and the stored varying regions (docs/api.md,
   * "Masks"): boxes in screenshot pixels; selectors (`"~price"`, anything `driver.$()` accepts) and
   * WebdriverIO elements, found again at every comparison; `{ selector | element, optional: true }`
   * for one that may be absent; `{ prompt }`, located by the model when the baseline is judged.
   */
  mask?: MaskEntry[];
  /**
   * Compare the whole page, not only the screen (docs/api.md "Whole-page baselines"): scroll the
   * screen's content from the top with the scroll tap's swipes, stitch the screens into one tall
   * baseline (rows that do not move, a sticky header or footer, kept once) and compare page by page.
   * `true` looks at up to 10 screens and 20000 px. Masks are then boxes in page pixels only.
   */
  fullPage?: boolean | FullPageOptions;
}

/** What `toMatchScreenshot` did. */
export interface ScreenshotResult {
  /**
   * `matched` the stored baseline (no model call), `stored` a new baseline the model judged
   * against the prompt, or `healed`: the model found a pixel difference not a real change and
   * the new screenshot became the baseline; `updated`: in mode `update`, the settled screenshot replaced a
   * mismatching baseline without a model (pending review).
   */
  outcome: "matched" | "stored" | "healed" | "updated";
  /** Model requests this call made (0 for a pixel match). */
  aiCalls: number;
  /** Pixels that differed from the baseline outside the masks (0 when newly stored; before the heal when healed). */
  diffPixels: number;
}

/** Options of `find`: a tap's, without `verify` or `scroll` (docs/api.md "Finding elements"). */
export type FindOptions = Pick<TapOptions, "autoHeal" | "heal" | "transfer" | "timeout" | "settle" | "signal">;

/**
 * The element `find` answers where no element but a container is under the stored point (a
 * canvas, a game, a Flutter view without semantics): its `click` taps the stored point.
 */
export interface PointElement {
  readonly pointOnly: true;
  /** The stored point, in screenshot pixels. */
  readonly point: Point;
  /** Tap the point. */
  click(): Promise<void>;
}

/** What `find` did, and the element. */
export interface FindResult<E = object> {
  /** As `tap`'s: `learned`, `replayed` or `healed` (`updated` in mode update). */
  outcome: TapResult["outcome"];
  aiCalls: number;
  /** The stored point, in screenshot pixels. */
  point: Point;
  /** The driver's own element at the point, or a {@link PointElement} when there is none. */
  element: E | PointElement;
}

const FIND_OPTIONS = ["autoHeal", "heal", "transfer", "timeout", "signal", "settle"];

/** `find`'s description and options, checked. */
export function checkFindInput(description: unknown, options: unknown) {
  const opts = checkKnownOptions(options, FIND_OPTIONS, "find");
  const params: FindParams = {
    prompt: checkText(description, "find's description", '"the promo code field"'),
    autoHeal: checkBoolean(opts.autoHeal, "autoHeal"),
    heal: checkHealRungs(opts.heal),
    transfer: opts.transfer === undefined ? true : checkBoolean(opts.transfer, "transfer"),
    settle: checkSettle(opts.settle, DEFAULT_SETTLE.tap),
  };
  return { params, timeout: checkTimeout(opts.timeout), signal: checkSignal(opts.signal) };
}

const TAP_OPTIONS = ["verify", "autoHeal", "heal", "transfer", "timeout", "signal", "scroll", "settle"];

/** `tap`'s prompt and options, checked: the tap's parameters and its time budget. */
export function checkTapInput(prompt: unknown, options: unknown) {
  const opts = checkKnownOptions(options, TAP_OPTIONS, "tap");
  const params: TapParams = {
    prompt: checkText(prompt, "tap's prompt", '"the checkout button"'),
    verify: checkOptionalText(opts.verify, "verify", '"the order summary is shown"'),
    autoHeal: checkBoolean(opts.autoHeal, "autoHeal"),
    scroll: checkScroll(opts.scroll),
    heal: checkHealRungs(opts.heal),
    transfer: opts.transfer === undefined ? true : checkBoolean(opts.transfer, "transfer"),
    settle: checkSettle(opts.settle, DEFAULT_SETTLE.tap),
  };
  return { params, timeout: checkTimeout(opts.timeout), signal: checkSignal(opts.signal) };
}

const HEAL_RUNGS = ["nearby", "search", "accessibility"] as const;

/** The `heal` option of `tap`: every rung on unless switched off. */
export function checkHealRungs(value: unknown): { nearby: boolean; search: boolean; accessibility: boolean } {
  const rungs = checkKnownOptions(value, [...HEAL_RUNGS], "tap's heal");
  return {
    nearby: rungs.nearby === undefined ? true : checkBoolean(rungs.nearby, "heal.nearby"),
    search: rungs.search === undefined ? true : checkBoolean(rungs.search, "heal.search"),
    accessibility: rungs.accessibility === undefined ? true : checkBoolean(rungs.accessibility, "heal.accessibility"),
  };
}

/** Options of `controls`. */
export interface ControlsOptions {
  /**
   * Values typed into the screen (as `act` takes them): a control whose text shows one says
   * `[value <name>]` instead.
   */
  values?: ActOptions["values"];
  /** Ms for reading the page source. Default 30000. */
  timeout?: number;
  signal?: AbortSignal;
}

/** One visible, labelled control of the screen, as `act` observes it. */
export interface ScreenControl {
  /** act's role: `button`, `field`, `link`, `switch`, `checkbox`, `radio`, `select`, `option`, `scrollable`, `other`. */
  kind: ControlRole;
  /** Its label: the text it shows, its accessibility label, or a field's hint; never a field's typed text. */
  text: string;
  /** Its id (Android `resource-id`, iOS `name`) when no other control shares it. */
  id?: string;
  /** In screenshot pixels. */
  bounds: Rect;
  checked?: boolean;
  selected?: boolean;
  focused?: boolean;
}

export function checkControlsInput(options: unknown) {
  const opts = checkKnownOptions(options, ["values", "timeout", "signal"], "controls");
  return {
    values: checkValues(opts.values).values,
    timeout: checkTimeout(opts.timeout),
    signal: checkSignal(opts.signal),
  };
}
