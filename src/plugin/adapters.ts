/*
 * Which device adapter drives a session, by its `automationName`: the Android adapter
 * (src/android) for UiAutomator2 and Espresso, the iOS adapter (src/ios) for XCUITest, the
 * Chromium adapter for mobile web in Chromium. Each is bound once, so the engine keeps one
 * opened device per session object.
 */
import type { Platform } from "../core/device/description.js";
import { createPlatformApi, type PlatformApi } from "../core/engine/engine.js";
import { DeviceError } from "../core/ground/errors.js";
import { androidAdapter } from "../android/adapter.js";
import { iosAdapter } from "../ios/adapter.js";
import { chromiumAdapter } from "./chromium.js";
import { sessionTarget } from "./settings.js";

const apis = new Map<string, PlatformApi>();

function bound(name: string, build: () => PlatformApi): PlatformApi {
  let api = apis.get(name);
  if (!api) apis.set(name, (api = build()));
  return api;
}

/** The automation names the plugin drives, as Appium's drivers spell them. */
export const SUPPORTED_DRIVERS = "UiAutomator2, Espresso, XCUITest or Chromium";

/** The tapshot API for a session with these capabilities; a DeviceError for a driver tapshot does not drive. */
export function apiFor(caps: Record<string, unknown>): PlatformApi {
  const automation = String(caps.automationName ?? "").toLowerCase();
  switch (automation) {
    case "uiautomator2":
    case "espresso":
      return bound("android", () => createPlatformApi(androidAdapter));
    case "xcuitest":
      return bound("ios", () => createPlatformApi(iosAdapter));
    case "chromium": {
      // A browser session has no phone platform; the target capability names it, else Android.
      const platform: Platform = sessionTarget(caps)?.platform ?? "android";
      return bound(`chromium-${platform}`, () => createPlatformApi(chromiumAdapter(platform)));
    }
    default:
      throw new DeviceError(
        `The tapshot plugin drives ${SUPPORTED_DRIVERS} sessions; this session's automationName is ` +
          `${automation ? `"${String(caps.automationName)}"` : "not set"}.`,
      );
  }
}
