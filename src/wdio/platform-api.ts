/**
 * Which `tap` / `expect` a WebdriverIO session gets: the adapter the service was given, else the
 * Android or iOS adapter by the session's `platformName`. One platform API per adapter, so the
 * engine keeps one device session per driver (docs/design.md section 2).
 */
import { textCapability } from "../appium/index.js";
import type { DeviceAdapter } from "../core/device/description.js";
import { createPlatformApi, type PlatformApi } from "../core/engine/engine.js";
import { DeviceError } from "../core/ground/errors.js";
import { androidAdapter } from "../android/adapter.js";
import { iosAdapter } from "../ios/adapter.js";

/** An adapter, or a function choosing one per session (multiremote: one device per instance). */
export type AdapterChoice = DeviceAdapter | ((driver: WebdriverIO.Browser) => DeviceAdapter);

const apis = new WeakMap<DeviceAdapter, PlatformApi>();

/** The platform API bound to `adapter`, made once. */
export function platformApiOf(adapter: DeviceAdapter): PlatformApi {
  let api = apis.get(adapter);
  if (!api) apis.set(adapter, (api = createPlatformApi(adapter)));
  return api;
}

/** The adapter for a session: the given choice, else Android or iOS by `platformName`. */
export function adapterFor(driver: WebdriverIO.Browser, choice: AdapterChoice | undefined): DeviceAdapter {
  if (typeof choice === "function") return choice(driver);
  if (choice) return choice;
  const platform = textCapability(driver.capabilities ?? {}, "platformName")?.toLowerCase();
  if (platform === "android") return androidAdapter;
  if (platform === "ios") return iosAdapter;
  throw new DeviceError(
    `This session's platformName is ${platform ? `"${platform}"` : "not set"}, so tapshot cannot tell whether to ` +
      `drive it as Android or iOS. Open an Appium session with platformName "Android" or "iOS", or pass ` +
      `an adapter: addAiCommands(browser, { adapter }) or services: [[TapshotService, { adapter }]].`,
  );
}
