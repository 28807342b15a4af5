/**
 * Checks of the arguments users pass, shared by every public call: each failure is an
 * InputError that says what was wrong and gives an example of what fits.
 */
import { InputError } from "./errors.js";
import { unknownOptionsMessage } from "./nearest.js";

/** A call's time budget when it passes no `timeout`. */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** The longest timer Node keeps (2^31-1 ms, about 24.8 days); a longer one fires after 1 ms. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export function checkText(value: unknown, what: string, example: string): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new InputError(`${what} must be a non-empty string, e.g. ${example}; got ${JSON.stringify(value)}.`);
  }
  return value;
}

export function checkOptionalText(value: unknown, what: string, example: string): string | undefined {
  return value === undefined ? undefined : checkText(value, what, example);
}

export function checkTimeout(value: unknown): number {
  if (value === undefined) return DEFAULT_TIMEOUT_MS;
  if (typeof value !== "number" || !(value >= 1 && value <= MAX_TIMEOUT_MS)) {
    throw new InputError(
      `timeout must be a number of milliseconds from 1 to ${MAX_TIMEOUT_MS}, e.g. 30000; got ${String(value)}.`,
    );
  }
  return value;
}

export function checkSignal(value: unknown): AbortSignal | undefined {
  if (value === undefined || value instanceof AbortSignal) return value;
  throw new InputError("signal must be an AbortSignal, e.g. AbortSignal.timeout(10000).");
}

export function checkBoolean(value: unknown, what: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== "boolean") throw new InputError(`${what} must be true or false; got ${String(value)}.`);
  return value;
}

export function checkRatio(value: unknown, what: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !(value >= 0 && value <= 1)) {
    throw new InputError(`${what} must be a number from 0 to 1; got ${String(value)}.`);
  }
  return value;
}

export function checkCount(value: unknown, what: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new InputError(`${what} must be a whole number of pixels, 0 or more; got ${String(value)}.`);
  }
  return value;
}

/** Reject unknown option names, so a typo (`autoheal`) does not silently do nothing. */
export function checkKnownOptions(options: unknown, known: string[], api: string): Record<string, unknown> {
  if (options === undefined) return {};
  if (typeof options !== "object" || options === null || Array.isArray(options)) {
    throw new InputError(`${api} options must be an object; got ${JSON.stringify(options)}.`);
  }
  const unknown = Object.keys(options).filter((k) => !known.includes(k));
  if (unknown.length) throw new InputError(`${api} got ${unknownOptionsMessage(unknown, known)}.`);
  return options as Record<string, unknown>;
}
