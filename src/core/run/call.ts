/*
 * One tapshot call in progress: its configuration, deadline and device, and the model
 * requests, screenshots, taps and artifacts it makes. The engine makes it once the device is
 * described, and finishes its log entry (docs/design.md section 1).
 */
import {
  ask,
  type AiAnswers,
  type AiImage,
  type AiKind,
  type AiRequest,
  type AiRequestOf,
  type Usage,
} from "../model/contract.js";
import { keepArtifact, type Artifact } from "../ground/artifacts.js";
import type { CallLog } from "./call-log.js";
import type { ModelPrice, ResolvedConfig } from "../config/config.js";
import { claimAiCall } from "./budget.js";
import { untilAborted, type Deadline } from "../ground/deadline.js";
import { applyTarget, type DescribedDevice, type DeviceDescription } from "../device/description.js";
import type { Point, Rect } from "../ground/geometry.js";
import type { DriverScroll, ElementTarget, FillInput, PressKey, ScrollAnswer, Swipe } from "../device/description.js";
import { imageSize } from "../pixels/image-decode.js";
import { redact } from "../ground/secrets.js";
import { TimeoutError } from "../ground/errors.js";
import type { OpenedDevice } from "./opened-device.js";
import { parsePageNodes, type PageNode } from "../device/page-source-parse.js";
import { readPageSource, type PageSourceReading } from "../device/page-source.js";
import { deviceSlugs, slugify, type DeviceSlugs } from "../store/keys.js";

/** A page source reading; `reused` when it was read before on the same screen. */
export type CallPageSource = PageSourceReading & { reused?: true };

export class Call {
  private described: DeviceDescription;
  private slugs: DeviceSlugs;
  /**
   * The page source of the screen now shown, once read; a tap or swipe forgets it, and so does a
   * screenshot with other bytes than the last one (a still screen keeps its reading).
   */
  private screenPageSource: Promise<PageSourceReading> | undefined;
  /** Budget places claimed by {@link claimAhead} that no request has used yet. */
  private claimedAhead = 0;
  /** The last screenshot's bytes, to tell whether the next one shows the same screen. */
  private lastShot: Buffer | undefined;

  constructor(
    readonly log: CallLog,
    readonly config: ResolvedConfig,
    readonly deadline: Deadline,
    private readonly opened: OpenedDevice,
    /** The device as described when the call started. */
    device: DescribedDevice,
  ) {
    this.described = applyTarget(device, config.target);
    this.slugs = deviceSlugs(device, config.target, config.osVersionKey);
  }

  /** One place in the model request budget (src/core/run/budget.ts). */
  private claim(): Promise<void> {
    return claimAiCall({ ...this.config, session: this.opened });
  }

  /** The device, with the run's target applied; follows a rotation seen by {@link screenshot}. */
  get device(): DeviceDescription {
    return this.described;
  }

  /** The device's slug in store keys and messages, e.g. `google-pixel-7_14`. */
  get deviceSlug(): string {
    return this.slugs.slug;
  }

  /** Slugs older tapshot versions gave this device; values stored under them are still read. */
  get formerDeviceSlugs(): readonly string[] {
    return this.slugs.former;
  }

  /** The device session the call runs on: the key of what tapshot remembers per session. */
  get session(): object {
    return this.opened;
  }

  /** The tap prompt or the baseline name. */
  get subject(): string {
    return this.log.subject;
  }

  /** A line for the call's log entry. */
  note(message: string): void {
    this.log.note(message);
  }

  /** A screenshot; the device is described again when its size changed (rotation). */
  async screenshot(): Promise<Buffer> {
    this.deadline.throwIfAborted();
    const { png, device } = await this.opened.screenshot((m) => this.note(m));
    if (!this.lastShot?.equals(png)) this.screenPageSource = undefined;
    this.lastShot = png;
    this.described = applyTarget(device, this.config.target);
    this.slugs = deviceSlugs(device, this.config.target, this.config.osVersionKey);
    return png;
  }

  /** Tap at a point in screenshot pixels. */
  async tap(point: Point): Promise<void> {
    this.deadline.throwIfAborted();
    this.screenPageSource = undefined;
    await this.opened.tap(point);
  }

