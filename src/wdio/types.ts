/*
 * The types the `tapshot/wdio` entry adds to WebdriverIO, expect-webdriverio and Jest
 * (the usual `declare global` augmentations), so `browser.aiTap` and
 * `expect(browser).toMatchAiScreenshot` type-check in test files.
 */
import type {
  FindOptions,
  PointElement,
  ActOptions,
  ActResult,
  SatisfyOptions,
  SatisfyResult,
  ScreenshotOptions,
  ScreenshotResult,
  TapOptions,
  TapResult,
} from "../core/engine/options.js";
import type { AiSatisfyOptions } from "./commands.js";

/** `toMatchAiScreenshot`'s arguments: an optional baseline name (default: from the test title), the prompt, options. */
export interface AiScreenshotMatcher<R> {
  /**
   * Compare the screen with the baseline stored for `name` on this device; with none, the model
   * judges the screen against `prompt` and it is stored. Without `name`, the name comes from the
   * test's full title (`"cart shows two items"` -> `cart-shows-two-items`; a second call in the
   * same test gets `-2`).
   */
  toMatchAiScreenshot(name: string, prompt: string, options?: ScreenshotOptions): R;
  toMatchAiScreenshot(prompt: string, options?: ScreenshotOptions): R;
}

/** `toSatisfyAi`: tapshot's `toSatisfy` on a browser (the screen), an element or a selector; `.not` negates. */
export interface AiSatisfyMatcher<R> {
  /** The element or screen satisfies `statement`, judged once per distinct snapshot (docs/api.md). */
  toSatisfyAi(statement: string, options?: SatisfyOptions): R;
}

/** The commands the service (or `addAiCommands`) adds to a session. */
export interface AiCommands {
  /** tapshot's `tap` on this session: see docs/api.md. */
  aiTap(prompt: string, options?: TapOptions): Promise<TapResult>;
  /**
   * tapshot's `find` on this session (docs/api.md "Finding elements"): the element the description
   * names, as a WebdriverIO element, or a `PointElement` where no element is under the stored point.
   */
  aiFind(description: string, options?: FindOptions): Promise<WebdriverIO.Element | PointElement>;
  /** tapshot's `toMatchScreenshot` on this session; throws on a mismatch (see docs/api.md). */
  aiMatchScreenshot(name: string, prompt: string, options?: ScreenshotOptions): Promise<ScreenshotResult>;
  /** tapshot's `toSatisfy` on this session's screen, or on `element` / `selector`; throws when it fails. */
  aiSatisfy(statement: string, options?: AiSatisfyOptions): Promise<SatisfyResult>;
  /**
   * tapshot's `ai.act` on this session: reach `goal` with the screen's controls, decided by the model
   * once per device and replayed after without it; `values` are typed verbatim and never leave the
   * device (docs/api.md, "ai.act").
   */
  aiAct(goal: string, options?: ActOptions): Promise<ActResult>;
}

/** The same commands on a multiremote browser: run on every instance, one result per instance. */
export interface MultiRemoteAiCommands {
  aiTap(prompt: string, options?: TapOptions): Promise<TapResult[]>;
  aiFind(description: string, options?: FindOptions): Promise<(WebdriverIO.Element | PointElement)[]>;
  aiMatchScreenshot(name: string, prompt: string, options?: ScreenshotOptions): Promise<ScreenshotResult[]>;
  aiSatisfy(statement: string, options?: AiSatisfyOptions): Promise<SatisfyResult[]>;
  aiAct(goal: string, options?: ActOptions): Promise<ActResult[]>;
}

/* eslint-disable @typescript-eslint/no-empty-object-type -- declaration merging adds members through extends */
// webdriverio exports its Browser interface apart from the global one; both get the commands, so a
// `Browser` imported from "webdriverio" still fits where WebdriverIO.Browser is expected.
declare module "webdriverio" {
  interface Browser extends AiCommands {}
  interface MultiRemoteBrowser extends MultiRemoteAiCommands {}
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace WebdriverIO {
    interface Browser extends AiCommands {}
    interface MultiRemoteBrowser extends MultiRemoteAiCommands {}
  }
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace ExpectWebdriverIO {
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    interface Matchers<R extends void | Promise<void>, T>
      extends AiScreenshotMatcher<Promise<void>>, AiSatisfyMatcher<Promise<void>> {}
  }
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace jest {
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    interface Matchers<R, T = {}> extends AiScreenshotMatcher<Promise<R>>, AiSatisfyMatcher<Promise<R>> {}
  }
}
