/**
 * One tapshot call in progress: its device, deadline, model calls and artifacts,
 * and the single log entry it emits when it ends.
 */
import { ask, type AiAnswers, type AiImage, type AiKind, type AiRequestOf } from "./contract.js";
import { recordCall, type Artifact } from "./artifacts.js";
import type { ResolvedConfig } from "./config.js";
import { Deadline } from "./deadline.js";
import type { DeviceAdapter, DeviceDescription } from "./device.js";
import { applyTarget } from "./device.js";
import { DeviceError, TapshotError } from "./errors.js";
import type { LogEntry, Outcome } from "./log.js";
import { deviceSlug, slugify } from "./store/keys.js";
import { imageSize } from "./images.js";

/** Descriptions cached per driver object (one per session); refreshed when the screen size changes. */
const descriptions = new WeakMap<object, DeviceDescription>();

export class Call {
  aiCalls = 0;
  readonly models: string[] = [];
  private readonly usage = { inputTokens: 0, outputTokens: 0 };
  private readonly notes: string[] = [];
  private readonly artifacts: string[] = [];
  private readonly started = Date.now();
  device!: DeviceDescription;
  deviceSlug = "unknown-device";
  /** The store key (without extension) this call reads and writes, once known. */
  key: string | undefined;

  constructor(
    readonly api: LogEntry["api"],
    /** The tap prompt or the baseline name. */
    readonly subject: string,
    readonly config: ResolvedConfig,
    readonly adapter: DeviceAdapter,
    readonly driver: unknown,
    readonly deadline: Deadline,
  ) {}

  /** Something worth a line in the log entry's detail (a fallback, why a record was skipped). */
  note(message: string): void {
    this.notes.push(message);
  }

  /** Describe the device (cached per session), with the run's target applied. */
  async describe(): Promise<DeviceDescription> {
    const key = this.driver as object;
    let device = descriptions.get(key);
    if (!device) {
      device = await this.adapter.describe(this.driver, (m) => this.note(m));
      descriptions.set(key, device);
    }
    this.setDevice(device);
    return this.device;
  }

  private setDevice(device: DeviceDescription): void {
    this.device = applyTarget(device, this.config.target);
    this.deviceSlug = deviceSlug(this.device);
  }

  /** A screenshot; re-describes the device when its size no longer matches (rotation). */
  async screenshot(): Promise<Buffer> {
    this.deadline.throwIfAborted();
    let png: Buffer;
    try {
      png = await this.adapter.screenshot(this.driver);
    } catch (error) {
      throw new DeviceError(`Taking a screenshot failed: ${(error as Error).message}`, { cause: error });
    }
    const size = await imageSize(png);
    if (size.width !== this.device.screen.width || size.height !== this.device.screen.height) {
      descriptions.delete(this.driver as object);
      await this.describe();
    }
    return png;
  }

  /** Ask the model, counting the call and remembering which model answered. */
  async ask<K extends AiKind>(request: AiRequestOf<K>): Promise<AiAnswers[K]> {
    const channel = this.config.channel();
    this.aiCalls++;
    const answer = await ask(channel, request, this.deadline.signal);
    this.models.push(answer.model);
    this.usage.inputTokens += answer.usage?.inputTokens ?? 0;
    this.usage.outputTokens += answer.usage?.outputTokens ?? 0;
    return answer;
  }

  /** Report one failure image; returns where it went. */
  async report(role: Artifact["role"], data: Buffer, label: string = role): Promise<void> {
    const subject = this.api === "tap" ? `tap-${slugify(this.subject, 40)}` : `screenshot-${this.subject}`;
    const name = `${subject}__${this.deviceSlug}__${label}.png`;
    try {
      const where = await this.config.reportArtifact({
        name,
        role,
        mimeType: "image/png",
        data,
        api: this.api,
        subject: this.subject,
        device: this.deviceSlug,
      });
      if (where) this.artifacts.push(where);
    } catch (error) {
      this.note(`reporting artifact ${name} failed: ${(error as Error).message}`);
    }
  }

  /** Emit the call's log entry. */
  finish(outcome: Outcome, detail?: string): LogEntry {
    const parts = [detail, ...this.notes].filter(Boolean);
    const entry: LogEntry = {
      api: this.api,
      ...(this.api === "tap" ? { prompt: this.subject } : { name: this.subject }),
      device: this.deviceSlug,
      ...(this.key ? { key: this.key } : {}),
      outcome,
      aiCalls: this.aiCalls,
      models: this.models,
      durationMs: Date.now() - this.started,
      ...(this.usage.inputTokens || this.usage.outputTokens ? { usage: { ...this.usage } } : {}),
      ...(parts.length ? { detail: parts.join("; ") } : {}),
      ...(this.artifacts.length ? { artifacts: [...this.artifacts] } : {}),
    };
    if (this.config.resultsDir) recordCall(this.config.resultsDir, entry);
    try {
      this.config.log(entry);
    } catch {
      // A failing logger must not fail the test step.
    }
    return entry;
  }

  /** Fail the call: attach artifacts to the error, log it, rethrow. */
  fail(error: unknown): never {
    if (error instanceof TapshotError && this.artifacts.length) {
      error.artifacts = [...this.artifacts];
      error.message += `\nArtifacts:\n${this.artifacts.map((a) => `  ${a}`).join("\n")}`;
    }
    this.finish("failed", error instanceof Error ? error.message.split("\n")[0] : String(error));
    throw error;
  }
}

/** Encode a PNG for a model request. */
export async function toAiImage(png: Buffer): Promise<AiImage> {
  const { width, height } = await imageSize(png);
  return { mimeType: "image/png", data: png.toString("base64"), width, height };
}
