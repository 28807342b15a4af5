/*
 * The record of one call in progress (its notes, model calls, artifacts) and the single log
 * entry it becomes. Only the engine finishes it, once, on success or failure (docs/design.md section 10).
 */
import { recordCall } from "../ground/artifacts.js";
import type { ResolvedConfig } from "../config/config.js";
import { TapshotError } from "../ground/errors.js";
import type { LogEntry, ModelCall, Outcome } from "../ground/log.js";
import { redactDeep, redactError } from "../ground/secrets.js";

/** Where the call worked: its device slug and store key, once known. */
export interface CallPlace {
  device?: string;
  key?: string;
}

export class CallLog {
  private aiCallCount = 0;
  private readonly models: string[] = [];
  private readonly usage = { inputTokens: 0, outputTokens: 0 };
  private readonly modelCalls: ModelCall[] = [];
  private readonly notes: string[] = [];
  private readonly artifacts: string[] = [];
  private readonly started = Date.now();
  private finished = false;

  constructor(
    readonly api: LogEntry["api"],
    /** The tap prompt or the baseline name. */
    readonly subject: string,
    private readonly config: Pick<ResolvedConfig, "log" | "resultsDir">,
  ) {}

  /** Model requests made so far. */
  get aiCalls(): number {
    return this.aiCallCount;
  }

  /** Something worth a line in the entry's detail (a fallback, why a record was not used). */
  note(message: string): void {
    this.notes.push(message);
  }

  /** Count a model request before it is sent (a failed request still cost a call). */
  countRequest(): void {
    this.aiCallCount++;
  }

  /** Remember which model answered and what it spent. */
  countAnswer(model: string, usage: { inputTokens?: number; outputTokens?: number } | undefined): void {
    this.models.push(model);
    this.usage.inputTokens += usage?.inputTokens ?? 0;
    this.usage.outputTokens += usage?.outputTokens ?? 0;
  }

  /** What one model request cost, once it was answered or failed. */
  recordModelCall(call: ModelCall): void {
    this.modelCalls.push(call);
  }

  /** A value found without a model by a local rung (e.g. `local:transfer`): named among the models, costing no call. */
  answeredLocally(model: string): void {
    this.models.push(model);
  }

  /** Where an artifact of this call went (its kept file, or what the runner's reporter returned). */
  addArtifact(where: string): void {
    this.artifacts.push(where);
  }

  /** Emit the entry: called once per call, by the engine. */
  finish(outcome: Outcome, detail: string | undefined, place: CallPlace): LogEntry {
    if (this.finished) throw new Error(`tapshot: the log entry of ${this.api} "${this.subject}" was finished twice`);
    this.finished = true;
    const parts = [detail, ...this.notes].filter(Boolean);
    // Every sink gets the entry without secrets: a runner's channel error may echo its key.
    const entry: LogEntry = redactDeep({
      api: this.api,
      ...(this.api === "toMatchScreenshot" ? { name: this.subject } : { prompt: this.subject }),
      device: place.device ?? "unknown-device",
      ...(place.key ? { key: place.key } : {}),
      outcome,
      aiCalls: this.aiCallCount,
      models: this.models,
      durationMs: Date.now() - this.started,
      ...(this.usage.inputTokens || this.usage.outputTokens ? { usage: { ...this.usage } } : {}),
      ...(this.modelCalls.length ? { modelCalls: [...this.modelCalls] } : {}),
      ...(parts.length ? { detail: parts.join("; ") } : {}),
      ...(this.artifacts.length ? { artifacts: [...this.artifacts] } : {}),
    });
    if (this.config.resultsDir) recordCall(this.config.resultsDir, entry);
    try {
      this.config.log(entry);
    } catch {
      // A failing logger must not fail the test step.
    }
    return entry;
  }

  /** Finish as failed: attach the artifacts to the error and log its first line. */
  fail(error: unknown, place: CallPlace): void {
    redactError(error);
    if (error instanceof TapshotError && this.artifacts.length) {
      error.artifacts = [...this.artifacts];
      error.message += `\nArtifacts:\n${this.artifacts.map((a) => `  ${a}`).join("\n")}`;
    }
    this.finish("failed", error instanceof Error ? error.message.split("\n")[0] : String(error), place);
  }
}
