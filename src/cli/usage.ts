/**
 * When each stored record was last used. Two cheap sources, neither rewriting records:
 * the record file's modification time (the SDK touches `<key>.json` on every replay),
 * and the calls recorded under the results folder. A git checkout sets every mtime to
 * the checkout time, so on a fresh clone the mtime over-states use: that errs on the
 * side of keeping records, never of pruning one that is in use.
 */
import type { Run, RunEntry } from "./runs.js";
import { parseScopedKey } from "../core/store/keys.js";

/** The latest recorded call per record, keyed by {@link usageKey}. */
export type CallIndex = Map<string, number>;

/** What a recorded call or a record is matched on. */
export function usageKey(api: "tap" | "baseline" | "judgment" | "act", device: string, subject: string): string {
  return `${api}\u0000${device}\u0000${subject}`;
}

/**
 * Index the recorded calls. An entry that names its store key is matched exactly;
 * older entries are matched by prompt (or name) and device, which may count a record
 * with another `verify` text as used: again erring on the side of keeping.
 */
export function indexCalls(runs: Run[]): CallIndex {
  const index: CallIndex = new Map();
  const bump = (key: string, at: number) => index.set(key, Math.max(index.get(key) ?? 0, at));
  for (const run of runs) {
    for (const entry of run.entries) {
      const at = Date.parse(entry.at);
      if (entry.key) bump(`key\u0000${entry.key}`, at);
      const subject = subjectOf(entry);
      // A toSatisfy call names no one record (its key depends on what it saw): its judgments' files are touched on use.
      if (subject !== undefined && entry.api !== "toSatisfy")
        bump(usageKey(entry.api === "tap" || entry.api === "act" ? entry.api : "baseline", entry.device, subject), at);
    }
  }
  return index;
}

function subjectOf(entry: RunEntry): string | undefined {
  return entry.api === "tap" || entry.api === "act" ? entry.prompt : entry.name;
}

/** The last use of one record: its file's mtime or its latest recorded call, whichever is later. */
export function lastUsed(
  index: CallIndex,
  record: {
    key: string;
    kind: "tap" | "baseline" | "judgment" | "act";
    device: string;
    subject: string;
    modifiedAt: Date;
  },
): Date {
  // A call logs its key within its project's and app's folder: a use by another app of the same key keeps it too.
  const fromCalls = Math.max(
    index.get(`key\u0000${record.key}`) ?? 0,
    index.get(`key\u0000${parseScopedKey(record.key).inner}`) ?? 0,
    index.get(usageKey(record.kind, record.device, record.subject)) ?? 0,
  );
  return new Date(Math.max(record.modifiedAt.getTime(), fromCalls));
}
