/** The one log entry each tapshot call emits, and the default console logger. */
import { printable } from "./printable.js";

/** What a call ended with. */
export type Outcome = "replayed" | "learned" | "healed" | "matched" | "stored" | "updated" | "reached" | "failed";

/** What one model request of a call cost (docs/configuration.md "Cost"). */
export interface ModelCall {
  /** The request kind: `locate`, `check`, `judge`, `compare` or `satisfy`. */
  kind: string;
  /** The model that answered, as its answer names it; `none` when no answer came (an error, the deadline). */
  model: string;
  /** Tokens the provider reported; absent when it reported none. */
  inputTokens?: number;
  outputTokens?: number;
  /** Bytes of the images sent (decoded, not base64). */
  imageBytes: number;
  /** Time from sending the request to its answer or failure. */
  ms: number;
  /** The price of the tokens, from `configureAi({ prices })`, when the model has a price. */
  cost?: number;
  /** The request got no usable answer (it still counts against the budget). */
  failed?: true;
  /**
   * HTTP requests sent to the model server for this one answer, when more than one (retried attempts,
   * a refinement pass); each counts against `maxAiCalls`. Absent: one.
   */
  requests?: number;
}

/** The APIs that make calls, as log entries, artifacts and calls.jsonl name them. */
export const CALL_APIS = ["tap", "find", "act", "toMatchScreenshot", "toSatisfy"] as const;
/** One of {@link CALL_APIS}. */
export type CallApi = (typeof CALL_APIS)[number];

/** One entry per `tap`, `find`, `act`, `toMatchScreenshot` or `toSatisfy` call. */
export interface LogEntry {
  /** Which API made the call. */
  api: CallApi;
  /** The tap's prompt, find's description or act's goal, or toSatisfy's statement (prefixed `not: ` under `.not`). */
  prompt?: string;
  /** The baseline name (screenshots only). */
  name?: string;
  /** Device slug, e.g. `google-pixel-7_14`. */
  device: string;
  /** The record this call used: its store key without extension, e.g. `taps/ios/iphone-15_17.5/the-checkout-button-1a2b3c4d5e`. */
  key?: string;
  outcome: Outcome;
  /** Model requests made by this call. */
  aiCalls: number;
  /** Models that answered, in order (e.g. `gemini-2.5-flash`, `ocr:tesseract`). */
  models: string[];
  /** Tokens spent, when providers report them. */
  usage?: { inputTokens: number; outputTokens: number };
  /** Each model request of the call, in order: what it cost and which model answered. */
  modelCalls?: ModelCall[];
  durationMs: number;
  /** Human-readable line: the heal message, the failure, or why a record was not replayed. */
  detail?: string;
  /** Where this call's failure images went: each kept file in the run folder, then what the runner's reporter returned (a path or URL). */
  artifacts?: string[];
}

/** Message a heal is logged with, so teams can grep for it. */
export const HEALED_MESSAGE = "tapshot healed a stored value";
/** Message a value mode `update` replaced without a model is logged with. */
export const UPDATED_MESSAGE = "tapshot updated a stored value";

/** `tap "..."`, `screenshot "..."` or `toSatisfy "..."`, for lines and reports. */
export function subjectOf(entry: Pick<LogEntry, "api" | "prompt" | "name">): string {
  if (entry.api === "tap" || entry.api === "find" || entry.api === "act") return `${entry.api} "${entry.prompt}"`;
  return entry.api === "toSatisfy" ? `toSatisfy "${entry.prompt}"` : `screenshot "${entry.name}"`;
}

/** Format an entry as one console line: control characters in any field are escaped, so it stays one line. */
export function formatLogLine(entry: LogEntry): string {
  const subject = subjectOf(entry);
  const calls = `${entry.aiCalls} AI call${entry.aiCalls === 1 ? "" : "s"}`;
  const detail = entry.detail ? ` - ${entry.detail}` : "";
  return printable(
    `tapshot ${subject} [${entry.device}] ${entry.outcome}, ${calls}, ${Math.round(entry.durationMs)} ms${detail}`,
  );
}

/**
 * The standalone logger: one line per call on stderr (so it never mixes with a reporter's stdout).
 * A failure's reason is printed once, by the runner with the thrown error (beside the test's name,
 * stack and artifacts); its line here says only that the call failed (docs/configuration.md "The log line").
 */
export function consoleLogger(entry: LogEntry): void {
  if (entry.outcome === "failed") console.error(formatLogLine({ ...entry, detail: "the thrown error says why" }));
  else console.warn(formatLogLine(entry));
}
