/*
 * `tapshot/runner`: how a test runner or device farm plugs into tapshot: the model
 * request channel, storage, the run's target device, logging and artifacts.
 */
import { setConfig, resetConfig, resolveResultsDir, type AiConfig } from "../core/config/config.js";
import { startRunBudget } from "../core/run/budget.js";

/**
 * Configure tapshot for this process. Each given option replaces the current one;
 * options left out keep their value. Throws a ConfigError naming the bad option.
 *
 * ```ts
 * import { configureAi } from "tapshot/runner";
 * configureAi({ channel: myAgentChannel, storageDir: "/shared/team-storage", target: { model: "Pixel 8", osVersion: "15" } });
 * ```
 */
export function configureAi(options: AiConfig): void {
  setConfig(options);
}

/** Drop everything configured with {@link configureAi}, back to environment and defaults. */
export function resetAi(): void {
  resetConfig();
}

/** Options of {@link startRun}. */
export interface StartRunOptions {
  /** The results folder the run's workers use. Default `$TAPSHOT_RESULTS_DIR`, else `./tapshot-results`. */
  resultsDir?: string | false;
}

/**
 * Start a run, once, before its workers make any tapshot call (a Jest `globalSetup`, a Mocha root
 * hook in the parent process): the `maxAiCalls` count an earlier run left under the same
 * `TAPSHOT_RUN_ID` is moved aside, so this run does not inherit a spent budget. The WDIO service
 * does this in its launcher. Resolves to where the old count went, or `undefined` when there was none.
 *
 * ```ts
 * // jest.global-setup.ts
 * import { startRun } from "tapshot/runner";
 * export default () => startRun();
 * ```
 */
export function startRun(options: StartRunOptions = {}): Promise<string | undefined> {
  return startRunBudget(resolveResultsDir(options.resultsDir));
}

export type { AiConfig, Mode } from "../core/config/config.js";
export type {
  AiChannel,
  AiRequest,
  AiRequestOptions,
  AiAnswer,
  AiAnswers,
  AiKind,
  AiImage,
  Box,
  Usage,
  LocateRequest,
  LocateAnswer,
  CheckRequest,
  CheckAnswer,
  JudgeRequest,
  JudgeAnswer,
  CompareRequest,
  CompareAnswer,
  SatisfyRequest,
  SatisfyAnswer,
  DecideRequest,
  DecideAnswer,
  CompleteRequest,
  CompleteAnswer,
  Control,
  ActionChoice,
  Reference,
} from "../core/model/contract.js";
export { parseAnswer, answerSchemas } from "../core/model/contract.js";
export type { LogEntry, Outcome } from "../core/ground/log.js";
export type { Artifact, ArtifactReporter } from "../core/ground/artifacts.js";
export type { Target, OsVersionKey, DeviceDescription, Platform, Insets, Point } from "../core/device/description.js";
export type { Store, Release, WriteOptions, LockOptions } from "../core/store/store.js";
export { layeredStore, LayeredStore, type LayeredStoreOptions } from "../core/store/layered-store.js";
export { FileStore } from "../core/store/file-store.js";
export * from "../errors.js";
