/*
 * tapshot's errors as W3C WebDriver errors, so every client shows tapshot's message as is.
 *
 * Appium turns a thrown error into the W3C response `{ value: { error, message, stacktrace } }`
 * from the error's own `error` and `w3cStatus` properties (base-driver's `getResponseForW3CError`
 * in Appium 3; any other error becomes "unknown error" with a prefixed message). It sends no
 * `data` field, so tapshot's code is carried where every client keeps it: the first line of the
 * stack trace, `tapshot-error-code: <code>`, as well as in `data` for in-process callers.
 */
import { TapshotError, type TapshotErrorCode } from "../core/ground/errors.js";

/**
 * The W3C error code and HTTP status (W3C WebDriver, "Errors" table) a tapshot code is sent as.
 * An element tapshot did not find is not sent as "no such element": WebdriverIO's `webdriver`
 * package reads a 404 "no such element" as a successful answer of any command (its
 * `isSuccessfulResponse`, made for finding elements), so `execute` would resolve instead of throw.
 */
const W3C_ERRORS: Partial<Record<TapshotErrorCode, [error: string, status: number]>> = {
  input: ["invalid argument", 400],
  timeout: ["timeout", 500],
};
const UNKNOWN: [string, number] = ["unknown error", 500];

/** The first line of the stack trace a client sees, naming tapshot's error code. */
export const CODE_LINE = "tapshot-error-code:";

/** A W3C error as Appium's protocol layer sends it: its own `error` and `w3cStatus` decide the response. */
export class TapshotW3CError extends Error {
  readonly error: string;
  readonly w3cStatus: number;
  /** What Appium sends as the response's `stacktrace`. */
  readonly stacktrace: string;
  /** tapshot's code and the failure's artifacts (W3C's optional error data; Appium 3 does not send it). */
  readonly data: { code: TapshotErrorCode; artifacts: string[] };

  constructor(cause: TapshotError, sentAs?: [error: string, status: number]) {
    super(cause.message, { cause });
    this.name = "TapshotW3CError";
    const [error, status] = sentAs ?? W3C_ERRORS[cause.code] ?? UNKNOWN;
    this.error = error;
    this.w3cStatus = status;
    this.data = { code: cause.code, artifacts: [...cause.artifacts] };
    const artifacts = cause.artifacts.length ? `\ntapshot-artifacts: ${cause.artifacts.join(" ")}` : "";
    this.stacktrace = `${CODE_LINE} ${cause.code}${artifacts}\n${cause.stack ?? ""}`;
  }
}

/** The error to throw to Appium for what a tapshot call threw: tapshot's own as W3C errors, others as they are. */
export function toW3CError(error: unknown): unknown {
  return error instanceof TapshotError ? new TapshotW3CError(error) : error;
}

/**
 * The codes of an element that is not there: the model found none, or the stored one never
 * appeared. Answering a find-element command, they are W3C "no such element" (404), which every
 * client raises as its NoSuchElement exception and waits on; other failures keep their mapping.
 */
const MISSING_ELEMENT: TapshotErrorCode[] = ["not-found", "replay-mismatch"];

/** {@link toW3CError} for a find-element command (the `-tapshot` strategy). */
export function toFindW3CError(error: unknown): unknown {
  if (error instanceof TapshotError && MISSING_ELEMENT.includes(error.code)) {
    return new TapshotW3CError(error, ["no such element", 404]);
  }
  return toW3CError(error);
}
