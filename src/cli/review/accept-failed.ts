/**
 * `tapshot accept --failed [--run <id>]` (docs/reviewing.md "Accepting a failure"): each baseline
 * that failed in a run becomes the stored baseline from the screenshot the run kept (its `actual`
 * artifact), marked accepted, the old value kept as `previous`. No model, no device. A failure is
 * refused when what is stored no longer is what it failed against.
 */
import { promises as fs } from "node:fs";
import type { CallApi } from "../../core/ground/log.js";
import { pngSize } from "../../core/pixels/png.js";
import { BaselineRecordSchema, BaselineValueSchema } from "../../core/store/baseline-record.js";
import { FORMAT } from "../../core/store/record-format.js";
import { imageSizeOf, readRecord, replaceRecord, sha256 } from "../../core/store/record-io.js";
import type { Store } from "../../core/store/store.js";
import { EXIT } from "../exit.js";
import { printJson, printLines } from "../format.js";
import { artifactLabel, keptFile, type Run, type RunEntry } from "../runs.js";
import { withKeyLock, type ReviewBy } from "./actions.js";
import { locate } from "./decide.js";

/** The `model` of a baseline accepted from a failure: a person decided, no model was asked. */
export const ACCEPTED_FAILURE_MODEL = "tapshot accept --failed (no model)";

/** What happened to one failure. */
export interface FailureDecision {
  key: string;
  action: "accepted" | "forgotten" | "refused";
  /** Store keys written, for the user to commit. */
  files: string[];
  why?: string;
}

/** One failed call of a run, with its store key. */
export interface RunFailure {
  run: Run;
  entry: RunEntry & { key: string };
}

/** The calls whose failed value is learned again (mode update, autoHeal), never accepted from a failure. */
const RELEARNED: readonly CallApi[] = ["tap", "find", "act"];

/**
 * The last failure of each baseline key in `runs` (a retried test fails more than once), and the failed
 * taps, finds and acts. A failed `toSatisfy` is neither: the model judged the statement false, which no
 * review of a failure changes.
 */
export function failuresOf(runs: Run[]): { baselines: RunFailure[]; taps: RunEntry[] } {
  const last = new Map<string, RunFailure>();
  const taps: RunEntry[] = [];
  for (const run of runs) {
    for (const entry of run.entries) {
      if (entry.outcome !== "failed") continue;
      if (RELEARNED.includes(entry.api)) taps.push(entry);
      else if (entry.api === "toMatchScreenshot" && entry.key)
        last.set(entry.key, { run, entry: entry as RunEntry & { key: string } });
    }
  }
  return { baselines: [...last.values()], taps };
}

/** A failure a run recorded whose line cannot be read, and why; `api` when what is left of the line says. */
export interface UnreadableFailure {
  api?: CallApi;
  why: string;
}

const API_WORDS: Record<CallApi, string> = {
  tap: "tap",
  find: "find",
  act: "act",
  toMatchScreenshot: "screenshot",
  toSatisfy: "toSatisfy",
};

/** The `api` a cut or corrupt calls.jsonl line names, when it still shows one. */
function apiOfLine(text: string): UnreadableFailure["api"] {
  const api = /"api"\s*:\s*"(\w+)"/.exec(text)?.[1];
  return api && api in API_WORDS ? (api as CallApi) : undefined;
}

/**
 * Failures the runs recorded that cannot be read, each with why: a calls.jsonl line that is not a
 * valid entry (a crash mid-write, a hand edit) and does not say it passed. Listed, never dropped.
 */
export function unreadableFailures(runs: Run[]): UnreadableFailure[] {
  const found: UnreadableFailure[] = [];
  for (const run of runs) {
    for (const bad of run.unreadableLines) {
      const outcome = /"outcome"\s*:\s*"(\w+)"/.exec(bad.text)?.[1];
      if (outcome && outcome !== "failed") continue;
      const subject = /"(name|prompt)"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(bad.text);
      const api = apiOfLine(bad.text) ?? (subject && (subject[1] === "name" ? "toMatchScreenshot" : "tap"));
      const what = subject ? ` (${API_WORDS[api ?? "tap"]} "${subject[2]}")` : "";
      found.push({
        ...(api ? { api } : {}),
        why: `run ${run.id}, calls.jsonl line ${bad.line}${what} cannot be read: ${bad.why}`,
      });
    }
  }
  return found;
}

/**
 * The real path of the image with `label` the run kept for `entry`, only from inside the run's folder:
 * the last such file the entry names (a runner's reporter may name the same image by its URL too).
 */
export async function artifactFile(run: Run, entry: RunEntry, label: string): Promise<string | undefined> {
  const named = (entry.artifacts ?? []).filter((a) => new RegExp(`^${label}(-\\d+)?$`).test(artifactLabel(a)));
  for (const where of named.reverse()) {
    const real = await keptFile(run, where);
    if (real) return real;
  }
  return undefined;
}

