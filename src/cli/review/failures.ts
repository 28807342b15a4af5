/**
 * The last run's failures on the review page (docs/reviewing.md "Failures on the review page"):
 * read from the results folder as `tapshot accept --failed` reads them (accept-failed.ts), each
 * with the images the run kept and its change's fingerprint (fingerprint.ts). A baseline is
 * accepted by the same rules as `accept --failed`; a tap is forgotten, so the next run learns it.
 */
import { promises as fs } from "node:fs";
import { BaselineRecordSchema, type BaselineRecord } from "../../core/store/baseline-record.js";
import { deleteRecord, readRecord, sha256 } from "../../core/store/record-io.js";
import { TapRecordSchema, type TapRecord } from "../../core/store/tap-record.js";
import type { Store } from "../../core/store/store.js";
import { lastRun, readRuns, type Run, type RunEntry } from "../runs.js";
import {
  acceptFailure,
  artifactFile,
  failuresOf,
  unreadableFailures,
  type FailureDecision,
  type UnreadableFailure,
} from "./accept-failed.js";
import { withKeyLock, type ReviewBy } from "./actions.js";
import type { Fingerprinter } from "./fingerprint.js";

/** The images a failure may show, by kind (the labels the flows report them under). */
export const FAILURE_IMAGES = {
  baseline: ["expected", "actual", "diff"],
  tap: ["screenshot", "expected-crop", "actual-crop"],
} as const;

/** One failure of the last run, as the review page shows it. */
export interface ReviewFailure {
  /** `<run id>:<line>`: which call of which run. */
  id: string;
  kind: "baseline" | "tap";
  run: Run;
  entry: RunEntry & { key: string };
  /** The labels of {@link FAILURE_IMAGES} the run kept a file for. */
  images: string[];
  /** Of the change from expected to actual (baselines only). */
  fingerprint?: string;
  /** A baseline's stored value it failed against: its prompt, varying boxes and prompt masks. */
  baseline?: Pick<BaselineRecord, "prompt" | "device" | "varying" | "promptMasks">;
  /** A tap's stored value it failed against: where its box and point are on the screen. */
  tap?: Pick<TapRecord, "point" | "box" | "crop" | "device">;
  /** Why its stored value could not be read (the store is down, its JSON is corrupt): listed all the same. */
  unreadable?: string;
}

/** The last run's failures, and those whose line in calls.jsonl cannot be read (accept-failed.ts). */
export interface LastFailures {
  failures: ReviewFailure[];
  unreadable: UnreadableFailure[];
}

/** The stored value a failure failed against, `null` when none is stored; why not, on the failure, when it cannot be read. */
async function storedOf<T>(failure: ReviewFailure, read: () => Promise<T | null>): Promise<T | null | undefined> {
  try {
    return await read();
  } catch (error) {
    failure.unreadable = `its stored value cannot be read: ${(error as Error).message}`;
    return undefined;
  }
}

/**
 * Whether a failure is settled since: its baseline now is the run's screenshot (accepted), or its
 * tap is no longer stored or was stored again after the failure (forgotten, or learned again). One
 * whose stored value cannot be read is not settled: it stays listed, saying why.
 */
async function settled(store: Store, failure: ReviewFailure): Promise<boolean> {
  const { key, at } = failure.entry;
  if (failure.kind === "tap") {
    const stored = await storedOf(failure, () => readRecord(store, key, TapRecordSchema));
    if (stored === undefined) return false;
    if (stored) failure.tap = stored.record;
    return !stored || stored.record.storedAt > at;
  }
  const actual = await artifactFile(failure.run, failure.entry, "actual");
  const stored = await storedOf(failure, () => readRecord(store, key, BaselineRecordSchema));
  if (!stored) return false;
  failure.baseline = stored.record;
  return Boolean(actual && stored.record.imageSha256 === sha256(await fs.readFile(actual)));
}

