/**
 * The process-wide configuration: what `configureAi` set, over environment
 * variables, over standalone defaults. Read at every call, so a runner may
 * reconfigure between sessions.
 */
import { describeZodError } from "../ground/zod-errors.js";
import path from "node:path";
import { z } from "zod";
import type { AiChannel } from "../model/contract.js";
import type { OsVersionKey, Target } from "../device/description.js";
import { OsVersionKeySchema, TargetSchema } from "../device/description.js";
import { ConfigError } from "../ground/errors.js";
import { consoleLogger, type LogEntry } from "../ground/log.js";
import type { ArtifactReporter } from "../ground/artifacts.js";
import { FileStore } from "../store/file-store.js";
import { checkProject } from "../store/keys.js";
import type { Store } from "../store/store.js";
import { unknownOptionsMessage } from "../ground/nearest.js";

/**
 * `auto` asks the model when nothing is stored; `replay` never calls a model (CI without a key);
 * `update` (like `jest -u`) also replaces a mismatching baseline with the settled screenshot without
 * a model, and learns a tap whose crop no longer matches again (docs/reviewing.md "Update mode").
 */
export type Mode = "auto" | "replay" | "update";

/** Options of `configureAi`. Every field is optional; each given field replaces the current value. */
export interface AiConfig {
  /** The model request channel (a runner's own, or a provider from `tapshot/providers`). */
  channel?: AiChannel;
  /** Team storage root holding `_ai_/`. Default `$TAPSHOT_STORAGE_DIR` or `./storage`. */
  storageDir?: string;
  /** A storage backend other than the filesystem (object storage for device farms). Wins over `storageDir`. */
  store?: Store;
  /**
   * The run's target device; its fields override what the adapter reads. A function
   * gets the driver, for runners that drive several devices from one process.
   */
  target?: Target | ((driver: unknown) => Target | undefined);
  /**
   * How much of the OS version store keys use, so one model on another patch release replays
   * (docs/storage.md). Default `major.minor` on iOS (`17.5`), `major` on Android (`14`).
   */
  osVersionKey?: OsVersionKey;
  /** Receives one entry per call; `false` silences logging. Default: one line on stderr. */
  log?: ((entry: LogEntry) => void) | false;
  /**
   * Also receives each failure image (a runner uploads it to its own report). The run folder
   * `<resultsDir>/<run>/` keeps its copy whatever this does, for `tapshot accept --failed` and the
   * review page. Default: none.
   */
  reportArtifact?: ArtifactReporter;
  /**
   * Default `$TAPSHOT_MODE` or `auto`. A function gets the driver, for runners whose sessions
   * choose their own mode (the Appium plugin's `tapshot:mode` capability); `undefined` falls back.
   */
  mode?: Mode | ((driver: unknown) => Mode | undefined);
  /**
   * Where each run's results go: `<resultsDir>/<run>/calls.jsonl` (one log entry per call) and the
   * failure artifacts. `false` records nothing (a runner's `reportArtifact` still gets the images). Default
   * `$TAPSHOT_RESULTS_DIR` or `./tapshot-results`.
   */
  resultsDir?: string | false;
  /**
   * Prices per million tokens by model name, e.g. `{ "gemini-2.5-flash": { input: 0.3, output: 2.5 } }`,
   * to put a cost on each model call in the run's results (docs/configuration.md). None are built in.
   */
  prices?: Record<string, ModelPrice>;
  /**
   * The most model requests one run may make, shared by its worker processes through the run
   * folder; a request over it fails with a BudgetError before it is sent. Default
   * `$TAPSHOT_MAX_AI_CALLS`, or no limit.
   */
  maxAiCalls?: number;
  /**
   * What one `maxAiCalls` budget covers: `"run"` (default), every request of the run, shared by its
   * worker processes; or `"session"`, each driver session's own requests, counted in this process
   * (the Appium plugin server's setting: one server, many independent sessions).
   */
  maxAiCallsPer?: "run" | "session";
  /**
   * The default `threshold` of `toSatisfy` (docs/api.md, "Semantic assertions"): the probability,
   * more than 0 and at most 1, that a statement must reach to pass (or its negation under `.not`).
   * Default 0.9.
   */
  satisfyThreshold?: number;
  /**
   * The project whose values these sessions learn and replay, apart from other projects in a shared
   * store (docs/storage.md, "Projects and apps"): a slug, 1-64 lower-case letters, digits, `-` or
   * `_`. A function gets the driver (the Appium plugin's `tapshot:project` capability). Default
   * `$TAPSHOT_PROJECT`, or none.
   */
  project?: string | ((driver: unknown) => string | undefined);
  /**
   * Whether a session reads values stored under the older layouts (no app, no project) when its own
   * folder has none, and moves them there on the next write. Default true; a store that mixed several
   * customers' values before they had projects sets it false (docs/storage.md).
   */
  readOldLayout?: boolean;
}

/** A model's price per million tokens, in one currency of your choice. */
export interface ModelPrice {
  input: number;
  output: number;
}

