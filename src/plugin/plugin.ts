/*
 * The Appium 3 server plugin `tapshot`: the execute methods `tapshot: tap`,
 * `tapshot: matchScreenshot`, `tapshot: satisfy` and `tapshot: act` for every W3C client (docs/plugin.md), and the
 * `-tapshot` locator strategy of find element(s) (src/plugin/find-element.ts).
 *
 * Appium builds one instance per session (`new Plugin(name, cliArgs, driverId)`) and, for a
 * command the plugin has a method of, calls it with `(next, driver, ...commandArgs)`: `next` is
 * the default handling (for `execute`, the driver's own execute or the proxy to its server),
 * `driver` the session's driver object. The plugin answers its four scripts itself, without
 * `next`, and hands every other script to `next`. A client's copy of a command that just failed
 * gets the same failure without a second run (src/plugin/resent-commands.ts).
 *
 * The class extends Appium's `BasePlugin` when appium can be loaded, and a stand-in with the same
 * constructor otherwise, so tapshot users who never install appium still import the package
 * (src/plugin/plugin-base.ts). W3C errors are matched by their own `error` and `w3cStatus`
 * properties (src/plugin/w3c-error.ts).
 */
import type { PlatformApi } from "../core/engine/engine.js";
import { InputError } from "../core/ground/errors.js";
import { apiFor } from "./adapters.js";
import { sessionOf, type AppiumDriver } from "./driver-session.js";
import { applyPluginArgs, type PluginArgs } from "./settings.js";
import { toFindW3CError, toW3CError } from "./w3c-error.js";
import {
  findByDescription,
  forgetPointElements,
  pointElementCommand,
  pointElementOf,
  TAPSHOT_STRATEGY,
} from "./find-element.js";
import { commandKey, ResentCommands } from "./resent-commands.js";
import { PLUGIN_BASE } from "./plugin-base.js";

/** The execute method names. */
export const TAP_SCRIPT = "tapshot: tap";
export const MATCH_SCREENSHOT_SCRIPT = "tapshot: matchScreenshot";
export const SATISFY_SCRIPT = "tapshot: satisfy";
export const ACT_SCRIPT = "tapshot: act";

/** Parameters of each execute method: the required ones first, as Appium's execute method maps list them. */
const PARAMS = {
  [TAP_SCRIPT]: { required: ["prompt"], optional: ["verify", "autoHeal", "heal", "scroll", "timeout"] },
  [MATCH_SCREENSHOT_SCRIPT]: {
    required: ["name", "prompt"],
    optional: ["autoHeal", "threshold", "maxDiffPixels", "maxDiffPixelRatio", "mask", "timeout"],
  },
  [SATISFY_SCRIPT]: {
    required: ["statement"],
    optional: ["selector", "not", "threshold", "context", "screenshot", "ignore", "timeout"],
  },
  [ACT_SCRIPT]: { required: ["goal"], optional: ["values", "maxSteps", "timeout", "autoHeal"] },
} as const;

type Script = keyof typeof PARAMS;

/** A minimal parameters object of each script, for error messages. */
const EXAMPLES: Record<Script, string> = {
  [TAP_SCRIPT]: '{ "prompt": "the checkout button" }',
  [MATCH_SCREENSHOT_SCRIPT]: '{ "name": "cart", "prompt": "the cart" }',
  [SATISFY_SCRIPT]: '{ "statement": "the cart shows 2 items" }',
  [ACT_SCRIPT]: '{ "goal": "sign in", "values": { "email": "…", "password": "…" } }',
};

const isScript = (script: unknown): script is Script => typeof script === "string" && Object.hasOwn(PARAMS, script);

/**
 * What a client sent, for an error: as JSON, but an act's arguments only by their shape, since
 * they may hold the values to type (which never appear in an error).
 */
function sentArgs(script: Script, list: unknown[]): string {
  if (script !== ACT_SCRIPT) return JSON.stringify(list);
  const kind = (a: unknown) => (a === null ? "null" : Array.isArray(a) ? "array" : typeof a);
  const shapes = list.map((a) => `${/^[aeiou]/.test(kind(a)) ? "an" : "a"} ${kind(a)}`);
  return `${list.length} argument${list.length === 1 ? "" : "s"} (${shapes.join(", ")})`;
}

