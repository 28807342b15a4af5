/*
 * The device of an MCP session: an Appium session the server opens from `{ appiumUrl, capabilities }`
 * with WebdriverIO, or the demo device a module opens (`tapshot mcp --demo <module>`). Either way the
 * server then drives it through a platform API (`tap`, `find`, `act`, `controls`, `expect`).
 */
import { pathToFileURL } from "node:url";
import { isAbsolute, resolve } from "node:path";
import type { Browser } from "webdriverio";
import { ConfigError, DeviceError } from "../errors.js";
import type {
  ActOptions,
  ActResult,
  ControlsOptions,
  Matchers,
  ScreenControl,
  TapOptions,
  TapResult,
} from "../adapter/index.js";
import type { AiConfig } from "../runner/index.js";

/**
 * What drives a device: `tapshot/android`, `tapshot/ios`, or a `createPlatformApi(adapter)` of `tapshot/adapter`.
 * `find` answers the element (the platform entries) or `{ element, ... }` (a platform API).
 */
export interface DeviceApi {
  tap(driver: unknown, prompt: string, options?: TapOptions): Promise<TapResult>;
  find(driver: unknown, description: string): Promise<unknown>;
  act(driver: unknown, goal: string, options?: ActOptions): Promise<ActResult>;
  controls(driver: unknown, options?: ControlsOptions): Promise<ScreenControl[]>;
  expect(subject: unknown): Matchers;
}

/** A device a module opens for `start_session { demo: true }` (docs/mcp.md "Device modules"). */
export interface McpDevice {
  /** The WebdriverIO session. */
  driver: Browser;
  /** The platform API that drives it: `tapshot/android`, `tapshot/ios`, or one `createPlatformApi` built. */
  ai: DeviceApi;
  /** Configuration the device needs (its `target`), applied with `configureAi`. */
  config?: AiConfig;
  /** End the session and whatever the module started for it. */
  close(): Promise<void>;
}

/** What a device module exports. */
export interface DeviceModule {
  openDevice(options: { screen?: string }): Promise<McpDevice>;
}

/** Where an Appium session is and what it asks for (W3C capabilities, `appium:` prefixed). */
export interface AppiumTarget {
  appiumUrl: string;
  capabilities: Record<string, unknown>;
}

/** Open a WebdriverIO session on an Appium server, driven by the platform entry its `platformName` names. */
export async function openAppiumDevice({ appiumUrl, capabilities }: AppiumTarget): Promise<McpDevice> {
  const platform = String(capabilities.platformName ?? "").toLowerCase();
  if (platform !== "android" && platform !== "ios") {
    throw new ConfigError(
      `start_session's capabilities.platformName must be "Android" or "iOS"; got ${JSON.stringify(capabilities.platformName ?? null)}.`,
    );
  }
  const url = parseAppiumUrl(appiumUrl);
  const { remote } = await import("webdriverio");
  const driver = await remote({
    protocol: url.protocol.replace(":", ""),
    hostname: url.hostname,
    port: Number(url.port || (url.protocol === "https:" ? 443 : 80)),
    path: url.pathname,
    capabilities: capabilities as WebdriverIO.Capabilities,
    logLevel: "warn",
  });
  const ai = platform === "android" ? await import("../android/index.js") : await import("../ios/index.js");
  return { driver, ai, close: () => driver.deleteSession() };
}

function parseAppiumUrl(appiumUrl: string): URL {
  let url: URL;
  try {
    url = new URL(appiumUrl);
  } catch {
    throw new ConfigError(
      `start_session's appiumUrl must be a URL such as "http://127.0.0.1:4723"; got ${JSON.stringify(appiumUrl)}.`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError(`start_session's appiumUrl must be an http or https URL; got ${JSON.stringify(appiumUrl)}.`);
  }
  return url;
}

/**
 * Load a device module: a TypeScript one through tsx's public `register()` (tsx must then be installed
 * beside tapshot), a JavaScript one as it is. Relative paths are read from `cwd`.
 */
export async function loadDeviceModule(path: string, cwd: string): Promise<DeviceModule> {
  const file = isAbsolute(path) ? path : resolve(cwd, path);
  if (/\.[mc]?tsx?$/.test(file)) {
    try {
      const { register } = (await import("tsx/esm/api")) as { register: () => unknown };
      register();
    } catch (error) {
      throw new ConfigError(
        `The device module ${path} is TypeScript, which needs tsx: npm install -D tsx (${(error as Error).message}).`,
      );
    }
  }
  const loaded = (await import(pathToFileURL(file).href)) as Partial<DeviceModule>;
  if (typeof loaded.openDevice !== "function") {
    throw new DeviceError(`The device module ${path} exports no openDevice(options) function.`);
  }
  return loaded as DeviceModule;
}
