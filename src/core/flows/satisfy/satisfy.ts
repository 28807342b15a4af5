/*
 * `toSatisfy` (docs/api.md, "Semantic assertions"): the policy of the web API it comes from. A
 * positive assertion passes when P(true) reaches the threshold, a negated one when P(false) does;
 * anything in between fails both ways, and a failed evaluation never passes. It watches the element
 * until it passes or its verdict settles: each distinct snapshot is judged once per call (stored
 * judgments are reused with no model call), and a passing one is read again before it counts.
 */
import { ElementNotFoundError, InputError, NotSatisfiedError, NotStoredError } from "../../ground/errors.js";
import { checkKnownOptions, checkOptionalText, checkSignal, checkText, checkTimeout } from "../../ground/checks.js";
import { sleep } from "../../ground/deadline.js";
import type { ElementTarget } from "../../device/description.js";
import type { Call } from "../../run/call.js";
import type { Done } from "../../run/lifecycle.js";
import { judge, textJudged, type Judgment, type Statement } from "./judgment-kind.js";
import { escapeRegExp } from "./evidence.js";
import { readSnapshot, type Snapshot, type SnapshotParams, type Waiting } from "./snapshot.js";

/** The threshold when neither the call nor configureAi sets one. */
export const DEFAULT_SATISFY_THRESHOLD = 0.9;
/** How long a failing snapshot must stay the same before the failure is final (a slow screen may still change). */
const SETTLE_MS = 1_000;
/** Pause between looks. */
const POLL_MS = 250;

/** Options of `toSatisfy`. */
export interface SatisfyOptions {
  /**
   * The probability, more than 0 and at most 1, that the statement (or, under `.not`, its negation)
   * must reach. Default `configureAi({ satisfyThreshold })`, else 0.9.
   */
  threshold?: number;
  /** Extra words for the model, e.g. "order numbers and dates vary". Part of the stored judgment's key. */
  context?: string;
  /** With `expect(driver)`: the element to judge, by selector (anything `driver.$()` accepts). */
  selector?: string;
  /**
   * Send the image too: an element's crop or the screen. Default: an element's crop only when it has no
   * text (an image, a chart); the screen always with `expect(driver)` (`false` sends text only).
   */
  screenshot?: boolean;
  /**
   * Text that varies between runs (dates, order numbers), masked from the evidence's hash so the
   * stored judgment is reused: `ignore: [/Order #\d+/]`. The model still reads it.
   */
  ignore?: (RegExp | string)[];
  /** Total time budget in ms: reads, evaluation and diagnostics. Default 30000. */
  timeout?: number;
  /** Aborts the call. */
  signal?: AbortSignal;
}

/** What `toSatisfy` did. */
export interface SatisfyResult {
  /** `learned`: the model judged the snapshot now; `replayed`: a stored judgment was used. */
  outcome: "learned" | "replayed";
  /** P(true) of the statement for the snapshot that passed. */
  probability: number;
  /** The model (or double) that judged it. */
  model: string;
  reason: string;
  /** The evidence's hash (SHA-256, hex) of the snapshot that passed. */
  evidenceHash: string;
  /** Model requests this call made. */
  aiCalls: number;
}

/** The checked input of one call. */
export interface SatisfyParams extends SnapshotParams, Statement {
  not: boolean;
  threshold: number | undefined;
}

const OPTIONS = ["threshold", "context", "selector", "screenshot", "ignore", "timeout", "signal"];

/** Check `toSatisfy`'s arguments; `target` is the element the subject named, if any. */
export function checkSatisfyInput(
  statement: unknown,
  options: unknown,
  subject: { target: ElementTarget | undefined; not: boolean },
): { params: SatisfyParams; timeout: number; signal: AbortSignal | undefined } {
  const opts = checkKnownOptions(options, OPTIONS, "toSatisfy");
  const selector = checkOptionalText(opts.selector, "toSatisfy's selector", '"~order-status"');
  if (selector && subject.target) {
    throw new InputError("toSatisfy got both an element and a selector option; pass one of them.");
  }
  const threshold = opts.threshold;
  if (threshold !== undefined && (typeof threshold !== "number" || !(threshold > 0 && threshold <= 1))) {
    throw new InputError(
      `toSatisfy's threshold must be a number more than 0 and at most 1, e.g. 0.9; got ${String(threshold)}.`,
    );
  }
  if (opts.screenshot !== undefined && typeof opts.screenshot !== "boolean") {
    throw new InputError(`toSatisfy's screenshot must be true or false; got ${String(opts.screenshot)}.`);
  }
  return {
    params: {
      statement: checkText(statement, "toSatisfy's statement", '"the customer is requesting a refund"'),
      context: checkOptionalText(opts.context, "toSatisfy's context", '"order numbers vary"'),
      not: subject.not,
      threshold,
      target: selector ? { selector } : subject.target,
      screenshot: opts.screenshot as boolean | undefined,
      ignore: checkIgnore(opts.ignore),
    },
    timeout: checkTimeout(opts.timeout),
    signal: checkSignal(opts.signal),
  };
}

