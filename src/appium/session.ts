/*
 * The slice of a WebdriverIO session the Appium adapters use, and the checks that a driver is
 * such a session, of the right platform, in the native context.
 */
import type { Browser } from "webdriverio";
import type { Platform } from "../core/device/description.js";
import { DeviceError } from "../core/ground/errors.js";

/** The part of a WebdriverIO 9 `Browser` (an Appium session) the adapters call. */
export type AppiumSession = Pick<
  Browser,
  "sessionId" | "isAndroid" | "isIOS" | "getWindowRect" | "takeScreenshot" | "performActions" | "releaseActions"
> & {
  /** Session capabilities as the server returned them (vendor-prefixed or not). */
  readonly capabilities: object;
  execute(script: string, ...args: unknown[]): Promise<unknown>;
  /** `GET /source`: the accessibility tree as XML (every Appium driver serves it). */
  getPageSource?(): Promise<string>;
  /** Appium's `GET /context` (`NATIVE_APP`, `WEBVIEW_<id>`, `CHROMIUM`); sessions without it are taken as native. */
  getAppiumContext?(): Promise<unknown>;
  /** Finds an element (`toMatchScreenshot`'s selector masks); a session without it has no element masks. */
  $?: Browser["$"];
  /** Finds every element a selector matches (`toSatisfy` refuses several). */
  $$?: Browser["$$"];
  /** W3C `GET /element/{id}/rect`, in tap units from the screen's corner (iPad windows included). */
  getElementRect?: Browser["getElementRect"];
  /** W3C `GET /element/active`: the focused element (`ai.act`'s fill and clear). */
  getActiveElement?: () => Promise<unknown>;
  /** W3C Element Clear. */
  elementClear?: (elementId: string) => Promise<unknown>;
  /** W3C Element Send Keys (keys tapshot presses; values go through `$(…).addValue(text, { mask: true })`). */
  elementSendKeys?: (elementId: string, text: string) => Promise<unknown>;
  /**
   * Element Send Keys of a secret, where the session is no WebdriverIO client (the plugin inside
   * Appium): the command runs marked sensitive, so Appium's log masks its body.
   */
  sendSecretKeys?: (elementId: string, text: string) => Promise<unknown>;
  /** W3C Back (Android's Back key). */
  back?: () => Promise<unknown>;
};

const SESSION_METHODS = ["execute", "getWindowRect", "takeScreenshot", "performActions", "releaseActions"] as const;

/** What a platform accepts as a session. */
export interface SessionRequirement {
  platform: Platform;
  /** Entry name for messages, e.g. `tapshot/android`. */
  entry: string;
  /** Lower-case `automationName` values the adapter drives. */
  automationNames: string[];
  /** How the supported drivers are called in messages, e.g. "UiAutomator2 or Espresso". */
  driverLabel: string;
  /** What the driver does in a web context that breaks screenshots or taps, for the error. */
  inWebContext: string;
}

/** The native context's name in every Appium driver. */
export const NATIVE_CONTEXT = "NATIVE_APP";

/**
 * Fail with a DeviceError when the session is in a web context (a hybrid app's web view, a
 * browser session): there the drivers send screenshots, window sizes or taps to the web engine.
 * Appium answers `GET /context` from the driver's own state, so the check costs no device call.
 */
export async function assertNativeContext(driver: AppiumSession, need: SessionRequirement): Promise<void> {
  const context = await webContext(driver);
  if (!context) return;
  throw new DeviceError(
    `${need.entry} works in the native context; this session is in the "${context}" context, where ` +
      `${need.inWebContext}. Switch before tapshot calls with await driver.switchContext("${NATIVE_CONTEXT}"), ` +
      `and back after with await driver.switchContext("${context}").`,
  );
}

/** The session's context when it is not the native one (a webview), else `undefined`. */
async function webContext(driver: AppiumSession): Promise<string | undefined> {
  if (typeof driver.getAppiumContext !== "function") return undefined;
  let context: unknown;
  try {
    context = await driver.getAppiumContext();
  } catch {
    return undefined; // A driver without contexts is native.
  }
  return typeof context === "string" && context && context.toUpperCase() !== NATIVE_CONTEXT ? context : undefined;
}

/**
 * The session's page source, refused in a web context: there the driver serves the web page's
 * HTML (chromedriver's or Safari's document), not the accessibility tree the heal ladder reads.
 */
export async function nativePageSource(driver: AppiumSession): Promise<string> {
  const context = await webContext(driver);
  if (context)
    throw new DeviceError(`the session is in the "${context}" context, whose page source is the web page's HTML`);
  return driver.getPageSource!();
}

/**
 * Check that `driver` is a WebdriverIO session of an Appium driver for the platform;
 * throws a DeviceError that says what was found and what is expected.
 */
export function assertAppiumSession(driver: unknown, need: SessionRequirement): asserts driver is AppiumSession {
  const expected = `${need.entry} needs a WebdriverIO Browser connected to an Appium ${need.driverLabel} session`;
  if (typeof driver !== "object" || driver === null) {
    throw new DeviceError(`${expected}; got ${driver === null ? "null" : typeof driver}.`);
  }
  const session = driver as Partial<Record<string, unknown>>;
  const missing = SESSION_METHODS.filter((m) => typeof session[m] !== "function");
  if (typeof session.sessionId !== "string" || !session.sessionId || missing.length) {
    const lacks = [...(typeof session.sessionId === "string" && session.sessionId ? [] : ["sessionId"]), ...missing];
    throw new DeviceError(`${expected}; this object has no ${lacks.join(", ")}. Pass the driver/browser of your test.`);
  }
  const caps = (session.capabilities ?? {}) as object;
  const platformName = String(capability(caps, "platformName") ?? "");
  const flag = need.platform === "android" ? session.isAndroid : session.isIOS;
  const matches = flag === true || new RegExp(`^${need.platform}$`, "i").test(platformName);
  if (!matches) {
    const other = need.platform === "android" ? "tapshot/ios" : "tapshot/android";
    throw new DeviceError(
      `${expected}; this session's platformName is ${platformName ? `"${platformName}"` : "not set"}. ` +
        `Use ${other} for the other platform, and check the session's capabilities.`,
    );
  }
  const automationName = capability(caps, "automationName");
  if (typeof automationName === "string" && !need.automationNames.includes(automationName.toLowerCase())) {
    throw new DeviceError(`${expected}; this session's automationName is "${automationName}".`);
  }
}

/**
 * A capability by name, as servers return it: plain (`deviceModel`), vendor-prefixed
 * (`appium:deviceModel`) or inside `appium:options`.
 */
export function capability(capabilities: object, name: string): unknown {
  const caps = capabilities as Record<string, unknown>;
  if (caps[name] !== undefined && caps[name] !== null) return caps[name];
  const prefixed = caps[`appium:${name}`];
  if (prefixed !== undefined && prefixed !== null) return prefixed;
  const options = caps["appium:options"];
  if (options && typeof options === "object") return (options as Record<string, unknown>)[name] ?? undefined;
  return undefined;
}
