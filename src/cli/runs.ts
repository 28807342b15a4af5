/**
 * The run results the SDK records: `<resultsDir>/<run>/calls.jsonl` (one log entry per
 * call) beside the failure artifacts each call keeps (src/core/run/call.ts).
 */
import { CALL_APIS } from "../core/ground/log.js";
import { promises as fs } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { fileURLToPath } from "node:url";
import { describeZodError } from "../core/ground/zod-errors.js";
import { UsageError } from "./exit.js";
import { realFileIn } from "./report/files.js";

/** One recorded call: a log entry plus when it ended. */
export const RunEntrySchema = z.looseObject({
  api: z.enum(CALL_APIS),
  prompt: z.string().optional(),
  name: z.string().optional(),
  device: z.string(),
  outcome: z.enum(["replayed", "learned", "healed", "matched", "stored", "updated", "reached", "failed"]),
  aiCalls: z.number().optional(),
  models: z.array(z.string()).optional(),
  durationMs: z.number().optional(),
  /** Each model request of the call and what it cost (SDK versions before this field record none). */
  modelCalls: z
    .array(
      z.looseObject({
        kind: z.string(),
        model: z.string(),
        inputTokens: z.number().optional(),
        outputTokens: z.number().optional(),
        imageBytes: z.number().optional(),
        /** HTTP requests behind this answer when more than one (retries, a refinement pass). */
        requests: z.number().int().positive().optional(),
        ms: z.number().optional(),
        cost: z.number().optional(),
        failed: z.literal(true).optional(),
      }),
    )
    .optional(),
  detail: z.string().optional(),
  artifacts: z.array(z.string()).optional(),
  /** The store key (without extension) the call used, when the SDK records it. */
  key: z.string().optional(),
  at: z.string().datetime(),
});
/** One line of `calls.jsonl`. */
export type RunEntry = z.infer<typeof RunEntrySchema>;

/** A line of calls.jsonl that is not a valid entry (a crash mid-write, a hand edit), and why. */
export interface UnreadableLine {
  /** 1-based. */
  line: number;
  why: string;
  /** The line as written, for what can still be read off it. */
  text: string;
}

/** One run folder. */
export interface Run {
  /** Folder name (the SDK's run id). */
  id: string;
  dir: string;
  entries: RunEntry[];
  /** Lines of calls.jsonl that are not valid entries. */
  unreadableLines: UnreadableLine[];
  /** When the first call started and the last ended (ms since epoch). */
  start: number;
  end: number;
}

/** Every run folder under `resultsDir` that holds a calls.jsonl, oldest first; `[]` when there is none. */
export async function readRuns(resultsDir: string): Promise<Run[]> {
  let names: string[];
  try {
    names = await fs.readdir(resultsDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error as NodeJS.ErrnoException).code === "ENOTDIR")
      return [];
    throw error;
  }
  const runs: Run[] = [];
  for (const id of names) {
    const dir = path.join(resultsDir, id);
    let text: string;
    let written: number;
    try {
      text = await fs.readFile(path.join(dir, "calls.jsonl"), "utf8");
      written = (await fs.stat(path.join(dir, "calls.jsonl"))).mtimeMs;
    } catch {
      continue;
    }
    const run = parseRun(id, dir, text, written);
    if (run) runs.push(run);
  }
  return runs.sort((a, b) => a.end - b.end || a.id.localeCompare(b.id));
}

/** The run of one calls.jsonl; one whose every line is unreadable is placed in time by the file's `written` time. */
function parseRun(id: string, dir: string, text: string, written: number): Run | null {
  const entries: RunEntry[] = [];
  const unreadableLines: UnreadableLine[] = [];
  for (const [index, line] of text.split("\n").entries()) {
    if (!line.trim()) continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      unreadableLines.push({ line: index + 1, why: `not JSON (${(error as Error).message})`, text: line });
      continue;
    }
    const parsed = RunEntrySchema.safeParse(json);
    if (parsed.success) entries.push(parsed.data);
    else
      unreadableLines.push({ line: index + 1, why: `not a call entry: ${describeZodError(parsed.error)}`, text: line });
  }
  if (!entries.length) {
    return unreadableLines.length ? { id, dir, entries, unreadableLines, start: written, end: written } : null;
  }
  const ends = entries.map((e) => Date.parse(e.at));
  const starts = entries.map((e, i) => ends[i]! - (e.durationMs ?? 0));
  return { id, dir, entries, unreadableLines, start: Math.min(...starts), end: Math.max(...ends) };
}

/**
 * Runs closer than this are one test run: parallel workers (jest, wdio) each write
 * their own run folder, and a worker for the next spec file starts a few seconds later.
 */
export const SAME_RUN_GAP_MS = 30_000;

/**
 * The last test run: the newest run folder plus every folder whose calls overlap it,
 * or follow within {@link SAME_RUN_GAP_MS} (parallel workers of one test run).
 */
export function lastRun(runs: Run[]): Run[] {
  if (!runs.length) return [];
  const byStart = [...runs].sort((a, b) => a.start - b.start);
  let group: Run[] = [];
  let groupEnd = -Infinity;
  for (const run of byStart) {
    if (run.start > groupEnd + SAME_RUN_GAP_MS) group = [];
    group.push(run);
    groupEnd = Math.max(groupEnd, run.end);
  }
  return group.sort((a, b) => a.start - b.start);
}

/** The label an artifact file name ends with: `tap-x__pixel-7_14__expected-crop.png` -> `expected-crop`. */
export function artifactLabel(file: string): string {
  const base = path.basename(file).replace(/\.png$/i, "");
  const parts = base.split("__");
  return parts.length >= 3 ? parts.slice(2).join("__") : base;
}

/**
 * The real path of an artifact a run record names, only when it is a file inside the run's folder:
 * as named (a path or a `file:` URL, relative to the folder), or by its name beside calls.jsonl (the
 * results folder moved since, e.g. a downloaded CI artifact). A runner's URL is no file: `undefined`.
 */
export async function keptFile(run: Run, where: string): Promise<string | undefined> {
  const local = filePath(where) ?? where;
  for (const candidate of [path.resolve(run.dir, local), path.join(run.dir, path.basename(local))]) {
    const real = await realFileIn(candidate, run.dir);
    if (real) return real;
  }
  return undefined;
}

function filePath(where: string): string | undefined {
  if (!where.startsWith("file:")) return undefined;
  try {
    return fileURLToPath(where);
  } catch {
    return undefined;
  }
}

/** The runs `ids` name (each must exist under `resultsDir`), or with none the last test run. */
export function pickRuns(all: Run[], ids: string[] | undefined, resultsDir: string): Run[] {
  if (!ids?.length) return lastRun(all);
  return ids.map((id) => {
    const run = all.find((r) => r.id === id);
    if (run) return run;
    const known = all.map((r) => r.id).slice(-5);
    throw new UsageError(
      `No run "${id}" with a calls.jsonl under ${path.resolve(resultsDir)}` +
        (known.length ? `; recent runs: ${known.join(", ")}.` : "; it holds no runs."),
    );
  });
}