/** The fingerprint of a baseline failure's change from its kept expected and actual images, if it has both. */
async function fingerprintOf(failure: ReviewFailure, fingerprint: Fingerprinter): Promise<string | undefined> {
  if (!failure.images.includes("expected") || !failure.images.includes("actual")) return undefined;
  try {
    const [expected, actual] = await Promise.all(
      ["expected", "actual"].map(async (label) =>
        fs.readFile((await artifactFile(failure.run, failure.entry, label))!),
      ),
    );
    return await fingerprint(expected!, actual!);
  } catch {
    // Without a fingerprint the failure is a group of its own: never grouped with a change it may not be.
    return undefined;
  }
}

/**
 * The failures of the last test run under `resultsDir` that are not settled in `store` yet (baselines'
 * with their change's fingerprint when `fingerprint` is given), each with its store key (entries of an
 * SDK before keys were recorded are left out: nothing says which value failed), and the lines of its
 * calls.jsonl that cannot be read and may be failures, with why.
 */
export async function lastFailures(
  resultsDir: string,
  store: Store,
  { fingerprint }: { fingerprint?: Fingerprinter } = {},
): Promise<LastFailures> {
  const runs = lastRun(await readRuns(resultsDir));
  const { baselines, taps } = failuresOf(runs);
  const tapFailures = new Map<string, { run: Run; entry: RunEntry & { key: string } }>();
  for (const run of runs) {
    for (const entry of run.entries) {
      if (taps.includes(entry) && entry.key)
        tapFailures.set(entry.key, { run, entry: entry as RunEntry & { key: string } });
    }
  }
  const failures: ReviewFailure[] = [];
  for (const [kind, list] of [
    ["baseline", baselines],
    ["tap", [...tapFailures.values()]],
  ] as const) {
    for (const { run, entry } of list) {
      const images: string[] = [];
      for (const label of FAILURE_IMAGES[kind]) if (await artifactFile(run, entry, label)) images.push(label);
      const failure: ReviewFailure = { id: `${run.id}:${run.entries.indexOf(entry)}`, kind, run, entry, images };
      if (await settled(store, failure)) continue;
      if (fingerprint && kind === "baseline") {
        const print = await fingerprintOf(failure, fingerprint);
        if (print) failure.fingerprint = print;
      }
      failures.push(failure);
    }
  }
  return { failures, unreadable: unreadableFailures(runs) };
}

/** A failed tap's stored value removed, so the next run learns it again; refused when another value is stored there now. */
async function forgetTap(store: Store, failure: ReviewFailure): Promise<FailureDecision> {
  const { key, prompt, device } = failure.entry;
  const refuse = (why: string): FailureDecision => ({ key, action: "refused", files: [], why });
  return withKeyLock(store, key, async () => {
    const stored = await readRecord(store, key, TapRecordSchema);
    if (!stored) return refuse(`no tap is stored at ${key}.json any more`);
    if (stored.record.prompt !== prompt || key.split("/").at(-2) !== device) {
      return refuse(`the stored tap is "${stored.record.prompt}" on another device than the failure's`);
    }
    return { key, action: "forgotten", files: await deleteRecord(store, key) };
  });
}

/** Accept (a baseline) or forget (a tap) one failure; an error is a refusal, so the others still go on. */
export async function decideFailure(
  store: Store,
  failure: ReviewFailure,
  action: "accept" | "forget",
  by: ReviewBy,
): Promise<FailureDecision> {
  const wrong = action === "accept" ? failure.kind !== "baseline" : failure.kind !== "tap";
  if (wrong) {
    const way = failure.kind === "tap" ? "forget it" : "accept it";
    return { key: failure.entry.key, action: "refused", files: [], why: `a failed ${failure.kind}: ${way} instead` };
  }
  try {
    return action === "accept"
      ? await acceptFailure(store, failure.run, failure.entry, by)
      : await forgetTap(store, failure);
  } catch (error) {
    return { key: failure.entry.key, action: "refused", files: [], why: (error as Error).message };
  }
}
