/*
 * The class the plugin extends: Appium's own `BasePlugin` (`appium/plugin`) when Appium can be
 * loaded, as Appium's plugin guide asks, else a stand-in with the same constructor and fields, so
 * that importing the package never needs appium installed (it is an optional peer dependency).
 * The one place that loads appium; a synchronous `require`, which works in the ESM and the
 * CommonJS build alike (top-level await does not exist in CommonJS), and loads appium's ESM
 * dependencies on the Node versions tapshot supports (require of ESM, Node 20.19 on).
 *
 * Where appium is found: next to this package first (a project with appium in its node_modules,
 * a checkout installed with `--source=local`), then next to the running program's main script
 * (`appium server` from a global install, whose APPIUM_HOME need not hold appium itself).
 */
import { realpathSync } from "node:fs";
import { createRequire } from "node:module";

/** What the plugin needs of its base class: Appium's constructor and the fields it sets. */
export interface PluginBaseInstance {
  name: string;
  cliArgs: object;
}

/** A class the plugin can extend: `BasePlugin` or the stand-in. */
export type PluginBaseClass = new (name: string, cliArgs?: object, driverId?: string | null) => PluginBaseInstance;

/** The stand-in for `BasePlugin` when appium is not installed: what Appium reads of a plugin without it. */
export class StandalonePluginBase implements PluginBaseInstance {
  static newMethodMap = {};
  static executeMethodMap = {};
  name: string;
  cliArgs: object;
  constructor(name: string, cliArgs: object = {}, _driverId: string | null = null) {
    this.name = name;
    this.cliArgs = cliArgs ?? {};
  }
}

/** The base found and where it came from. */
export interface LoadedBase {
  base: PluginBaseClass;
  from: "appium" | "standalone";
  /**
   * Why an installed appium was not used: it failed to load (a broken install, or a module loader
   * that cannot load appium's ESM dependencies through `require`, such as a test runner's).
   */
  why?: string;
}

/** A `require` to try `appium/plugin` with. */
export type Requirer = (id: string) => unknown;

/**
 * `BasePlugin` from the first requirer that finds appium, else {@link StandalonePluginBase}: when
 * appium is not installed, and when it is but fails to load (`why` says why). The stand-in keeps
 * the plugin working on Appium 3, which reads only the constructor, `name`, the method maps and
 * the command methods of a plugin; importing the package never fails over appium.
 */
export function loadPluginBase(requirers: Requirer[] = defaultRequirers()): LoadedBase {
  let why: string | undefined;
  for (const require of requirers) {
    let loaded: unknown;
    try {
      loaded = require("appium/plugin");
    } catch (error) {
      if (!isMissingAppium(error)) why ??= `appium/plugin failed to load: ${messageOf(error)}`;
      continue;
    }
    const base = (loaded as { BasePlugin?: unknown } | null)?.BasePlugin;
    if (typeof base === "function") return { base: base as PluginBaseClass, from: "appium" };
    why ??= "appium/plugin has no BasePlugin class";
  }
  return { base: StandalonePluginBase, from: "standalone", ...(why ? { why } : {}) };
}

function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!;
}

function isMissingAppium(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === "MODULE_NOT_FOUND" && typeof message === "string" && message.includes("'appium/plugin'");
}

function defaultRequirers(): Requirer[] {
  const requirers: Requirer[] = [createRequire(import.meta.url)];
  const main = process.argv[1];
  if (main) {
    try {
      requirers.push(createRequire(realpathSync(main)));
    } catch {
      // No main script on disk (a REPL, `node -e`): only this package's own node_modules.
    }
  }
  return requirers;
}

/** The base the plugin extends in this process. */
export const PLUGIN_BASE: LoadedBase = loadPluginBase();

/** The part of `@appium/logger`'s process-wide log the plugin uses: its public `asyncStorage` getter. */
interface AppiumLog {
  asyncStorage: { getStore(): Record<string, unknown> | undefined; run<T>(store: object, work: () => T): T };
}

let appiumLog: AppiumLog | null | undefined;

/** Appium's log (`@appium/logger`, found from appium's own folder), or null where appium is not installed. */
function loadAppiumLog(requirers: Requirer[] = defaultRequirers()): AppiumLog | null {
  for (const require of requirers) {
    try {
      const appiumDir = (require as NodeJS.Require).resolve?.("appium/package.json");
      if (!appiumDir) continue;
      const loaded = createRequire(appiumDir)("@appium/logger") as { default?: unknown; log?: unknown };
      const log = (loaded.default ?? loaded.log) as Partial<AppiumLog> | undefined;
      if (typeof log?.asyncStorage?.run === "function") return log as AppiumLog;
    } catch {
      // Not this requirer's appium: try the next.
    }
  }
  return null;
}

/**
 * Run `work` as Appium runs a request that came with `x-appium-is-sensitive: true`
 * (@appium/base-driver express/middleware.js handleLogContext): every argument Appium's code logs
 * through `markSensitive` (the proxy's request bodies among them) is masked. Without appium
 * (the plugin's stand-in base) there is no Appium log to mask, and `work` runs as it is.
 */
export function asSensitive<T>(work: () => Promise<T>): Promise<T> {
  if (appiumLog === undefined) appiumLog = loadAppiumLog();
  if (!appiumLog) return work();
  const store = appiumLog.asyncStorage.getStore() ?? {};
  return appiumLog.asyncStorage.run({ ...store, isSensitive: true }, work);
}
