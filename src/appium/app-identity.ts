/*
 * The app under test of an Appium session (docs/storage.md, "Projects and apps"): what the session's
 * capabilities declare, else the app in the foreground.
 *
 * - Android: `appPackage` (appium-uiautomator2-driver and appium-espresso-driver echo it in the session's
 *   capabilities, unprefixed as @appium/base-driver returns them, or `appium:`-prefixed from a client's own
 *   copy); else `mobile: getCurrentPackage`, which answers the package name as a string.
 * - iOS: `bundleId`; else `mobile: activeAppInfo` (appium-xcuitest-driver), which answers
 *   `{ bundleId, name, pid, processArguments }` for the app in the foreground.
 */
import type { Platform } from "../core/device/description.js";
import type { AppiumSession } from "./session.js";

const DECLARED: Record<Platform, string> = { android: "appPackage", ios: "bundleId" };

/** The declared app of a session's capabilities, or `undefined`. */
function declaredApp(capabilities: object, platform: Platform): string | undefined {
  const caps = capabilities as Record<string, unknown>;
  const name = DECLARED[platform];
  const value = caps[name] ?? caps[`appium:${name}`];
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}

/** The app in the foreground, asked of the driver; `undefined` when it does not answer with one. */
async function foregroundApp(driver: AppiumSession, platform: Platform): Promise<string | undefined> {
  if (platform === "android") {
    const answer = await driver.execute("mobile: getCurrentPackage");
    return typeof answer === "string" && answer.trim() ? answer.trim() : undefined;
  }
  const answer = (await driver.execute("mobile: activeAppInfo")) as { bundleId?: unknown } | null;
  return typeof answer?.bundleId === "string" && answer.bundleId.trim() ? answer.bundleId.trim() : undefined;
}

/** The session's app under test: declared in its capabilities, else the foreground app. */
export async function appIdentity(driver: AppiumSession, platform: Platform): Promise<string | undefined> {
  return declaredApp(driver.capabilities, platform) ?? foregroundApp(driver, platform);
}
