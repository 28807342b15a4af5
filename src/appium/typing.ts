/*
 * `ai.act`'s typing and keys on Appium sessions: the field a tap focused is the session's active
 * element (W3C "Get Active Element", `GET /element/active`, which UiAutomator2 answers from the
 * focused accessibility node and XCUITest from the element with keyboard focus), cleared and typed
 * into with W3C Element Clear and Element Send Keys. Enter is UiAutomator2's `mobile: pressKey`
 * (Android KeyEvent.KEYCODE_ENTER 66, KEYCODE_TAB 61) and a typed "\n" on XCUITest; Back is
 * W3C Back on Android, which iOS has no equivalent of.
 *
 * A value is sent masked: through WebdriverIO's `addValue(text, { mask: true })`, which logs
 * `**MASKED**` and sends Appium's `x-appium-is-sensitive: true` header so that Appium's server log
 * masks the body too (webdriver.io/docs/security); inside Appium (the plugin) the session's own
 * `sendSecretKeys` marks the command sensitive for Appium's logger.
 */
import type { Platform, PressKey } from "../core/device/description.js";
import { DeviceError } from "../core/ground/errors.js";
import { scrubLiterals } from "../core/ground/literal-scrub.js";
import { redact } from "../core/ground/secrets.js";
import { reason } from "./readings.js";
import type { AppiumSession } from "./session.js";
import { nativeElementAt, W3C_ELEMENT_KEY } from "./element-at.js";
/** android.view.KeyEvent codes `mobile: pressKey` takes. */
const ANDROID_KEYCODES: Record<Exclude<PressKey, "back">, number> = { enter: 66, tab: 61 };

/** The focused element's id; a DeviceError when nothing has focus or the session cannot tell. */
async function activeElement(driver: AppiumSession, what: string): Promise<string> {
  if (typeof driver.getActiveElement !== "function") {
    throw new DeviceError(`${what} needs the session's active element (WebdriverIO getActiveElement), which it lacks.`);
  }
  let found: unknown;
  try {
    found = await driver.getActiveElement();
  } catch (error) {
    throw new DeviceError(`${what}: no element has focus after the tap (${reason(error)}).`, { cause: error });
  }
  const ref = (found ?? {}) as Record<string, unknown>;
  const id = ref[W3C_ELEMENT_KEY] ?? ref.ELEMENT; // JSONWP sessions answer `ELEMENT`
  if (typeof id !== "string" || !id) throw new DeviceError(`${what}: no element has focus after the tap.`);
  return id;
}

/**
 * A driver's error without the typed text in it: a driver may echo the keys it was sent
 * (appium-uiautomator2-server: "Cannot set the element to '<text>'"). Scrubbed whole, before
 * {@link reason} cuts it to a line.
 */
function withoutText(error: unknown, text: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const scrubbed = redact(scrubLiterals(message, text ? [{ text, replacement: "[value]" }] : []));
  return reason(new Error(scrubbed));
}

/** Element Send Keys of a value, masked in the client's and Appium's logs. */
async function sendMasked(driver: AppiumSession, id: string, text: string): Promise<void> {
  if (typeof driver.sendSecretKeys === "function") {
    await driver.sendSecretKeys(id, text);
    return;
  }
  if (typeof driver.$ !== "function") {
    throw new DeviceError(
      "Typing a value needs the session's $ (WebdriverIO's element API), which masks the value in the logs; " +
        "pass the WebdriverIO Browser of your test.",
    );
  }
  const element = await driver.$({ [W3C_ELEMENT_KEY]: id } as never);
  await element.addValue(text, { mask: true });
}

/** Clear the focused field and type `text` into it, masked in every log. The text appears in no error. */
export async function typeIntoFocused(driver: AppiumSession, text: string): Promise<void> {
  const id = await activeElement(driver, "Typing a value");
  await typeIntoElement(driver, { id, text, what: "the focused field" });
}

/**
 * Clear the field `id` and type `text` into it, masked in every log: W3C Element Clear and Element Send
 * Keys, which focus the element themselves (XCUITest taps it for keyboard focus first, chromedriver focuses
 * it), as a hand-written `setValue` types. The text appears in no error.
 */
export async function typeIntoElement(
  driver: AppiumSession,
  { id, text, what = "the field" }: { id: string; text: string; what?: string },
): Promise<void> {
  try {
    await driver.elementClear!(id);
    await sendMasked(driver, id, text);
  } catch (error) {
    throw new DeviceError(`Typing a value into ${what} failed: ${withoutText(error, text)}`);
  }
}

/**
 * The id of the field the selectors name (the first the driver finds exactly once, as `find` chooses,
 * ./element-at.ts); `undefined` when none does, the session has no element lookup, or the lookup fails,
 * so the caller focuses the field by tapping it instead.
 */
export async function fieldBySelectors(
  driver: AppiumSession,
  selectors: readonly string[],
): Promise<string | undefined> {
  if (!selectors.length || typeof driver.elementClear !== "function") return undefined;
  const found = await nativeElementAt(driver, [...selectors]).catch(() => null);
  const id = (found as { elementId?: unknown } | null)?.elementId;
  return typeof id === "string" && id ? id : undefined;
}

/** Send keys (a key's character, e.g. "\n") to the focused element without clearing it. */
export async function keysToFocused(driver: AppiumSession, keys: string): Promise<void> {
  const id = await activeElement(driver, "Pressing a key");
  await driver.elementSendKeys!(id, keys);
}

/** Clear the focused field. */
export async function clearFocused(driver: AppiumSession): Promise<void> {
  const id = await activeElement(driver, "Clearing a field");
  try {
    await driver.elementClear!(id);
  } catch (error) {
    throw new DeviceError(`Clearing the focused field failed: ${reason(error)}`, { cause: error });
  }
}

/** Press a key as the platform's driver can. */
export async function pressKey(driver: AppiumSession, platform: Platform, key: PressKey): Promise<void> {
  try {
    if (platform === "android") {
      if (key === "back") await driver.back!();
      else await driver.execute("mobile: pressKey", { keycode: ANDROID_KEYCODES[key] });
      return;
    }
    if (key !== "enter") {
      throw new DeviceError(
        `press "${key}" has no iOS equivalent (iOS has no Back or Tab key): tap the app's own back button or the next field.`,
      );
    }
    await keysToFocused(driver, "\n");
  } catch (error) {
    if (error instanceof DeviceError) throw error;
    throw new DeviceError(`Pressing ${key} failed: ${reason(error)}`, { cause: error });
  }
}
