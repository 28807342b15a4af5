/**
 * Which `tap` / `expect` a WebdriverIO session gets: the adapter the service was given, else the
 * Android or iOS adapter by the session's `platformName`. One platform API per adapter, so the
 * engine keeps one device session per driver (docs/design.md section 2).
 */
import { textCapability } from "../appium/index.js";
import type { DeviceAdapter } from "../core/device/description.js";
import { createPlatformApi, type PlatformApi } from "../core/engine/engine.js";
import { ConfigError, DeviceError } from "../core/ground/errors.js";
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

/** One default per process: the ESM and CommonJS builds each load this module, and share this object. */
const defaults = ((globalThis as { [key: symbol]: unknown })[Symbol.for("tapshot.defaultAdapter")] ??= {}) as {
  choice?: AdapterChoice;
};

/**
 * The adapter `addAiCommands` and `TapshotService` use when none is passed to them, instead of the choice
 * by `platformName`: for a kind of device tapshot has no adapter for, set once (in a Jest setup file, a
 * wdio.conf.ts, a `node --import` preload) rather than in every call. `undefined` restores the default.
 */
export function setDefaultAdapter(choice: AdapterChoice | undefined): void {
  const valid =
    choice === undefined ||
    typeof choice === "function" ||
    (typeof choice === "object" && choice !== null && typeof (choice as DeviceAdapter).open === "function");
  if (!valid) {
    throw new ConfigError(
      "setDefaultAdapter needs a DeviceAdapter (an object with open(driver), see tapshot/adapter), a function " +
        `returning one per session, or undefined; got ${choice === null ? "null" : typeof choice}.`,
    );
  }
  defaults.choice = choice;
}

/** The adapter for a session: the given choice, else the default set, else Android or iOS by `platformName`. */
export function adapterFor(driver: WebdriverIO.Browser, given: AdapterChoice | undefined): DeviceAdapter {
  const choice = given ?? defaults.choice;
  if (typeof choice === "function") return choice(driver);
  if (choice) return choice;
  const platform = textCapability(driver.capabilities ?? {}, "platformName")?.toLowerCase();
  if (platform === "android") return androidAdapter;
  if (platform === "ios") return iosAdapter;
  throw new DeviceError(
    `This session's platformName is ${platform ? `"${platform}"` : "not set"}, so tapshot cannot tell whether to ` +
      `drive it as Android or iOS. Open an Appium session with platformName "Android" or "iOS", or pass ` +
      `an adapter: addAiCommands(browser, { adapter }), services: [[TapshotService, { adapter }]] or setDefaultAdapter(adapter).`,
  );
}
