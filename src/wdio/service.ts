/**
 * The WebdriverIO service (docs/runners.md): `services: [[TapshotService, options]]` in wdio.conf.ts.
 * WDIO constructs it in the launcher and in every worker; it checks its options when constructed
 * (so a bad option stops the run before any session), starts the run's AI budget in the launcher's
 * `onPrepare`, configures tapshot in `beforeSession` of
 * each worker, and adds the commands and matchers to each session in `before`.
 */
import { describeZodError } from "../core/ground/zod-errors.js";
import { z } from "zod";
import { RUN_ID } from "../core/ground/artifacts.js";
import { checkConfig, type AiConfig, type Mode } from "../core/config/config.js";
import { TargetSchema, type DeviceAdapter, type Target } from "../core/device/description.js";
import { ConfigError } from "../core/ground/errors.js";
import { configureAi, startRun } from "../runner/index.js";
import { aiMatchers } from "../matchers/to-match-ai-screenshot.js";
import { setRunningTest } from "../matchers/test-title.js";
import { allureArtifactReporter, loadAllure, reportHeal, usesAllure, type AllureApi } from "./allure.js";
import { targetFromCapabilities } from "./capabilities.js";
import { serviceMode } from "./ci.js";
import { addAiCommands } from "./commands.js";
import type { AdapterChoice } from "./platform-api.js";

/** Options of {@link TapshotService}: `configureAi`'s options plus what only a WDIO run has. */
export interface TapshotServiceOptions extends Omit<AiConfig, "target" | "mode"> {
  /** `auto` or `replay`; default `replay` when `CI` is set, else `$TAPSHOT_MODE` or `auto`. */
  mode?: Mode;
  /**
   * The run's device, over what the session's capabilities give (a farm's device name) and what
   * the adapter reads. A function gets each session (each multiremote instance).
   */
  target?: Target | ((driver: WebdriverIO.Browser) => Target | undefined);
  /** The device adapter, or a function choosing one per session. Default: Android or iOS by `platformName`. */
  adapter?: AdapterChoice;
  /** Attach failure images and heals to `@wdio/allure-reporter`. Default: when `reporters` lists it. */
  allure?: boolean;
}

const isFunction = (v: unknown) => typeof v === "function";
const ServiceOptionsSchema = z
  .object({
    target: z.union([TargetSchema, z.custom(isFunction)]).optional(),
    adapter: z
      .custom<AdapterChoice>(
        (v) => isFunction(v) || (typeof v === "object" && v !== null && isFunction((v as DeviceAdapter).open)),
        { message: "adapter must be a DeviceAdapter (an object with open(driver)) or a function returning one" },
      )
      .optional(),
    allure: z.boolean().optional(),
  })
  .passthrough();

/** The Mocha / Jasmine test WDIO passes to `beforeTest`. */
interface RunnerTest {
  fullName?: string;
  fullTitle?: string;
  parent?: string;
  title?: string;
}

function fullTitleOf(test: RunnerTest | undefined): string | undefined {
  if (!test) return undefined;
  return test.fullName || test.fullTitle || [test.parent, test.title].filter(Boolean).join(" ") || undefined;
}

/** The WDIO expect of this worker, when the framework put one in the globals. */
function wdioExpect(): { extend(matchers: object): void } | undefined {
  const candidate = (globalThis as { expect?: { extend?: unknown } }).expect;
  return typeof candidate?.extend === "function" ? (candidate as { extend(m: object): void }) : undefined;
}

/**
 * tapshot as a WebdriverIO service:
 *
 * ```ts
 * import { TapshotService } from "tapshot/wdio";
 * export const config: WebdriverIO.Config = {
 *   services: [[TapshotService, { storageDir: "storage" }]],
 * };
 * ```
 *
 * Each worker is configured with `configureAi` from the options; on CI (`CI` set) the mode is
 * `replay` unless `mode` or `TAPSHOT_MODE` says otherwise. Each session gets `browser.aiTap` and
 * `browser.aiMatchScreenshot`, WDIO's `expect` gets `toMatchAiScreenshot`, and the target of each
 * session (each multiremote instance) comes from its own capabilities.
 */
