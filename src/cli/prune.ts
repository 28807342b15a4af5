/**
 * `tapshot prune`: remove records not used since a date, or of devices no longer in use.
 * Each record's files go together, JSON first (the commit point), under the key's lock.
 * It also sweeps temp files that interrupted writes left behind (FileStore.sweepTemp says which).
 */
import { promises as fs } from "node:fs";
import path from "node:path";
import { FileStore, STALE_TEMP_MS } from "../core/store/file-store.js";
import type { Store } from "../core/store/store.js";
import { deleteRecord } from "../core/store/record-io.js";
import { age, printJson, printLines, table } from "./format.js";
import { allEntries, type StoreEntry, type StoreModel } from "./model.js";
import { matchesFilter, type EntryFilter } from "./select.js";
import { EXIT, UsageError } from "./exit.js";

/** How long prune waits for a run that is learning or healing a record. */
const LOCK_WAIT_MS = 10_000;

export interface PruneOptions extends EntryFilter {
  /** Remove records last used before this time. */
  unusedSince?: Date;
  dryRun?: boolean;
  json?: boolean;
}

/** What prune removed (or would remove) and why. */
interface Pruned {
  kind: StoreEntry["kind"];
  key: string;
  platform: string;
  device: string;
  subject: string;
  lastUsed: string;
  files: string[];
  /** Why it could not be removed, if it could not. */
  error?: string;
}

function selectForPrune(model: StoreModel, options: PruneOptions): StoreEntry[] {
  if (!options.unusedSince && !options.device?.length) {
    throw new UsageError(
      "prune needs --unused-since <date|age> or --device <slug> (or both): it never removes everything. " +
        "Example: tapshot prune --unused-since 90d --dry-run",
    );
  }
  return allEntries(model).filter(
    (e) => matchesFilter(e, options) && (!options.unusedSince || e.lastUsed < options.unusedSince),
  );
}

export async function runPrune(model: StoreModel, options: PruneOptions): Promise<number> {
  const selected = selectForPrune(model, options);
  const store = model.store;
  const results: Pruned[] = [];
  for (const entry of selected) {
    const files = [
      entry.files.json,
      entry.files.image,
      ...(entry.files.previousImage ? [entry.files.previousImage] : []),
    ];
    const pruned: Pruned = {
      kind: entry.kind,
      key: entry.key,
      platform: entry.platform,
      device: entry.device,
      subject: entry.subject,
      lastUsed: entry.lastUsed.toISOString(),
      files,
    };
    if (!options.dryRun) {
      try {
        await removeRecord(store, entry);
      } catch (error) {
        pruned.error = (error as Error).message;
      }
    }
    results.push(pruned);
  }
  const sweep = await sweepTemp(store, Boolean(options.dryRun));
  const failed = results.filter((r) => r.error);
  if (options.json) {
    printJson({
      dryRun: Boolean(options.dryRun),
      storage: model.root,
      removed: results,
      staleTempFiles: sweep.removed,
      failed: failed.length + (sweep.error ? 1 : 0),
    });
  } else {
    const verb = options.dryRun ? "Would remove" : "Removed";
    const done = results.length - failed.length;
    const lines = [
      `${verb} ${done} record${done === 1 ? "" : "s"} from ${model.root}${options.dryRun ? " (dry run)" : ""}.`,
    ];
    if (results.length) {
      lines.push(
        ...table(
          ["KIND", "PLATFORM", "DEVICE", "NAME / PROMPT", "LAST USED"],
          results.map((r) => [r.kind, r.platform, r.device, r.subject, age(r.lastUsed) + (r.error ? " (FAILED)" : "")]),
        ),
      );
    }
    if (sweep.removed.length) {
      const n = sweep.removed.length;
      lines.push(
        `${verb} ${n} temp file${n === 1 ? "" : "s"} left by interrupted writes (their writer stopped, or older than ${STALE_TEMP_MS / 3_600_000} h).`,
      );
    }
    printLines(lines);
    const problems = [
      ...failed.map((r) => `tapshot: could not remove ${r.key}: ${r.error}`),
      ...(sweep.error ? [`tapshot: could not remove stale temp files: ${sweep.error}`] : []),
    ];
    if (problems.length) printLines(problems, process.stderr);
  }
  return failed.length || sweep.error ? EXIT.failure : EXIT.ok;
}

async function sweepTemp(store: Store, dryRun: boolean): Promise<{ removed: string[]; error?: string }> {
  // A bucket has no temp files: an upload is stored whole or not at all.
  if (!(store instanceof FileStore)) return { removed: [] };
  try {
    return { removed: await store.sweepTemp({ dryRun }) };
  } catch (error) {
    return { removed: [], error: (error as Error).message };
  }
}

async function removeRecord(store: Store, entry: StoreEntry): Promise<void> {
  // The key's lock: a run that is learning or healing this record right now finishes first.
  const release = await store.lock(entry.key, { deadline: Date.now() + LOCK_WAIT_MS });
  try {
    // Used or rewritten since this prune read the store (a replay touches it, a heal rewrites it): keep it.
    const now = await store.modifiedAt(`${entry.key}.json`);
    if (now && now.getTime() !== entry.modifiedAt.getTime()) {
      throw new Error("it was used or changed while pruning, so it was kept");
    }
    await deleteRecord(store, entry.key);
  } finally {
    await release();
  }
  if (store instanceof FileStore) await removeEmptyFolders(store.root, path.dirname(entry.files.json));
}

/** Remove `dir` and its parents up to (not including) `root` while they are empty. */
async function removeEmptyFolders(root: string, dir: string): Promise<void> {
  for (let current = dir; current.startsWith(root + path.sep); current = path.dirname(current)) {
    try {
      await fs.rmdir(current);
    } catch {
      return; // not empty
    }
  }
}
