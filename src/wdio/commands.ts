/**
 * `browser.aiTap`, `browser.aiFind`, `browser.aiMatchScreenshot`, `browser.aiSatisfy` and `browser.aiAct`: tapshot's calls as WebdriverIO commands, so a test
 * never passes the driver. The service adds them to every session; a standalone `remote()` session
 * gets them from {@link addAiCommands}. On a multiremote browser each instance gets them, and the
 * browser's own commands run them on every instance.
 */
import type { PlatformApi } from "../core/engine/engine.js";
import type {
  FindOptions,
  FindResult,
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
import { adapterFor, platformApiOf, type AdapterChoice } from "./platform-api.js";

/** One finished command, for reporters (heals become an Allure warning step). */
export type CommandResult =
  | { api: "tap"; subject: string; result: TapResult }
  | { api: "find"; subject: string; result: FindResult }
  | { api: "toMatchScreenshot"; subject: string; result: ScreenshotResult }
  | { api: "toSatisfy"; subject: string; result: SatisfyResult }
  | { api: "act"; subject: string; result: ActResult };

/** Options of `browser.aiSatisfy`: toSatisfy's, plus `not` and the element to judge (default: the screen). */
export interface AiSatisfyOptions extends SatisfyOptions {
  /** Assert the negation: passes when P(false) reaches the threshold. */
  not?: boolean;
  /** A WebdriverIO element of this session to judge, instead of `selector` or the whole screen. */
  element?: object;
}

type MatchArgs = [name: string, prompt: string, options?: ScreenshotOptions];

function isMultiremote(
  browser: WebdriverIO.Browser | WebdriverIO.MultiRemoteBrowser,
): browser is WebdriverIO.MultiRemoteBrowser {
  const b = browser as Partial<WebdriverIO.MultiRemoteBrowser>;
  return Array.isArray(b.instances) && typeof b.getInstance === "function";
}

/** Options of {@link addAiCommands}. */
export interface AiCommandOptions {
  /** The device adapter, or a function choosing one per session. Default: Android or iOS by `platformName`. */
  adapter?: AdapterChoice;
  /** Called after each successful command (the service reports heals through it). */
  onResult?: (done: CommandResult) => void | Promise<void>;
}

/**
 * Add `aiTap(prompt, options?)`, `aiMatchScreenshot(name, prompt, options?)`,
 * `aiSatisfy(statement, options?)` and `aiAct(goal, options?)` to a WebdriverIO browser (or every
 * instance of a multiremote browser).
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
  const calls = aiCalls(options);
  if (!isMultiremote(browser)) return addToBrowser(browser, calls);
  // Multiremote: each instance gets its own commands. The multiremote browser's addCommand would also
  // lift them onto the prototype its instances share, where they run with the multiremote browser as
  // `this`; so its fan-out commands are set on it directly.
  const instances = browser.instances.map((name) => browser.getInstance(name));
  for (const instance of instances) addAiCommands(instance, options);
  const all = <T>(each: (instance: WebdriverIO.Browser) => Promise<T>) => Promise.all(instances.map(each));
  Object.assign(browser, {
    aiTap: (prompt: string, tapOptions?: TapOptions) => all((i) => calls.tap(i, prompt, tapOptions)),
    aiFind: (description: string, findOptions?: FindOptions) => all((i) => calls.find(i, description, findOptions)),
    aiMatchScreenshot: (...args: MatchArgs) => all((i) => calls.matchScreenshot(i, ...args)),
    aiSatisfy: (statement: string, satisfyOptions?: AiSatisfyOptions) =>
      all((i) => calls.satisfy(i, statement, satisfyOptions)),
    aiAct: (goal: string, actOptions?: ActOptions) => all((i) => calls.act(i, goal, actOptions)),
  });
}

/** The five calls on one browser, each through that browser's own platform API, reported to `onResult`. */
function aiCalls(options: AiCommandOptions) {
  const apis = new WeakMap<object, PlatformApi>();
  const apiOf = (driver: WebdriverIO.Browser): PlatformApi => {
    let api = apis.get(driver);
    if (!api) apis.set(driver, (api = platformApiOf(adapterFor(driver, options.adapter))));
    return api;
  };
  return {
    async tap(driver: WebdriverIO.Browser, prompt: string, tapOptions?: TapOptions) {
      const result = await apiOf(driver).tap(driver, prompt, tapOptions);
      await options.onResult?.({ api: "tap", subject: prompt, result });
      return result;
    },
    // WebdriverIO's custom locators (addLocatorStrategy, custom$) run a script in the page, which a
    // native session has not: the element is found here, in the test's process, and handed back.
    async find(driver: WebdriverIO.Browser, description: string, findOptions?: FindOptions) {
      const result = await apiOf(driver).find(driver, description, findOptions);
      await options.onResult?.({ api: "find", subject: description, result });
      return result.element as WebdriverIO.Element | PointElement;
    },
    async matchScreenshot(driver: WebdriverIO.Browser, name: string, prompt: string, shotOptions?: ScreenshotOptions) {
      const result = await apiOf(driver).expect(driver).toMatchScreenshot(name, prompt, shotOptions);
      await options.onResult?.({ api: "toMatchScreenshot", subject: name, result });
      return result;
    },
    async satisfy(driver: WebdriverIO.Browser, statement: string, satisfyOptions: AiSatisfyOptions = {}) {
      const { not, element, ...rest } = satisfyOptions;
      const matchers = apiOf(driver).expect(element ?? driver);
      const result = await (not ? matchers.not : matchers).toSatisfy(statement, rest);
      await options.onResult?.({ api: "toSatisfy", subject: statement, result });
      return result;
    },
    async act(driver: WebdriverIO.Browser, goal: string, actOptions?: ActOptions) {
      const result = await apiOf(driver).act(driver, goal, actOptions);
      await options.onResult?.({ api: "act", subject: goal, result });
      return result;
    },
  };
}

/** The commands on one browser, each with the browser as `this`. */
function addToBrowser(browser: WebdriverIO.Browser, calls: ReturnType<typeof aiCalls>): void {
  browser.addCommand("aiTap", function (this: WebdriverIO.Browser, prompt: string, tapOptions?: TapOptions) {
    return calls.tap(this, prompt, tapOptions);
  });
  browser.addCommand("aiFind", function (this: WebdriverIO.Browser, description: string, findOptions?: FindOptions) {
    return calls.find(this, description, findOptions);
  });
  browser.addCommand("aiMatchScreenshot", function (this: WebdriverIO.Browser, ...args: MatchArgs) {
    return calls.matchScreenshot(this, ...args);
  });
  browser.addCommand(
    "aiSatisfy",
    function (this: WebdriverIO.Browser, statement: string, satisfyOptions?: AiSatisfyOptions) {
      return calls.satisfy(this, statement, satisfyOptions);
    },
  );
  browser.addCommand("aiAct", function (this: WebdriverIO.Browser, goal: string, actOptions?: ActOptions) {
    return calls.act(this, goal, actOptions);
  });
}