const ModeSchema = z.enum(["auto", "replay", "update"]);
const MaxAiCallsSchema = z.number().int("maxAiCalls must be a whole number").nonnegative();
const fn = (what: string) =>
  z.custom<(...args: never[]) => unknown>((v) => typeof v === "function", { message: `${what} must be a function` });

const AiConfigSchema = z
  .object({
    channel: z
      .custom<AiChannel>((v) => typeof (v as AiChannel | null)?.request === "function", {
        message: "channel must be an object with a request(request, { signal }) method",
      })
      .optional(),
    storageDir: z.string().min(1, "storageDir must not be empty").optional(),
    store: z
      .custom<Store>(
        (v) =>
          ["read", "write", "remove", "list", "lock", "touch", "modifiedAt"].every(
            (m) => typeof (v as Record<string, unknown>)?.[m] === "function",
          ),
        { message: "store must implement read, write, remove, list, lock, touch and modifiedAt" },
      )
      .optional(),
    target: z.union([TargetSchema, fn("target")]).optional(),
    osVersionKey: OsVersionKeySchema.optional(),
    log: z.union([fn("log"), z.literal(false)]).optional(),
    reportArtifact: fn("reportArtifact").optional(),
    mode: z.union([ModeSchema, fn("mode")]).optional(),
    resultsDir: z.union([z.string().min(1, "resultsDir must not be empty"), z.literal(false)]).optional(),
    prices: z
      .record(
        z.string().min(1, "a price's model name must not be empty"),
        z.object({ input: z.number().finite().nonnegative(), output: z.number().finite().nonnegative() }).strict(),
      )
      .optional(),
    maxAiCalls: MaxAiCallsSchema.optional(),
    maxAiCallsPer: z.enum(["run", "session"]).optional(),
    satisfyThreshold: z
      .number()
      .gt(0, "satisfyThreshold must be more than 0")
      .lte(1, "satisfyThreshold must be at most 1")
      .optional(),
    project: z.union([z.string(), fn("project")]).optional(),
    readOldLayout: z.boolean().optional(),
  })
  .strict();

/** One configuration per process: the ESM and CommonJS builds each load this module, and share this object. */
const state = ((globalThis as { [key: symbol]: unknown })[Symbol.for("tapshot.config")] ??= { configured: {} }) as {
  configured: AiConfig;
};

/** Throw the ConfigError `configureAi` would for these options, without applying them. */
export function checkConfig(options: AiConfig, what = "configureAi", alsoKnown: readonly string[] = []): void {
  const known = [...Object.keys(AiConfigSchema.shape), ...alsoKnown];
  const unknown = Object.keys(options ?? {}).filter((k) => !known.includes(k));
  if (unknown.length) throw new ConfigError(`${what} got ${unknownOptionsMessage(unknown, known)}.`);
  const result = AiConfigSchema.safeParse(options);
  if (!result.success) throw new ConfigError(`${what} got invalid options: ${describeZodError(result.error)}.`);
  if (typeof options.project === "string") checkProject(options.project, `${what}'s project`);
}

/** Validate and apply options; see `configureAi` in `tapshot/runner`. */
export function setConfig(options: AiConfig): void {
  checkConfig(options);
  state.configured = { ...state.configured, ...(options as AiConfig) };
  // A later storageDir means "use this directory": it must not lose to a store set earlier.
  if (options.storageDir !== undefined && options.store === undefined) delete state.configured.store;
}

/** Forget everything `configureAi` set (tests, runners between sessions). */
export function resetConfig(): void {
  state.configured = {};
}

/**
 * Where a call gets its model channel when `configureAi` set none: the platform entries register
 * the providers' environment reader (`tapshot/providers`), so core knows no provider or variable.
 */
export interface DefaultChannel {
  /** The channel, `undefined` when nothing is configured; throws a ConfigError when a setting is wrong. */
  channel(): AiChannel | undefined;
  /** One sentence on how to configure it, appended to the "no channel" error. */
  howToConfigure: string;
}
let defaultChannel: DefaultChannel | undefined;

/** Register the default channel (the platform entries do; a runner may replace it). */
export function registerDefaultChannel(source: DefaultChannel | undefined): void {
  defaultChannel = source;
}

const stores = new Map<string, Store>();

/** The configuration one call runs with. */
export interface ResolvedConfig {
  store: Store;
  mode: Mode;
  target: Target | undefined;
  /** `undefined`: each platform's default. */
  osVersionKey: OsVersionKey | undefined;
  log: (entry: LogEntry) => void;
  /** The runner's own reporter, besides the run folder's copy; `undefined` when none is configured. */
  reportArtifact: ArtifactReporter | undefined;
  /** Results folder of all runs, or `undefined` when results are not recorded. */
  resultsDir: string | undefined;
  /** The channel, or a ConfigError saying how to configure one. */
  channel(): AiChannel;
  /** Prices per million tokens by model; `{}` when none are set. */
  prices: Record<string, ModelPrice>;
  /** The run's model request budget, or `undefined` for no limit. */
  maxAiCalls: number | undefined;
  /** What one budget covers: the run (default) or each driver session. */
  maxAiCallsPer: "run" | "session";
  /** `toSatisfy`'s default threshold, when configureAi sets one. */
  satisfyThreshold: number | undefined;
  /** The project of the call's values, validated; `undefined` for none. */
  project: string | undefined;
  /** Whether values of the older layouts are read (and moved by the next write). */
  readOldLayout: boolean;
}

