/**
 * Binds the flows to one device adapter (docs/design.md section 1); each platform entry
 * exports what {@link createPlatformApi} returns. Input is checked here, before any device or
 * model call; each call's log entry is finished here, once.
 */
import type { CallApi } from "../ground/log.js";
import { Call } from "../run/call.js";
import { CallLog, type CallPlace } from "../run/call-log.js";
import { resolveConfig, type ResolvedConfig } from "../config/config.js";
import { Deadline } from "../ground/deadline.js";
import type { DeviceAdapter } from "../device/description.js";
import type { Done } from "../run/lifecycle.js";
import { OpenedDevice } from "../run/opened-device.js";
import { scopeConfig, storedKeyOf } from "../run/scope.js";
import {
  checkFindInput,
  checkTapInput,
  type FindOptions,
  type FindResult,
  type ScreenshotOptions,
  type ScreenshotResult,
  type TapOptions,
  type TapResult,
} from "./options.js";
import { runTap, tapKeyOf } from "../flows/tap/tap-kind.js";
import { findKeyOf, runFind, type FindDone } from "../flows/find/find.js";
import { baselineKeyOf, runScreenshot } from "../flows/screenshot/baseline-kind.js";
import { checkScreenshotInput } from "../flows/screenshot/input.js";
import { InputError } from "../ground/errors.js";
import type { ElementTarget } from "../device/description.js";
import { checkSatisfyInput, runSatisfy, type SatisfyOptions, type SatisfyResult } from "../flows/satisfy/satisfy.js";
import { actKeyOf, runAct } from "../flows/act/act-kind.js";
import { controlsCall } from "./controls-call.js";
import type { ControlsOptions, ScreenControl } from "./options.js";
import { checkActInput, type ActOptions, type ActResult } from "../flows/act/act-params.js";

/** What `expect(driver)` returns. `.not` is deliberately not offered: a baseline records what should be there. */
export interface ScreenshotMatchers {
  /**
   * Compare the screen with the baseline stored for `name` on this device; with none,
   * the model judges the screen against `prompt` (and other devices' baselines) and it is stored.
   */
  toMatchScreenshot(name: string, prompt: string, options?: ScreenshotOptions): Promise<ScreenshotResult>;
}

/** Semantic assertions (docs/api.md, "Semantic assertions"). */
export interface SatisfyMatchers {
  /**
   * Assert that the element (or the screen) satisfies `statement`: the model judges its text and
   * accessibility tree once per distinct snapshot, and the stored judgment is reused with no model call.
   */
  toSatisfy(statement: string, options?: SatisfyOptions): Promise<SatisfyResult>;
}

/** What `expect(driver | element)` returns: screenshot assertions (drivers only) and `toSatisfy`, with `.not`. */
export interface Matchers extends ScreenshotMatchers, SatisfyMatchers {
  /** The negated semantic assertion: passes when P(false) reaches the threshold. */
  not: SatisfyMatchers;
}

/** The API of one platform entry: `tap` and `expect`, bound to a device adapter. */
export interface PlatformApi {
  /** Tap the element `prompt` describes; see `tapshot/android`'s `tap`. */
  tap(driver: unknown, prompt: string, options?: TapOptions): Promise<TapResult>;
  /**
   * The element `description` names, as the driver's own element (docs/api.md "Finding elements"):
   * located once per device model and OS, stored as a locator, replayed without a model.
   */
  find(driver: unknown, description: string, options?: FindOptions): Promise<FindResult>;
  /** Assertions on this driver's screen, or on an element (a WebdriverIO element) for `toSatisfy`. */
  expect(subject: unknown): Matchers;
  /** Reach a goal in words with the screen's controls; see `tapshot/android`'s `act`. */
  act(driver: unknown, goal: string, options?: ActOptions): Promise<ActResult>;
  /** The screen's visible, labelled controls as `act` sees them: the page source only, no model, no log entry. */
  controls(driver: unknown, options?: ControlsOptions): Promise<ScreenControl[]>;
}