/** The one parameters object of an execute method; an InputError saying what was sent otherwise. */
export function executeParams(script: Script, args: unknown): Record<string, unknown> {
  const list = Array.isArray(args) ? args : args === undefined ? [] : [args];
  const params = list[0] ?? {};
  const spec = PARAMS[script];
  const example = EXAMPLES[script];
  if (list.length > 1 || typeof params !== "object" || params === null || Array.isArray(params)) {
    throw new InputError(
      `${script} takes one object of parameters, e.g. ${example}; it got ${sentArgs(script, list)}.`,
    );
  }
  const known: readonly string[] = [...spec.required, ...spec.optional];
  const unknown = Object.keys(params).filter((k) => !known.includes(k));
  if (unknown.length) {
    throw new InputError(`${script} has no parameter ${unknown.join(", ")}; its parameters are ${known.join(", ")}.`);
  }
  const missing = spec.required.filter((k) => (params as Record<string, unknown>)[k] === undefined);
  if (missing.length) throw new InputError(`${script} needs ${missing.join(" and ")}, e.g. ${example}.`);
  return params as Record<string, unknown>;
}

type Next = () => Promise<unknown>;

/**
 * One controller per session id, aborted when the session is deleted, so no tapshot call outlives
 * its session. Kept by id, not per plugin instance: Appium may hand one instance to two sessions
 * created at the same time (it promotes its sessionless instances to the session created).
 */
const endings = new Map<string, AbortController>();

function endingOf(sessionId: string): AbortSignal {
  let controller = endings.get(sessionId);
  if (!controller) endings.set(sessionId, (controller = new AbortController()));
  return controller.signal;
}

/** The last failed command of each session, answered again to a client that re-sends it. */
const resent = new ResentCommands();

function endSession(sessionId: unknown, why: string): void {
  if (typeof sessionId !== "string") return;
  resent.forget(sessionId);
  forgetPointElements(sessionId);
  endings.get(sessionId)?.abort(new Error(why));
  endings.delete(sessionId);
}

/** The tapshot plugin; Appium finds it by package.json's `appium.mainClass`. */
export class TapshotPlugin extends PLUGIN_BASE.base {
  /** No routes of its own: the plugin adds execute methods and a locator strategy only. */
  static newMethodMap = {};
  /** The execute methods, as Appium lists them (its `executeMethodMap` shape). */
  static executeMethodMap = {
    [TAP_SCRIPT]: { command: "tap", params: PARAMS[TAP_SCRIPT] },
    [MATCH_SCREENSHOT_SCRIPT]: { command: "matchScreenshot", params: PARAMS[MATCH_SCREENSHOT_SCRIPT] },
    [SATISFY_SCRIPT]: { command: "satisfy", params: PARAMS[SATISFY_SCRIPT] },
    [ACT_SCRIPT]: { command: "act", params: PARAMS[ACT_SCRIPT] },
  };

  declare cliArgs: PluginArgs;

  constructor(name: string, cliArgs: PluginArgs = {}, driverId: string | null = null) {
    super(name, cliArgs ?? {}, driverId);
    this.cliArgs = cliArgs ?? {};
  }

  /** W3C `execute/sync`: the plugin's scripts here, every other script to the driver. */
  async execute(next: Next, driver: AppiumDriver, script: unknown, args: unknown): Promise<unknown> {
    if (!isScript(script)) return next();
    // A client re-sending this command after its failure gets that failure, not a second run.
    return resent.run(driver?.sessionId ?? "", commandKey(script, args), () => this.run(driver, script, args));
  }

  private async run(driver: AppiumDriver, script: Script, args: unknown): Promise<unknown> {
    try {
      applyPluginArgs(this.cliArgs);
      const params = executeParams(script, args);
      const session = sessionOf(driver);
      const api = apiFor(session.capabilities as Record<string, unknown>);
      const signal = endingOf(session.sessionId);
      if (script === SATISFY_SCRIPT) return await satisfy(api, session, params, signal);
      if (script === ACT_SCRIPT) return await act(api, session, params, signal);
      return script === TAP_SCRIPT
        ? await tap(api, session, params, signal)
        : await match(api, session, params, signal);
    } catch (error) {
      throw toW3CError(error);
    }
  }

  /**
   * W3C Find Element: the `-tapshot` strategy here (docs/plugin.md "Finding elements"), every other
   * strategy to the driver. Appium hands a plugin the command even when the driver proxies it
   * (base-driver's protocol layer collects the proxied answer for `next` instead).
   */
  async findElement(next: Next, driver: AppiumDriver, strategy: unknown, selector: unknown): Promise<unknown> {
    if (strategy !== TAPSHOT_STRATEGY) return next();
    const answer = await this.findOnce(driver, selector);
    if ("missing" in answer) throw answer.missing;
    return answer.found;
  }

  /** W3C Find Elements: the one `-tapshot` element, or none when it is missing. */
  async findElements(next: Next, driver: AppiumDriver, strategy: unknown, selector: unknown): Promise<unknown> {
    if (strategy !== TAPSHOT_STRATEGY) return next();
    const answer = await this.findOnce(driver, selector);
    return "missing" in answer ? [] : [answer.found];
  }

