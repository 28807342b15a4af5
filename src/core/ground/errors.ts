/*
 * Error classes that tapshot throws. Catch {@link TapshotError} for all of them,
 * or a subclass by its `code` for one kind of failure.
 */

/** Machine-readable reason a tapshot call failed. */
export type TapshotErrorCode =
  | "config"
  | "input"
  | "ai-answer"
  | "provider"
  | "not-stored"
  | "not-found"
  | "verify-failed"
  | "replay-mismatch"
  | "screenshot-mismatch"
  | "not-satisfied"
  | "rejected"
  | "store"
  | "timeout"
  | "aborted"
  | "device"
  | "budget";

/** Base class of every error tapshot throws on purpose. */
export class TapshotError extends Error {
  /** What kind of failure this is; stable across versions, safe to branch on. */
  readonly code: TapshotErrorCode;
  /** Where the failure's images were reported (file paths or runner URLs), if any. */
  artifacts: string[] = [];

  constructor(code: TapshotErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }
}

/** A base for the errors of one `code`, built from a message and an optional cause. */
function withCode(code: TapshotErrorCode) {
  return class extends TapshotError {
    constructor(message: string, options?: { cause?: unknown }) {
      super(code, message, options);
    }
  };
}

/** `configureAi` or the environment holds something invalid, or no model channel is configured. */
export class ConfigError extends withCode("config") {}

/** A call got an argument it cannot use (empty prompt, invalid name, negative timeout...). */
export class InputError extends withCode("input") {}

/** A model channel answered with something that does not fit the contract for that request kind. */
export class AiAnswerError extends TapshotError {
  constructor(
    /** The request kind whose answer was malformed. */
    readonly kind: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super("ai-answer", message, options);
  }
}

/** A model provider failed (HTTP error, refusal, network); never carries the API key. */
export class ProviderError extends TapshotError {
  constructor(
    readonly provider: string,
    readonly model: string,
    message: string,
    readonly status?: number,
    options?: { cause?: unknown },
  ) {
    super("provider", message, options);
  }
}

/** Nothing is stored for this call and the model may not be asked (`mode: "replay"`). */
export class NotStoredError extends withCode("not-stored") {}

/** The model did not find the element a tap asked for. */
export class ElementNotFoundError extends withCode("not-found") {}

/** The model said the screen after a fresh tap does not satisfy `verify`; nothing was stored. */
export class VerifyFailedError extends withCode("verify-failed") {}

/**
 * `toSatisfy` failed (docs/api.md, "Semantic assertions"): the statement's probability did not reach the
 * threshold (or its negation's, under `.not`), or it was uncertain. The message gives the statement, the
 * probability, the model's reason, the evidence's hash and the text judged.
 */
export class NotSatisfiedError extends withCode("not-satisfied") {}

/** A stored tap's crop never matched the screen before the deadline. */
export class ReplayMismatchError extends withCode("replay-mismatch") {}

/** A screenshot differs from its stored baseline by more than the allowed pixels. */
export class ScreenshotMismatchError extends TapshotError {
  constructor(
    message: string,
    /** Pixels that differ outside masks. */
    readonly diffPixels: number,
    /** `diffPixels` divided by all the screenshot's pixels. */
    readonly diffRatio: number,
  ) {
    super("screenshot-mismatch", message);
  }
}

/** The model judged a screenshot against its prompt and rejected it, or a change as real. */
export class RejectedError extends withCode("rejected") {}

/** Stored data is unreadable or inconsistent. */
export class StoreError extends withCode("store") {}

/** The call's time budget ran out. */
export class TimeoutError extends withCode("timeout") {}

/** The caller's `signal` aborted the call. */
export class AbortedError extends withCode("aborted") {}

/** The driver is not a usable Appium session of the platform, or a device command failed. */
export class DeviceError extends withCode("device") {}

/**
 * The model request budget (`maxAiCalls`) is spent, or a claim on it could not be confirmed; the
 * request was not sent.
 */
export class BudgetError extends TapshotError {
  /** The budget: the most model requests the run (or the session) may send. */
  readonly maxAiCalls: number;
  /** Model requests sent before this one under the same budget (across the run's worker processes). */
  readonly made: number;

  constructor(message: string, spent: { maxAiCalls: number; made: number }) {
    super("budget", message);
    this.maxAiCalls = spent.maxAiCalls;
    this.made = spent.made;
  }
}

/** `word` after its indefinite article: "an iPhone 15", "a Pixel 7", "an 8 Pro". */
export function withArticle(word: string): string {
  // A vowel sound: a vowel letter but the "w" of "One" and the "yoo" of "Unihertz" or "USB", the "ex" of
  // "Xperia" (not the "sh" of "Xiaomi"), or a number said with one (8, 11, 18).
  const vowel = /^(?:[aei]|o(?!ne)|u(?!ni|s[aeiou]|sb)|x[^aeiou]|8|11(?!\d)|18(?!\d))/i.test(word);
  return `${vowel ? "an" : "a"} ${word}`;
}

/** A model's reason as a clause inside a sentence: without its final full stop. */
export function clause(reason: string): string {
  return reason.trim().replace(/[.!]+$/, "");
}