/** One call of a flow: its store key on the described device, and the flow itself. */
interface Flow<R> {
  keyOf(call: Call): string;
  run(call: Call, key: string): Promise<Done<R>>;
}

/** One public call: which API, about what, on which driver, within which budget, running which flow. */
interface FlowCall<R> {
  api: CallApi;
  /** The prompt or baseline name, for the log. */
  subject: string;
  driver: unknown;
  budget: { timeout: number; signal: AbortSignal | undefined };
  flow: Flow<R>;
}

/** Runs one public call through its flow; see {@link createPlatformApi}. */
type RunFlow = <R>(call: FlowCall<R>) => Promise<R & { outcome: Done<R>["outcome"]; aiCalls: number }>;

/** The API for devices `adapter` opens: what a runner uses to drive another kind of device. */
export function createPlatformApi(adapter: DeviceAdapter): PlatformApi {
  const open = deviceOpener(adapter);
  const run = flowRunner(open);
  return {
    tap: (driver, prompt, options) => tapCall(run, driver, prompt, options),
    find: (driver, description, options) => findCall({ run, open }, driver, description, options),
    act: (driver, goal, options) => actCall(run, driver, goal, options),
    controls: (driver, options) => controlsCall(open, driver, options),
    expect: (subject) => matchersOf({ run, adapter }, subject),
  };
}

/** One opened device per driver object: what the engine read about a device is kept per session. */
function deviceOpener(adapter: DeviceAdapter): (driver: unknown) => OpenedDevice {
  const devices = new WeakMap<object, OpenedDevice>();
  return (driver) => {
    const session = adapter.open(driver);
    const key = driver as object;
    let opened = devices.get(key);
    if (!opened) devices.set(key, (opened = new OpenedDevice(session)));
    return opened;
  };
}

/**
 * Run one public call: its config scoped to the session's project and app, its deadline, its log
 * entry (finished as done or failed, with the stored key), and the flow itself.
 */
function flowRunner(open: (driver: unknown) => OpenedDevice): RunFlow {
  return async <R>({ api, subject, driver, budget: { timeout, signal }, flow }: FlowCall<R>) => {
    const opened = open(driver);
    const config = resolveConfig(driver);
    const deadline = new Deadline(timeout, `${api} "${subject}"`, signal);
    const log = new CallLog(api, subject, config);
    const place: CallPlace = {};
    let scoped: ResolvedConfig | undefined;
    try {
      const note = (m: string) => log.note(m);
      scoped = await scopeConfig(config, opened, { deadline, note });
      const call = new Call(log, scoped, deadline, opened, await opened.describe(note));
      place.device = call.deviceSlug;
      const key = flow.keyOf(call);
      // toSatisfy's key depends on what it sees: its judgments are named in its detail and errors instead.
      if (key) place.key = key;
      const done = await flow.run(call, key);
      place.device = call.deviceSlug;
      if (place.key) place.key = storedKeyOf(scoped, place.key);
      log.finish(done.outcome, done.detail, place);
      return { ...done.result, outcome: done.outcome, aiCalls: log.aiCalls };
    } catch (thrown) {
      const error = opened.blame(thrown);
      if (place.key && scoped) place.key = storedKeyOf(scoped, place.key);
      log.fail(error, place);
      throw error;
    } finally {
      deadline.dispose();
    }
  };
}

async function tapCall(run: RunFlow, driver: unknown, prompt: string, options?: TapOptions): Promise<TapResult> {
  const { params, timeout, signal } = checkTapInput(prompt, options);
  const result = await run({
    api: "tap",
    subject: params.prompt,
    driver,
    budget: { timeout, signal },
    flow: { keyOf: (call) => tapKeyOf(call, params), run: (call, key) => runTap(call, key, params) },
  });
  return result as TapResult;
}

