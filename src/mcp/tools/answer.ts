/* How every tool answers: one text content holding JSON, or tapshot's error as a tool error. */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { LogEntry } from "../../runner/index.js";

/** One text content holding `value` as JSON. */
export function jsonAnswer(value: object): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value, null, 1) }] };
}

/** What a call's log entry adds to its answer: the model calls, which models, the stored key, the detail. */
export function entryFields(entry: LogEntry | undefined): Record<string, unknown> {
  if (!entry) return {};
  return {
    models: entry.models,
    ...(entry.key ? { key: entry.key } : {}),
    ...(entry.detail ? { detail: entry.detail } : {}),
  };
}

/** Run a tool's work: its answer, or a tool result with `isError: true` and the error's own message. */
export async function answering(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (error) {
    return { isError: true, content: [{ type: "text", text: describeError(error) }] };
  }
}

function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return `${error.name}${typeof code === "string" ? ` (${code})` : ""}: ${error.message}`;
}