async function artifactOf(run: Run, entry: RunEntry, label: string): Promise<Buffer | undefined> {
  const real = await artifactFile(run, entry, label);
  return real ? fs.readFile(real) : undefined;
}

/** Accept one failure under the key's lock, or say why not. */
export async function acceptFailure(store: Store, run: Run, entry: RunEntry & { key: string }, by: ReviewBy) {
  const { key } = entry;
  const refuse = (why: string): FailureDecision => ({ key, action: "refused", files: [], why });
  const actual = await artifactOf(run, entry, "actual");
  const expected = await artifactOf(run, entry, "expected");
  if (!actual || !expected) return refuse(`run ${run.id} kept no expected and actual images of it`);
  return withKeyLock(store, key, async () => {
    const stored = await readRecord(store, key, BaselineRecordSchema);
    if (!stored) return refuse(`no baseline is stored at ${key}.json any more`);
    const { record } = stored;
    if (record.name !== entry.name || key.split("/").at(-1) !== entry.device) {
      return refuse(`the stored baseline is "${record.name}" on another device than the failure's`);
    }
    const size = pngSize(actual);
    const want = imageSizeOf(record);
    if (!size || size.width !== want.width || size.height !== want.height) {
      const taken = size ? `${size.width}x${size.height}` : "not a PNG";
      return refuse(
        record.fullPage && size?.width === want.width
          ? `the failure's page is ${taken}, the stored page ${want.width}x${want.height}: a page of another ` +
              `height is not accepted from a failure; store it with TAPSHOT_MODE=update`
          : `the failure's screenshot is ${taken}, the stored baseline ${want.width}x${want.height}: it is not ` +
              `the same screen`,
      );
    }
    if (sha256(expected) !== record.imageSha256) {
      return refuse(`the stored baseline changed since run ${run.id} failed against it; rerun the test`);
    }
    const now = by.at;
    const accepted = BaselineRecordSchema.parse({
      ...record,
      format: FORMAT,
      model: ACCEPTED_FAILURE_MODEL,
      reason: `accepted from the failed run ${run.id}${by.name ? ` by ${by.name}` : ""}: ${entry.detail ?? "it differed"}`,
      imageSha256: sha256(actual),
      storedAt: now,
      previous: BaselineValueSchema.parse(record),
      review: { state: "accepted", by: by.name, at: now },
    });
    await replaceRecord(store, key, accepted, actual, stored.image);
    return { key, action: "accepted", files: [`${key}.previous.png`, `${key}.png`, `${key}.json`] } as FailureDecision;
  });
}

/** Accept every failed baseline of `runs`; prints each file changed and each refusal. */
export async function runAcceptFailed(
  store: Store,
  runs: Run[],
  by: ReviewBy,
  { json }: { json?: boolean },
): Promise<number> {
  const { baselines, taps } = failuresOf(runs);
  const done: FailureDecision[] = [];
  for (const { run, entry } of baselines) {
    try {
      done.push(await acceptFailure(store, run, entry, by));
    } catch (error) {
      done.push({ key: entry.key, action: "refused", files: [], why: (error as Error).message });
    }
  }
  const refused = done.filter((d) => d.action === "refused");
  // Only a baseline is accepted from a failure: only a line that may be one is one not accepted here.
  const unreadable = unreadableFailures(runs)
    .filter((u) => u.api === undefined || u.api === "toMatchScreenshot")
    .map((u) => u.why);
  const ids = runs.map((r) => r.id).join(", ") || "none";
  if (json) {
    printJson({
      storage: store.location,
      runs: runs.map((r) => r.id),
      changes: done.map((d) => ({ ...d, files: d.files.map((f) => locate(store, f)) })),
      unreadable,
    });
  } else {
    const accepted = done.filter((d) => d.action === "accepted");
    const lines = [
      baselines.length
        ? `Accepted ${accepted.length} failed baseline${accepted.length === 1 ? "" : "s"} of run ${ids}${accepted.length ? ":" : "."}`
        : unreadable.length
          ? `No failed baseline of run ${ids} could be read: nothing accepted.`
          : `No baseline failed in run ${ids}: nothing to accept.`,
    ];
    for (const d of accepted) lines.push(`  ${d.key}`, ...d.files.map((f) => `    ${locate(store, f)}`));
    if (accepted.length) lines.push("Commit the files above.");
    if (taps.length) {
      lines.push(
        `${taps.length} tap, find or act call${taps.length === 1 ? "" : "s"} failed too: these are not accepted ` +
          `from a failure; ` +
          `rerun with TAPSHOT_MODE=update (or autoHeal) to learn ${taps.length === 1 ? "it" : "them"} again.`,
      );
    }
    printLines(lines);
    const why = [
      ...refused.map((d) => `tapshot: did not accept ${d.key}: ${d.why}`),
      ...unreadable.map((u) => `tapshot: did not accept a failure: ${u}`),
    ];
    if (why.length) printLines(why, process.stderr);
  }
  return refused.length || unreadable.length ? EXIT.failure : EXIT.ok;
}