function checkIgnore(value: unknown): RegExp[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => v instanceof RegExp || (typeof v === "string" && v))) {
    throw new InputError(
      "toSatisfy's ignore must be a list of regular expressions or non-empty strings, e.g. [/Order #\\d+/].",
    );
  }
  return value.map((v: RegExp | string) => (typeof v === "string" ? new RegExp(escapeRegExp(v), "gi") : v));
}

/** A look and its judgment (none: waiting, or unjudged in mode replay). */
type Look = { waiting: Waiting } | { snapshot: Snapshot; judgment?: Judgment; unjudged?: NotStoredError };

/** Run `toSatisfy` on the call's device. */
export async function runSatisfy(call: Call, params: SatisfyParams): Promise<Done<Omit<SatisfyResult, "aiCalls">>> {
  const threshold = params.threshold ?? call.config.satisfyThreshold ?? DEFAULT_SATISFY_THRESHOLD;
  const judged = new Map<string, { judgment?: Judgment; unjudged?: NotStoredError }>();
  let last: Look | undefined;
  let sameSince = Date.now();
  for (;;) {
    const look = await lookOnce(call, params, judged);
    if ("snapshot" in look && look.judgment && passes(look.judgment.probability, threshold, params.not)) {
      // Accepted only if the text and tree still read the same.
      const again = await readSnapshot(call, params);
      if (again.state === "ready" && again.hash === look.snapshot.hash) return passed(look.snapshot, look.judgment);
    }
    if (!last || hashOf(last) !== hashOf(look)) sameSince = Date.now();
    last = look;
    const settled = "snapshot" in look && Date.now() - sameSince >= SETTLE_MS;
    if (settled || call.deadline.remaining() < POLL_MS * 2) break;
    await sleep(POLL_MS, call.deadline.signal);
  }
  throw failure(params, threshold, last);
}

async function lookOnce(
  call: Call,
  params: SatisfyParams,
  judged: Map<string, { judgment?: Judgment; unjudged?: NotStoredError }>,
): Promise<Look> {
  const snapshot = await readSnapshot(call, params);
  if (snapshot.state === "waiting") return { waiting: snapshot };
  let verdict = judged.get(snapshot.hash);
  if (!verdict) {
    try {
      const done = await judge(call, params, snapshot);
      verdict = { judgment: done.result };
    } catch (error) {
      // In mode replay an unjudged snapshot is not a failure yet: the screen may still reach a judged one.
      if (!(error instanceof NotStoredError)) throw error;
      verdict = { unjudged: error };
    }
    judged.set(snapshot.hash, verdict);
  }
  return { snapshot, ...verdict };
}

const hashOf = (look: Look) => ("snapshot" in look ? look.snapshot.hash : `waiting ${look.waiting.why}`);

/** Whether a probability passes: P(true) for a positive assertion, P(false) under `.not`. */
export function passes(probability: number, threshold: number, not: boolean): boolean {
  return (not ? 1 - probability : probability) >= threshold;
}

function passed(snapshot: Snapshot, judgment: Judgment): Done<Omit<SatisfyResult, "aiCalls">> {
  const { probability, model, reason, reused } = judgment;
  return {
    outcome: reused ? "replayed" : "learned",
    result: { outcome: reused ? "replayed" : "learned", probability, model, reason, evidenceHash: snapshot.hash },
    detail: `P(true) ${probability.toFixed(2)}, snapshot ${snapshot.hash.slice(0, 12)}`,
  };
}

function failure(params: SatisfyParams, threshold: number, last: Look | undefined): Error {
  const what = `${params.not ? "not." : ""}toSatisfy(${JSON.stringify(params.statement)})`;
  if (!last || "waiting" in last) {
    return new ElementNotFoundError(
      `${what} found nothing to judge before its timeout: ${last ? last.waiting.why : "no look finished"}. ` +
        `Check the selector, or raise timeout if the screen is slow.`,
    );
  }
  if (last.unjudged) return last.unjudged;
  const { probability, model, reason, key } = last.judgment!;
  const needs = params.not ? `P(false) >= ${threshold}` : `P(true) >= ${threshold}`;
  const uncertain = !passes(probability, threshold, !params.not);
  return new NotSatisfiedError(
    `${what} failed: the model ${model} gave the statement probability ${probability.toFixed(2)} of being true ` +
      `(${uncertain ? "uncertain: " : ""}it needs ${needs}). Its reason: ${reason} ` +
      `Evidence ${last.snapshot.hash.slice(0, 12)} (${key}.json); text judged: ${textJudged(last.snapshot)}.`,
  );
}
