/*
 * The session's own Appium driver object, seen as the slice of a session the Appium adapters use
 * (`AppiumSession` of the Appium adapter kit). Every command goes to the driver object directly,
 * never through Appium's HTTP routes. Appium runs a client's command through the plugins' methods
 * first and takes the session's command queue only inside the driver's `executeCommand`, at the
 * end of that chain, so an HTTP call from the plugin would not deadlock; it would wait in the
 * queue behind other clients' commands and pass through every plugin again. Calling the driver
 * skips both, as the plugin's own calls need.
 *
 * Each command is routed as Appium's own protocol layer routes it (base-driver's
 * `driverShouldDoJwpProxy`): a driver that proxies the route (Chromium to chromedriver,
 * UiAutomator2 to its server, XCUITest to WebDriverAgent) gets it through `proxyCommand`,
 * and a route the driver keeps for itself (its proxy avoid list) goes to its own method.
 */
import type { Rect } from "../core/ground/geometry.js";
import { DeviceError, InputError } from "../core/ground/errors.js";
import type { AppiumSession } from "../appium/index.js";
import { W3C_ELEMENT_KEY } from "../appium/element-at.js";
import { locatorOf } from "./locators.js";
import { asSensitive } from "./plugin-base.js";

/** The part of an Appium 3 driver instance (a `BaseDriver` subclass) the plugin calls. */
export interface AppiumDriver {
  sessionId: string | null;
  /** The session's capabilities as the driver keeps them: `appium:` stripped, other prefixes kept. */
  caps?: Record<string, unknown>;
  /** The driver's options: the capabilities plus what the driver chose, such as the device's `udid`. */
  opts?: Record<string, unknown>;
  /** Base path of the server's routes (`""` by default), which proxy avoid lists are matched without. */
  basePath?: string;
  proxyActive?(sessionId?: string): boolean;
  proxyRouteIsAvoided?(sessionId: string, method: string, url: string, body?: unknown): boolean;
  proxyCommand?(url: string, method: string, body?: unknown): Promise<unknown>;
  getScreenshot?(): Promise<string>;
  getWindowRect?(): Promise<Rect>;
  performActions?(actions: unknown[]): Promise<void>;
  releaseActions?(): Promise<void>;
  execute?(script: string, args: unknown[]): Promise<unknown>;
  getPageSource?(): Promise<string>;
  getCurrentContext?(): Promise<string | null>;
  /** W3C Find Element: `{ "element-6066-…": id }`; Appium's `BaseDriver` runs its `findElOrEls`. */
  findElement?(using: string, value: string): Promise<unknown>;
  /** W3C Find Elements: a list of element references. */
  findElements?(using: string, value: string): Promise<unknown>;
  /** W3C Get Element Rect, in the driver's tap units from the screen's corner. */
  getElementRect?(elementId: string): Promise<Rect>;
  /** W3C Get Active Element (`GET /element/active`, base-driver's command `active`). */
  active?(): Promise<unknown>;
  /** W3C Element Clear (`POST /element/:id/clear`, command `clear`). */
  clear?(elementId: string): Promise<unknown>;
  /** W3C Element Send Keys (`POST /element/:id/value`, command `setValue`: the payload's `text`, then the id). */
  setValue?(text: string, elementId: string): Promise<unknown>;
  /** W3C Back (`POST /back`, command `back`). */
  back?(): Promise<unknown>;
}

/** The W3C element reference key, and the older JSONWP one some drivers still send along. */

function elementIdOf(reference: unknown): string | undefined {
  const ref = (reference ?? {}) as Record<string, unknown>;
  const id = ref[W3C_ELEMENT_KEY] ?? ref.ELEMENT;
  return typeof id === "string" && id ? id : undefined;
}

type Verb = "GET" | "POST" | "DELETE";

/** One W3C command: its route under the session, and the driver's own method that serves it. */
interface Command {
  verb: Verb;
  path: string;
  body?: unknown;
  method: keyof AppiumDriver;
  args?: unknown[];
}

/** Whether Appium would proxy this route of the session rather than call the driver's method. */
function proxies(driver: AppiumDriver, sessionId: string, verb: Verb, path: string): boolean {
  if (typeof driver.proxyCommand !== "function" || driver.proxyActive?.(sessionId) !== true) return false;
  const url = `${driver.basePath ?? ""}/session/${sessionId}${path}`;
  return driver.proxyRouteIsAvoided?.(sessionId, verb, url) !== true;
}

async function send<T>(driver: AppiumDriver, command: Command): Promise<T> {
  const sessionId = driver.sessionId;
  if (!sessionId) throw new DeviceError("The Appium session has ended; tapshot needs a running session.");
  if (proxies(driver, sessionId, command.verb, command.path)) {
    return (await driver.proxyCommand!(`/session/${sessionId}${command.path}`, command.verb, command.body)) as T;
  }
  const own = driver[command.method];
  if (typeof own !== "function") {
    throw new DeviceError(
      `This Appium driver neither proxies ${command.verb} ${command.path} nor has a ${String(command.method)} method, ` +
        "which tapshot needs; update the driver, or check that it is a UiAutomator2, Espresso, XCUITest or Chromium driver.",
    );
  }
  return (await (own as (...args: unknown[]) => Promise<unknown>).apply(driver, command.args ?? [])) as T;
}