  /**
   * A find whose failure a client's re-sent copy gets without a second run (resent-commands.ts),
   * except a missing element: a client's wait sends the same find again on purpose, to look again.
   */
  private findOnce(driver: AppiumDriver, selector: unknown): Promise<{ found: unknown } | { missing: unknown }> {
    return resent.run(driver?.sessionId ?? "", commandKey(`find ${TAPSHOT_STRATEGY}`, selector), async () => {
      try {
        return { found: await this.find(driver, selector) };
      } catch (error) {
        if ((error as { error?: unknown }).error === "no such element") return { missing: error };
        throw error;
      }
    });
  }

  private async find(driver: AppiumDriver, selector: unknown): Promise<unknown> {
    try {
      applyPluginArgs(this.cliArgs);
      const session = sessionOf(driver);
      const api = apiFor(session.capabilities as Record<string, unknown>);
      const signal = endingOf(session.sessionId);
      return await findByDescription({ api, session, description: selector, signal });
    } catch (error) {
      throw toFindW3CError(error);
    }
  }

  /** W3C Element Click: a `-tapshot` point element's click taps its point; every other element's goes to the driver. */
  async click(next: Next, driver: AppiumDriver, elementId: unknown): Promise<unknown> {
    return this.onPointElement(next, driver, elementId, "click");
  }

  /** W3C Get Element Rect of a point element: the point; others go to the driver. */
  async getElementRect(next: Next, driver: AppiumDriver, elementId: unknown): Promise<unknown> {
    return this.onPointElement(next, driver, elementId, "getElementRect");
  }

  /** Is Element Displayed of a point element: true; others go to the driver. */
  async elementDisplayed(next: Next, driver: AppiumDriver, elementId: unknown): Promise<unknown> {
    return this.onPointElement(next, driver, elementId, "elementDisplayed");
  }

  private async onPointElement(next: Next, driver: AppiumDriver, elementId: unknown, command: string) {
    const element = pointElementOf(driver?.sessionId ?? "", elementId);
    if (!element) return next();
    try {
      return await pointElementCommand(element, command);
    } catch (error) {
      throw toW3CError(error);
    }
  }

  /**
   * Ends the session's running tapshot calls, then deletes the session as usual. Appium hands
   * this umbrella command its own driver, with the session id as the last argument.
   */
  async deleteSession(next: Next, _driver: unknown, ...args: unknown[]): Promise<unknown> {
    endSession(args.at(-1), "the Appium session was deleted");
    return next();
  }

  /** Appium's hook for a session that ended on its own (a crashed driver): end its tapshot calls. */
  async onUnexpectedShutdown(driver: AppiumDriver): Promise<void> {
    endSession(driver?.sessionId, "the Appium session ended unexpectedly");
  }
}

async function tap(api: PlatformApi, session: object, params: Record<string, unknown>, signal: AbortSignal) {
  const { prompt, ...options } = params;
  const result = await api.tap(session, prompt as string, { ...options, signal });
  return { outcome: result.outcome, point: result.point, aiCalls: result.aiCalls };
}

async function match(api: PlatformApi, session: object, params: Record<string, unknown>, signal: AbortSignal) {
  const { name, prompt, ...options } = params;
  const result = await api.expect(session).toMatchScreenshot(name as string, prompt as string, { ...options, signal });
  return { outcome: result.outcome, aiCalls: result.aiCalls, diffPixels: result.diffPixels };
}

async function satisfy(api: PlatformApi, session: object, params: Record<string, unknown>, signal: AbortSignal) {
  const { statement, not, ...options } = params;
  if (not !== undefined && typeof not !== "boolean") {
    throw new InputError(`tapshot: satisfy's not must be true or false; got ${JSON.stringify(not)}.`);
  }
  const matchers = api.expect(session);
  const result = await (not ? matchers.not : matchers).toSatisfy(statement as string, { ...options, signal });
  return {
    outcome: result.outcome,
    probability: result.probability,
    model: result.model,
    reason: result.reason,
    evidenceHash: result.evidenceHash,
    aiCalls: result.aiCalls,
  };
}

/** `tapshot: act`: ai.act's result as JSON; the values are typed on the device and never answered. */
async function act(api: PlatformApi, session: object, params: Record<string, unknown>, signal: AbortSignal) {
  const { goal, ...options } = params;
  const result = await api.act(session, goal as string, { ...options, signal });
  return { outcome: result.outcome, steps: result.steps, history: result.history, aiCalls: result.aiCalls };
}