/** The "no channel" error's text; `howToConfigure` comes from the registered default channel. */
export function noChannelMessage(howToConfigure = ""): string {
  return (
    "No model channel is configured, and this call needs a model (nothing is stored for it yet, or autoHeal is " +
    "re-learning it). Configure one: call configureAi({ channel: gemini() }) from tapshot/runner with a provider " +
    `from tapshot/providers${howToConfigure ? `, or ${howToConfigure}` : ""}. ` +
    'To run without a model, commit the stored values under storage/_ai_/ and use mode "replay".'
  );
}

/** An environment variable, with an empty value read as unset (`TAPSHOT_MODE= npm test`). */
function envVar(name: string): string | undefined {
  return process.env[name] || undefined;
}

const LOG_VALUES = ["line", "json", "silent"] as const;

/** The results folder for a `resultsDir` option: the option, `$TAPSHOT_RESULTS_DIR`, or `./tapshot-results`. */
export function resolveResultsDir(option: string | false | undefined): string | undefined {
  return option === false ? undefined : (option ?? envVar("TAPSHOT_RESULTS_DIR") ?? "tapshot-results");
}

/** Resolve the configuration for one call, for the given driver. */
export function resolveConfig(driver: unknown): ResolvedConfig {
  const configured = state.configured;
  const chosen = typeof configured.mode === "function" ? configured.mode(driver) : configured.mode;
  const modeText = chosen ?? envVar("TAPSHOT_MODE") ?? "auto";
  const mode = ModeSchema.safeParse(modeText);
  if (!mode.success) {
    const from = chosen === undefined ? "TAPSHOT_MODE is" : "configureAi's mode returned";
    throw new ConfigError(`${from} "${String(modeText)}"; use "auto", "replay" or "update".`);
  }

  let store = configured.store;
  if (!store) {
    // Keyed by absolute path: a relative dir means the working directory at the first call.
    const dir = path.resolve(configured.storageDir ?? envVar("TAPSHOT_STORAGE_DIR") ?? "storage");
    store = stores.get(dir) ?? new FileStore(dir);
    stores.set(dir, store);
  }

  const target = typeof configured.target === "function" ? configured.target(driver) : configured.target;
  if (target !== undefined) {
    const parsed = TargetSchema.safeParse(target);
    if (!parsed.success) throw new ConfigError(`configureAi's target returned ${describeZodError(parsed.error)}.`);
  }

  let log: (entry: LogEntry) => void = consoleLogger;
  const logText = envVar("TAPSHOT_LOG");
  if (configured.log === false) log = () => undefined;
  else if (configured.log) log = configured.log;
  else if (logText !== undefined && !(LOG_VALUES as readonly string[]).includes(logText)) {
    throw new ConfigError(`TAPSHOT_LOG is "${logText}"; use "line" (the default), "json" or "silent".`);
  } else if (logText === "silent") log = () => undefined;
  else if (logText === "json") log = (entry) => console.warn(JSON.stringify(entry));

  const resultsDir = resolveResultsDir(configured.resultsDir);

  let maxAiCalls = configured.maxAiCalls;
  const maxText = envVar("TAPSHOT_MAX_AI_CALLS");
  if (maxAiCalls === undefined && maxText !== undefined) {
    const parsed = MaxAiCallsSchema.safeParse(/^\d+$/.test(maxText) ? Number(maxText) : NaN);
    if (!parsed.success) throw new ConfigError(`TAPSHOT_MAX_AI_CALLS is "${maxText}"; use a whole number such as 20.`);
    maxAiCalls = parsed.data;
  }

  return {
    store,
    project: resolveProject(configured.project, driver),
    readOldLayout: configured.readOldLayout ?? true,
    resultsDir,
    mode: mode.data,
    target,
    osVersionKey: configured.osVersionKey,
    log,
    prices: configured.prices ?? {},
    maxAiCalls,
    maxAiCallsPer: configured.maxAiCallsPer ?? "run",
    reportArtifact: configured.reportArtifact,
    satisfyThreshold: configured.satisfyThreshold,
    channel() {
      const channel = configured.channel ?? defaultChannel?.channel();
      if (!channel) throw new ConfigError(noChannelMessage(defaultChannel?.howToConfigure));
      return channel;
    },
  };
}

/** The call's project: configureAi's (or what its function returns for the driver), else `$TAPSHOT_PROJECT`. */
function resolveProject(option: AiConfig["project"], driver: unknown): string | undefined {
  const chosen = typeof option === "function" ? option(driver) : option;
  if (chosen !== undefined) {
    return checkProject(chosen, "configureAi's project");
  }
  const env = envVar("TAPSHOT_PROJECT");
  return env === undefined ? undefined : checkProject(env, "TAPSHOT_PROJECT");
}