  /** Type a value into the field at a point (`ai.act`); the text never reaches a log line. */
  async fill(input: FillInput): Promise<void> {
    this.deadline.throwIfAborted();
    this.screenPageSource = undefined;
    await this.opened.fill(input);
  }

  /** Clear the field at a point (`ai.act`). */
  async clear(input: { point: Point }): Promise<void> {
    this.deadline.throwIfAborted();
    this.screenPageSource = undefined;
    await this.opened.clear(input);
  }

  /** Press a key (`ai.act`). */
  async pressKey(key: PressKey): Promise<void> {
    this.deadline.throwIfAborted();
    this.screenPageSource = undefined;
    await this.opened.pressKey(key);
  }

  /** Swipe in screenshot pixels (tap's scroll option). */
  async swipe(swipe: Swipe): Promise<void> {
    this.deadline.throwIfAborted();
    this.screenPageSource = undefined;
    await this.opened.swipe(swipe);
  }

  /**
   * Scroll with the driver's own command and its answer (whole pages); `undefined`, having done
   * nothing, when the session has no such command.
   */
  async scrollAndTell(scroll: DriverScroll): Promise<ScrollAnswer | undefined> {
    this.deadline.throwIfAborted();
    const scrollAndTell = this.opened.scrollAndTell;
    if (!scrollAndTell) return undefined;
    this.screenPageSource = undefined;
    return scrollAndTell(scroll);
  }

  /** Where the targets' elements are now, in screenshot pixels; `null` for one not found. */
  async elementRects(targets: ElementTarget[]): Promise<(Rect | null)[]> {
    this.deadline.throwIfAborted();
    // The driver's element lookups do not outlive the call: they end with its deadline.
    return targets.length ? untilAborted(this.opened.elementRects(targets), this.deadline.signal) : [];
  }

  /**
   * The page source's elements, or why there are none (docs/heal.md): never throws. It is read
   * once per screen: a heal whose ladder read it and whose model then locates on the same
   * screenshot stores the element from that reading, and a failed read is not retried. The read
   * ends at the call's deadline, and the call then fails with its TimeoutError.
   */
  async pageSource(): Promise<CallPageSource> {
    this.deadline.throwIfAborted();
    if (this.screenPageSource) return { ...(await this.screenPageSource), reused: true };
    this.screenPageSource = readPageSource(this.opened.pageSource, this.device, { signal: this.deadline.signal });
    const reading = await this.screenPageSource;
    this.deadline.throwIfAborted();
    return reading;
  }

  /** Every element `target` matches now (toSatisfy), ended by the call's deadline. */
  async elementMatches(target: ElementTarget): Promise<Rect[]> {
    this.deadline.throwIfAborted();
    return untilAborted(this.opened.elementMatches(target), this.deadline.signal);
  }

  /**
   * The page source's elements with depth, states and text fields (toSatisfy's evidence), read
   * anew each time since the assertion watches the screen change; never throws, as {@link pageSource}.
   */
  async pageNodes(): Promise<PageSourceReading<PageNode>> {
    this.deadline.throwIfAborted();
    const reading = await readPageSource(this.opened.pageSource, this.device, {
      signal: this.deadline.signal,
      parse: parsePageNodes,
    });
    this.deadline.throwIfAborted();
    return reading;
  }

  /**
   * Claim the budget's place of the next {@link ask} now, so a spent budget fails before the
   * step that comes first (a tap that `verify` will check), not after it.
   */
  async claimAhead(): Promise<void> {
    await this.claim();
    this.claimedAhead++;
  }

  /**
   * Ask the model: the budget is claimed first (a {@link BudgetError} leaves the channel
   * unasked), then the call is counted, and what it cost is recorded whether it is answered or not.
   * The channel claims again for each further request it sends (retries, a refinement pass).
   */
  async ask<K extends AiKind>(request: AiRequestOf<K>): Promise<AiAnswers[K]> {
    const channel = this.config.channel();
    if (this.claimedAhead > 0) this.claimedAhead--;
    else await this.claim();
    this.log.countRequest();
    const started = Date.now();
    const cost = { kind: request.kind, imageBytes: imageBytesOf(request) };
    let claims = 0;
    const claim = async () => {
      if (++claims > 1) await this.claim();
    };
    const requests = () => (claims > 1 ? { requests: claims } : {});
    let answer: AiAnswers[K];
    try {
      answer = await ask(channel, request, { signal: this.deadline.signal, claim });
    } catch (error) {
      this.log.recordModelCall({ ...cost, model: "none", ms: Date.now() - started, failed: true, ...requests() });
      throw error;
    }
    this.log.countAnswer(answer.model, answer.usage);
    this.log.recordModelCall({
      ...cost,
      model: answer.model,
      ...tokensAndPrice(answer.usage, this.config.prices[answer.model]),
      ms: Date.now() - started,
      ...requests(),
    });
    return answer;
  }