export class TapshotService {
  private readonly serviceOptions: TapshotServiceOptions;
  private readonly allureWanted: boolean;
  private allure: AllureApi | undefined;

  constructor(options: TapshotServiceOptions = {}, _capabilities?: unknown, config?: unknown) {
    const checked = ServiceOptionsSchema.safeParse(options ?? {});
    if (!checked.success) {
      throw new ConfigError(`TapshotService got invalid options: ${describeZodError(checked.error)}.`);
    }
    this.serviceOptions = { ...(options ?? {}) };
    checkConfig(this.aiConfig(), "TapshotService", ["target", "adapter", "allure"]);
    this.allureWanted =
      this.serviceOptions.allure ?? usesAllure((config as { reporters?: unknown } | undefined)?.reporters);
    // In the launcher (no WDIO_WORKER_ID): the workers it forks inherit one run id, so they write one
    // run folder and share one maxAiCalls budget (src/core/run/budget.ts).
    if (!process.env.WDIO_WORKER_ID && !process.env.TAPSHOT_RUN_ID) process.env.TAPSHOT_RUN_ID = RUN_ID;
  }

  /** The `configureAi` options of this worker. */
  private aiConfig(): AiConfig {
    // eslint-disable-next-line @typescript-eslint/no-unused-vars
    const { target, adapter, allure, mode, ...rest } = this.serviceOptions;
    const resolvedMode = serviceMode(mode, process.env);
    return {
      ...rest,
      ...(resolvedMode ? { mode: resolvedMode } : {}),
      target: (driver) => {
        const own = typeof target === "function" ? target(driver as WebdriverIO.Browser) : target;
        const derived = targetFromCapabilities((driver as { capabilities?: unknown } | null)?.capabilities);
        const merged = { ...derived, ...Object.fromEntries(Object.entries(own ?? {}).filter(([, v]) => v)) };
        return Object.keys(merged).length ? merged : undefined;
      },
    };
  }

  /**
   * WDIO hook, in the launcher before any worker starts: the run starts here, so a `TAPSHOT_RUN_ID`
   * reused from an earlier run does not inherit its spent maxAiCalls budget (docs/configuration.md, "AI budget").
   */
  async onPrepare(): Promise<void> {
    await startRun({ resultsDir: this.serviceOptions.resultsDir });
  }

  /** WDIO hook, in each worker before its session starts: configure tapshot for this worker. */
  async beforeSession(): Promise<void> {
    this.allure = this.allureWanted ? await loadAllure() : undefined;
    const config = this.aiConfig();
    // The run folder keeps its own copy of each image (src/core/run/call.ts): Allure only attaches them.
    if (this.allure && !this.serviceOptions.reportArtifact) config.reportArtifact = allureArtifactReporter(this.allure);
    configureAi(config);
  }

  /** WDIO hook, with the session: add the commands (every multiremote instance) and the matcher. */
  before(_capabilities: unknown, _specs: unknown, browser: WebdriverIO.Browser | WebdriverIO.MultiRemoteBrowser): void {
    const allure = this.allure;
    addAiCommands(browser, {
      ...(this.serviceOptions.adapter ? { adapter: this.serviceOptions.adapter } : {}),
      ...(allure ? { onResult: (done) => reportHeal(allure, done) } : {}),
    });
    wdioExpect()?.extend(aiMatchers({ style: "wdio" }));
  }

  /** WDIO hook: the running test's title names unnamed baselines. */
  beforeTest(test: RunnerTest): void {
    setRunningTest(fullTitleOf(test));
  }

  /** WDIO hook. */
  afterTest(): void {
    setRunningTest(undefined);
  }
}
