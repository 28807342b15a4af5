/**
 * Provider failures as tapshot errors: a ProviderError names the provider, the model and
 * the HTTP status, and never carries a key (every message is redacted against the
 * provider's secrets and common key shapes, src/core/ground/secrets.ts). Aborts keep the caller's reason.
 */
import { AbortedError, ConfigError, ProviderError, TapshotError, TimeoutError } from "../core/ground/errors.js";
import { redact } from "../core/ground/secrets.js";

/** Who is failing, and what must never show up in a message. */
export interface ProviderIdentity {
  /** `gemini`, `openai`, `azure-openai`. */
  provider: string;
  model: string;
  /** Keys and tokens to redact from every message. */
  secrets: string[];
}

/** What a provider learned from one failed attempt. */
export interface Failure {
  /** HTTP status, when the server answered. */
  status?: number;
  /** The server's or the network's own words, unredacted. */
  detail: string;
  /** 408, 429, 5xx and dropped connections. */
  retryable: boolean;
  /** The server's `Retry-After` (or Gemini `retryDelay`), when it gave one. */
  retryAfterMs?: number;
  /** The request was aborted by its signal. */
  aborted?: boolean;
  /**
   * The server refused a setting of the provider's options (a thinking level, an API version): what
   * to change. The failure is then a ConfigError, since retrying cannot help.
   */
  fix?: string;
  cause?: unknown;
}

function shorten(text: string, max = 300): string {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > max ? `${oneLine.slice(0, max)}...` : oneLine;
}

function who(id: ProviderIdentity): string {
  return `The ${id.provider} provider (model ${id.model})`;
}

/** A ProviderError whose message starts with who failed and holds no secret. */
export function providerError(id: ProviderIdentity, what: string, status?: number, cause?: unknown): ProviderError {
  const message = redact(`${who(id)} ${what}`, id.secrets);
  const error = new ProviderError(id.provider, id.model, message, status);
  // The SDK's error can hold response bodies that echo a key; keep only a redacted copy of its text.
  if (cause instanceof Error) {
    error.cause = Object.assign(new Error(redact(cause.message, id.secrets)), { name: cause.name });
  }
  return error;
}

/** The error for a failure that will not be retried: a ConfigError when it says what to fix, else a ProviderError. */
export function failureError(id: ProviderIdentity, failure: Failure, attempts: number): TapshotError {
  if (failure.fix) {
    const status = failure.status !== undefined ? `HTTP ${failure.status}` : "an error";
    const detail = shorten(failure.detail).replace(/([^.!?])$/, "$1.");
    return new ConfigError(redact(`${who(id)} answered ${status}: ${detail} ${failure.fix}`, id.secrets));
  }
  const tries = attempts > 1 ? ` (after ${attempts} attempts)` : "";
  const what =
    failure.status !== undefined
      ? `answered HTTP ${failure.status}${tries}: ${shorten(failure.detail)}`
      : failure.retryable
        ? `could not be reached${tries}: ${shorten(failure.detail)}`
        : `gave a response it could not read: ${shorten(failure.detail)}`;
  return providerError(id, what, failure.status, failure.cause);
}

/**
 * The error for a request stopped by its signal. With no earlier failure this is the
 * signal's own reason (a TimeoutError or AbortedError from the call's deadline) with the
 * provider named; after failures it is a ProviderError that says what kept failing.
 */
export function abortedError(id: ProviderIdentity, signal: AbortSignal, last?: Failure, attempts = 1): TapshotError {
  const reason: unknown = signal.reason;
  if (last) {
    const status = last.status !== undefined ? `HTTP ${last.status}` : "a network error";
    const error = providerError(
      id,
      `kept failing with ${status} (${attempts} attempt${attempts > 1 ? "s" : ""}: ${shorten(last.detail, 160)}) ` +
        `until the call was stopped: ${reason instanceof Error ? reason.message : String(reason)}`,
      last.status,
      last.cause,
    );
    return error;
  }
  const note = ` ${who(id)} had not answered yet.`;
  if (reason instanceof TimeoutError) return new TimeoutError(redact(reason.message + note, id.secrets));
  if (reason instanceof AbortedError)
    return new AbortedError(redact(reason.message + note, id.secrets), { cause: reason });
  return new AbortedError(redact(`The request was aborted by its signal.${note}`, id.secrets), { cause: reason });
}