  /**
   * Run `work`, the optional part of a failure (a diff image, a hint), only while the call's
   * timeout has not passed: after it, `work` is left unfinished, noted as skipped, and `undefined`
   * comes back, so a failure is thrown at its timeout, not after its report. Synchronous work cannot
   * be cut off: long work yields between steps (src/core/pixels/banded-diff.ts). A caller's abort still throws.
   */
  async whileTimeLeft<T>(what: string, work: () => Promise<T>): Promise<T | undefined> {
    const skipped = () => {
      this.note(`${what} skipped: the call's timeout passed`);
      return undefined;
    };
    if (this.deadline.expired()) return skipped();
    try {
      return await untilAborted(work(), this.deadline.signal);
    } catch (error) {
      if (error instanceof TimeoutError && this.deadline.signal.reason === error) return skipped();
      throw error;
    }
  }

  /**
   * Report one failure image: kept in the run folder (what review reads) and handed to the runner's
   * reporter, each independently; a failing write or reporter is noted, not thrown.
   */
  async report(role: Artifact["role"], data: Buffer, label: string = role): Promise<void> {
    const api = this.log.api;
    const subject =
      api === "tap" || api === "toSatisfy" || api === "act"
        ? `${api === "toSatisfy" ? "satisfy" : api}-${slugify(this.subject, 40)}`
        : `screenshot-${this.subject}`;
    const artifact: Artifact = {
      name: redact(`${subject}__${this.deviceSlug}__${label}.png`),
      role,
      mimeType: "image/png",
      data,
      api: this.log.api,
      subject: redact(this.subject),
      device: this.deviceSlug,
    };
    const { resultsDir, reportArtifact } = this.config;
    const sinks: [string, () => Promise<string | void>][] = [];
    if (resultsDir) sinks.push(["keeping", () => keepArtifact(resultsDir, artifact)]);
    if (reportArtifact) sinks.push(["reporting", async () => reportArtifact(artifact)]);
    for (const [what, sink] of sinks) {
      try {
        const where = await sink();
        if (where) this.log.addArtifact(where);
      } catch (error) {
        this.note(`${what} artifact ${artifact.name} failed: ${(error as Error).message}`);
      }
    }
  }
}

/** Bytes of every image a request sends, decoded from base64. */
function imageBytesOf(request: AiRequest): number {
  const images: AiImage[] = request.screen ? [request.screen] : [];
  if (request.kind === "locate" && request.reference) images.push(request.reference);
  if (request.kind === "compare") images.push(request.baseline, request.diff);
  if (request.kind === "judge") images.push(...request.references.map((r) => r.image));
  return images.reduce((sum, image) => sum + Buffer.byteLength(image.data, "base64"), 0);
}

/** The tokens an answer reports and, with a price per million tokens, what they cost. */
function tokensAndPrice(usage: Usage | undefined, price: ModelPrice | undefined) {
  const tokens = {
    ...(usage?.inputTokens !== undefined ? { inputTokens: usage.inputTokens } : {}),
    ...(usage?.outputTokens !== undefined ? { outputTokens: usage.outputTokens } : {}),
  };
  if (!price || (tokens.inputTokens === undefined && tokens.outputTokens === undefined)) return tokens;
  const cost = ((tokens.inputTokens ?? 0) * price.input + (tokens.outputTokens ?? 0) * price.output) / 1_000_000;
  return { ...tokens, cost };
}

/** Encode a PNG for a model request. */
export async function toAiImage(png: Buffer): Promise<AiImage> {
  const { width, height } = await imageSize(png);
  return { mimeType: "image/png", data: png.toString("base64"), width, height };
}