const sessions = new WeakMap<AppiumDriver, AppiumSession>();

/**
 * The session over `driver`, one object per driver object: the engine keeps what it read about a
 * device per session object, so every command of one Appium session must hand over the same one.
 */
export function sessionOf(driver: AppiumDriver): AppiumSession {
  let session = sessions.get(driver);
  if (!session) sessions.set(driver, (session = buildSession(driver)));
  return session;
}

/**
 * The capabilities the adapters read. A driver keeps the requested ones; what UiAutomator2 adds to
 * its createSession answer (deviceModel, pixelRatio, statBarHeight...) a client sees but the driver
 * does not keep, so the adapters read those from `mobile:` commands. The device serial the driver
 * chose (`opts.udid`, an emulator's `emulator-5554`) is added when the session did not ask for one.
 */
function capabilitiesOf(driver: AppiumDriver): Record<string, unknown> {
  const caps = driver.caps ?? {};
  const udid = driver.opts?.udid;
  return caps.udid === undefined && typeof udid === "string" && udid ? { ...caps, udid } : caps;
}

function buildSession(driver: AppiumDriver): AppiumSession {
  const caps = () => capabilitiesOf(driver);
  const platform = () => String(caps().platformName ?? "");
  const session = {
    get sessionId() {
      return driver.sessionId ?? "";
    },
    get capabilities() {
      return caps();
    },
    get isAndroid() {
      return /^android$/i.test(platform());
    },
    get isIOS() {
      return /^ios$/i.test(platform());
    },
    takeScreenshot: () => send<string>(driver, { verb: "GET", path: "/screenshot", method: "getScreenshot" }),
    getWindowRect: () => send<Rect>(driver, { verb: "GET", path: "/window/rect", method: "getWindowRect" }),
    performActions: (actions: unknown[]) =>
      send<void>(driver, {
        verb: "POST",
        path: "/actions",
        body: { actions },
        method: "performActions",
        args: [actions],
      }),
    releaseActions: () => send<void>(driver, { verb: "DELETE", path: "/actions", method: "releaseActions" }),
    execute: (script: string, ...args: unknown[]) =>
      send<unknown>(driver, {
        verb: "POST",
        path: "/execute/sync",
        body: { script, args },
        method: "execute",
        args: [script, args],
      }),
    getPageSource: () => send<string>(driver, { verb: "GET", path: "/source", method: "getPageSource" }),
    getAppiumContext: () => send<unknown>(driver, { verb: "GET", path: "/context", method: "getCurrentContext" }),
    ...elementCommands(driver),
    ...typingCommands(driver),
  };
  return session as unknown as AppiumSession;
}

/**
 * What `ai.act` types and presses with (src/appium/typing.ts), over the W3C routes of
 * @appium/base-driver's protocol/routes/w3c.js and the command each maps to. The typed text goes
 * to the driver only; it is in no error of this file, and `sendSecretKeys` runs marked sensitive, so
 * Appium's log masks the body it proxies.
 */
function typingCommands(driver: AppiumDriver) {
  const element = (id: string) => `/element/${encodeURIComponent(id)}`;
  return {
    getActiveElement: () => send<unknown>(driver, { verb: "GET", path: "/element/active", method: "active" }),
    elementClear: (id: string) =>
      send<unknown>(driver, { verb: "POST", path: `${element(id)}/clear`, body: {}, method: "clear", args: [id] }),
    elementSendKeys: (id: string, text: string) =>
      send<unknown>(driver, {
        verb: "POST",
        path: `${element(id)}/value`,
        body: { text },
        method: "setValue",
        args: [text, id],
      }),
    sendSecretKeys: (id: string, text: string) =>
      asSensitive(() =>
        send<unknown>(driver, {
          verb: "POST",
          path: `${element(id)}/value`,
          body: { text },
          method: "setValue",
          args: [text, id],
        }),
      ),
    back: () => send<unknown>(driver, { verb: "POST", path: "/back", body: {}, method: "back" }),
  };
}

/**
 * `$`, `$$` and `getElementRect` as the Appium adapter kit's element lookup calls them
 * (src/appium/element-rects.ts), over the driver's find-element and rect commands: `$` answers
 * `{ elementId }`, or, as WebdriverIO does for an element not found, `{ error }` (the kit throws
 * every error but "no such element" again).
 */
function elementCommands(driver: AppiumDriver) {
  const find = (path: "/element" | "/elements", selector: string) => {
    const { using, value } = locatorOf(selector);
    const method = path === "/element" ? "findElement" : "findElements";
    return send<unknown>(driver, { verb: "POST", path, body: { using, value }, method, args: [using, value] });
  };
  return {
    async $(selector: string) {
      try {
        return { selector, elementId: elementIdOf(await find("/element", selector)) };
      } catch (error) {
        if (error instanceof InputError) throw error;
        return { selector, error };
      }
    },
    async $$(selector: string) {
      const found = await find("/elements", selector);
      const ids = (Array.isArray(found) ? found : []).map(elementIdOf).filter((id) => id !== undefined);
      return ids.map((elementId) => ({ selector, elementId }));
    },
    getElementRect: (id: string) =>
      send<Rect>(driver, {
        verb: "GET",
        path: `/element/${encodeURIComponent(id)}/rect`,
        method: "getElementRect",
        args: [id],
      }),
  };
}
