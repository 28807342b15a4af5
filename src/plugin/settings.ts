/*
 * The plugin's configuration: the server's plugin arguments (`--plugin-tapshot-<name>` or the
 * Appium config file's `server.plugin.tapshot`, validated by Appium against the schema in
 * package.json's `appium.schema`), over the `TAPSHOT_*` environment, over tapshot's defaults;
 * and a session's `tapshot:mode`, `tapshot:target` and `tapshot:project` capabilities over both.
 */
import { setConfig, type AiConfig, type Mode } from "../core/config/config.js";
import { TargetSchema, type Target } from "../core/device/description.js";
import { ConfigError } from "../core/ground/errors.js";
import { describeZodError } from "../core/ground/zod-errors.js";
import { s3Store } from "../core/store/s3-store.js";
import { checkProject } from "../core/store/keys.js";
import { channelFromEnv, PROVIDER_NAMES } from "../providers/env.js";

/** The plugin's server arguments, as Appium passes them (camel-cased names of package.json's schema). */
export interface PluginArgs {
  /** Storage folder holding `_ai_/` (`$TAPSHOT_STORAGE_DIR`, else `./storage` of Appium's working folder). */
  storageDir?: string;
  /** `s3://bucket/prefix`: team storage in a bucket (`$TAPSHOT_STORE`); wins over `storageDir`. */
  store?: string;
  /** Where each run's results go (`$TAPSHOT_RESULTS_DIR`, else `./tapshot-results`). */
  resultsDir?: string;
  /** `auto` or `replay` for every session that does not set `tapshot:mode` (`$TAPSHOT_MODE`, else `auto`). */
  mode?: string;
  /** A provider name as `TAPSHOT_PROVIDER` takes it; its key stays in the environment. */
  provider?: string;
  /** The provider's model, as `TAPSHOT_MODEL`. */
  model?: string;
  /**
   * Refuse a session without `tapshot:project` (its first tapshot call fails), so one store never mixes
   * customers; such a server reads no value of the older layouts (docs/plugin.md).
   */
  requireProject?: boolean;
}

/** The capability that sets one session's mode. */
export const MODE_CAP = "tapshot:mode";
/** The capability that names one session's device (`{ platform?, model?, osVersion? }`). */
export const TARGET_CAP = "tapshot:target";
/** The capability that names one session's project (docs/plugin.md). */
export const PROJECT_CAP = "tapshot:project";

const MODES: readonly Mode[] = ["auto", "replay"];