/** `find`: the driver's element, or a point element whose click taps the stored point when the driver has none. */
async function findCall(
  { run, open }: { run: RunFlow; open: (driver: unknown) => OpenedDevice },
  driver: unknown,
  description: string,
  options?: FindOptions,
): Promise<FindResult> {
  const { params, timeout, signal } = checkFindInput(description, options);
  const result = await run<FindDone>({
    api: "find",
    subject: params.prompt,
    driver,
    budget: { timeout, signal },
    flow: { keyOf: (call) => findKeyOf(call, params), run: (call, key) => runFind(call, key, params) },
  });
  const { outcome, aiCalls, point, element } = result;
  const opened = open(driver);
  const pointElement = { pointOnly: true as const, point, click: () => opened.tap(point) };
  return { outcome: outcome as FindResult["outcome"], aiCalls, point, element: element ?? pointElement };
}

async function actCall(run: RunFlow, driver: unknown, goal: string, options?: ActOptions): Promise<ActResult> {
  const { params, timeout, signal } = checkActInput(goal, options);
  const result = await run({
    api: "act",
    subject: params.goal,
    driver,
    budget: { timeout, signal },
    flow: { keyOf: (call) => actKeyOf(call, params), run: (call, key) => runAct(call, key, params) },
  });
  return result as ActResult;
}

/** `expect(subject)`: `toSatisfy` (and `.not`) on it, and `toMatchScreenshot` of its screen. */
function matchersOf({ run, adapter }: { run: RunFlow; adapter: DeviceAdapter }, subject: unknown): Matchers {
  const driver = subject;
  const satisfy = (not: boolean) => satisfyMatchers({ run, adapter, subject, not });
  return {
    ...satisfy(false),
    not: satisfy(true),
    async toMatchScreenshot(name, prompt, options) {
      const { params, timeout, signal } = checkScreenshotInput(name, prompt, options);
      const result = await run({
        api: "toMatchScreenshot",
        subject: params.name,
        driver,
        budget: { timeout, signal },
        flow: {
          keyOf: (call) => baselineKeyOf(call, params),
          run: (call, key) => runScreenshot(call, key, params),
        },
      });
      return result as ScreenshotResult;
    },
  };
}

/** `toSatisfy` (or, with `not`, `.not.toSatisfy`) on what `expect(subject)` names. */
function satisfyMatchers({
  run,
  adapter,
  subject,
  not,
}: {
  run: RunFlow;
  adapter: DeviceAdapter;
  subject: unknown;
  not: boolean;
}): SatisfyMatchers {
  return {
    async toSatisfy(statement, options) {
      const { driver, target } = await subjectOf(adapter, subject);
      const { params, timeout, signal } = checkSatisfyInput(statement, options, { target, not });
      const result = await run({
        api: "toSatisfy",
        subject: `${not ? "not: " : ""}${params.statement}`,
        driver,
        budget: { timeout, signal },
        flow: { keyOf: () => "", run: (call) => runSatisfy(call, params) },
      });
      return result as SatisfyResult;
    },
  };
}

/**
 * The driver and element `expect(subject)` names: a WebdriverIO element (awaited when it is a
 * promise) belongs to the driver the adapter finds for it; anything else is taken as the driver.
 */
async function subjectOf(
  adapter: DeviceAdapter,
  subject: unknown,
): Promise<{ driver: unknown; target: ElementTarget | undefined }> {
  if (typeof subject === "string") {
    throw new InputError(
      `expect("${subject}") names no device: pass the driver and the selector, ` +
        `expect(driver).toSatisfy(statement, { selector: "${subject}" }), or a WebdriverIO element.`,
    );
  }
  const value = subject && typeof (subject as PromiseLike<unknown>).then === "function" ? await subject : subject;
  const driver = adapter.driverOf?.(value);
  return driver ? { driver, target: { element: value as object } } : { driver: value, target: undefined };
}