/** The parts of `s3://bucket/prefix`; a ConfigError naming `what` for anything else. */
function parseS3Url(url: string, what: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([^/?#]+)(?:\/([^?#]*))?$/.exec(url);
  if (!match) {
    throw new ConfigError(
      `${what} is ${JSON.stringify(url)}, not a bucket URL: use s3://<bucket>/<prefix> (the folder in the bucket ` +
        "that holds _ai_/), or a storage folder with --plugin-tapshot-storage-dir.",
    );
  }
  return { bucket: match[1]!, prefix: (match[2] ?? "").replace(/\/+$/, "") };
}

const set = (value: string | undefined) => (value?.trim() ? value.trim() : undefined);

/** The `configureAi` options the server's arguments and environment give (per-session parts as functions). */
export function pluginConfig(args: PluginArgs, env: NodeJS.ProcessEnv = process.env): AiConfig {
  // Sessions of one server are independent runs of their clients: each gets its own maxAiCalls.
  const config: AiConfig = { maxAiCallsPer: "session" };
  const storeUrl = set(args.store) ?? set(env.TAPSHOT_STORE);
  if (storeUrl) {
    const what = set(args.store) ? "--plugin-tapshot-store" : "TAPSHOT_STORE";
    const { bucket, prefix } = parseS3Url(storeUrl, what);
    config.store = s3Store({ bucket, prefix, ...(env.TAPSHOT_S3_PATH_STYLE === "1" ? { forcePathStyle: true } : {}) });
  } else if (set(args.storageDir)) {
    config.storageDir = set(args.storageDir)!;
  }
  if (set(args.resultsDir)) config.resultsDir = set(args.resultsDir)!;
  const serverMode = set(args.mode);
  if (serverMode !== undefined && !(MODES as string[]).includes(serverMode)) {
    throw new ConfigError(`--plugin-tapshot-mode is "${serverMode}"; use "auto" or "replay".`);
  }
  config.mode = (driver) => sessionMode(capsOf(driver)) ?? (serverMode as Mode | undefined);
  config.target = (driver) => sessionTarget(capsOf(driver));
  const required = args.requireProject === true;
  config.project = (driver) => sessionProject(capsOf(driver), { required });
  if (required) config.readOldLayout = false;
  const provider = set(args.provider);
  if (provider !== undefined) {
    if (!(PROVIDER_NAMES as readonly string[]).includes(provider)) {
      throw new ConfigError(`--plugin-tapshot-provider is "${provider}"; use one of ${PROVIDER_NAMES.join(", ")}.`);
    }
    const model = set(args.model);
    const channel = channelFromEnv({ ...env, TAPSHOT_PROVIDER: provider, ...(model ? { TAPSHOT_MODEL: model } : {}) });
    if (channel) config.channel = channel;
  } else if (set(args.model)) {
    throw new ConfigError(
      "--plugin-tapshot-model needs --plugin-tapshot-provider (the provider the model belongs to).",
    );
  }
  return config;
}

let applied: string | undefined;

/** Configure tapshot for the server's arguments; again only when they change (one server, one configuration). */
export function applyPluginArgs(args: PluginArgs): void {
  const key = JSON.stringify(args);
  if (applied === key) return;
  setConfig(pluginConfig(args));
  applied = key;
}

/** The capabilities of a plugin session object. */
function capsOf(driver: unknown): Record<string, unknown> {
  const caps = (driver as { capabilities?: unknown } | null)?.capabilities;
  return caps && typeof caps === "object" ? (caps as Record<string, unknown>) : {};
}

/** A session's `tapshot:mode`, or `undefined`; a ConfigError for any other value. */
export function sessionMode(caps: Record<string, unknown>): Mode | undefined {
  const value = caps[MODE_CAP];
  if (value === undefined || value === null) return undefined;
  if (typeof value === "string" && (MODES as string[]).includes(value)) return value as Mode;
  throw new ConfigError(`The capability ${MODE_CAP} is ${JSON.stringify(value)}; use "auto" or "replay".`);
}

/** A session's `tapshot:target`, or `undefined`; a ConfigError saying what is wrong otherwise. */
export function sessionTarget(caps: Record<string, unknown>): Target | undefined {
  const value = caps[TARGET_CAP];
  if (value === undefined || value === null) return undefined;
  const parsed = TargetSchema.safeParse(value);
  if (!parsed.success) {
    throw new ConfigError(
      `The capability ${TARGET_CAP} is invalid: ${describeZodError(parsed.error)}. Use an object such as ` +
        '{ "platform": "android", "model": "Google Pixel 7", "osVersion": "14" } (every field optional).',
    );
  }
  return parsed.data;
}

/**
 * A session's `tapshot:project`, validated, or `undefined`; a
 * ConfigError when the server requires one and the session has none.
 */
export function sessionProject(caps: Record<string, unknown>, { required }: { required: boolean }): string | undefined {
  const value = caps[PROJECT_CAP];
  if (value !== undefined && value !== null) {
    if (typeof value === "string") return checkProject(value, `The capability ${PROJECT_CAP}`);
    throw new ConfigError(
      `The capability ${PROJECT_CAP} is ${JSON.stringify(value)}; use a string such as "shop-team".`,
    );
  }
  if (!required) return undefined;
  throw new ConfigError(
    `This Appium server requires a project for tapshot (--plugin-tapshot-require-project), and this session has none: ` +
      `start the session with the capability "${PROJECT_CAP}": "<project>" (1-64 lower-case letters, digits, "-" or "_", ` +
      `e.g. "shop-team"), so its values are kept apart from other projects' in the shared store.`,
  );
}
