/**
 * `tapshot accept` and `tapshot revert`: pending values chosen by name or prompt (as `show`
 * matches them), by filters, or `--all`; each prints exactly which files changed, to commit.
 */
import type { Store } from "../../core/store/store.js";
import { EXIT, UsageError } from "../exit.js";
import { printJson, printLines } from "../format.js";
import { allEntries, type StoreModel } from "../model.js";
import { matchesFilter, type EntryFilter } from "../select.js";
import { findEntries } from "../show.js";
import { acceptValue, finishRevert, revertValue, type ReviewBy, type ReviewChange } from "./actions.js";
import { pendingOf, pendingValues, type PendingValue } from "./pending.js";

export interface DecideOptions extends EntryFilter {
  all?: boolean;
  json?: boolean;
}

/** The pending values `query` (a name or prompt, exact or a part of it) and the filters select. */
export function selectPending(model: StoreModel, query: string | undefined, options: DecideOptions): PendingValue[] {
  const filtered = Boolean(options.platform || options.device?.length || options.kind);
  if (!query && !options.all && !filtered) {
    throw new UsageError(
      "say which pending values: a baseline name or tap prompt, --device / --kind / --platform, or --all. " +
        'Run "tapshot pending" to see them.',
    );
  }
  if (query && options.all) throw new UsageError("give a name or prompt, or --all, not both.");
  return query ? pendingOf(findEntries(model, query, options)) : pendingValues(model, options);
}

/** One value's change, or the error that stopped it. */
export type Decided = ReviewChange | { key: string; action: "failed"; files: []; why: string };

/** Apply `decision` to each value; an error on one does not stop the others. */
export async function decideAll(
  store: Store,
  values: PendingValue[],
  decision: "accept" | "revert",
  by: ReviewBy,
): Promise<Decided[]> {
  const apply = decision === "accept" ? acceptValue : revertValue;
  const done: Decided[] = [];
  for (const { entry } of values) {
    try {
      done.push(await apply(store, entry.key, by, entry.record.imageSha256));
    } catch (error) {
      done.push({ key: entry.key, action: "failed", files: [], why: (error as Error).message });
    }
  }
  return done;
}

/** Where a store key is, for the user to commit: `<location>/<key>`. */
export function locate(store: Store, key: string): string {
  return `${store.location}/${key}`;
}

export async function runDecide(
  model: StoreModel,
  store: Store,
  decision: "accept" | "revert",
  query: string | undefined,
  options: DecideOptions,
  by: ReviewBy,
): Promise<number> {
  const values = selectPending(model, query, options);
  const done = await decideAll(store, values, decision, by);
  // A revert killed half-way left its old image behind; the next revert finishes it.
  if (decision === "revert" && options.all) {
    for (const entry of allEntries(model).filter((e) => e.unfinishedRevert && matchesFilter(e, options))) {
      done.push(await finishRevert(store, entry.key));
    }
  }
  const failed = done.filter((d) => d.action === "failed");
  if (options.json) {
    printJson({
      storage: store.location,
      changes: done.map((d) => ({ ...d, files: d.files.map((f) => locate(store, f)) })),
    });
  } else {
    const changed = done.filter((d) => d.files.length);
    const verb = decision === "accept" ? "Accepted" : "Reverted";
    const lines = [`${verb} ${changed.length} value${changed.length === 1 ? "" : "s"}${changed.length ? ":" : "."}`];
    for (const d of changed) {
      lines.push(`  ${d.key} (${d.action})`, ...d.files.map((f) => `    ${locate(store, f)}`));
    }
    if (!values.length) {
      lines.push(
        `Nothing pending matches${query ? ` "${query}"` : ""}; run "tapshot pending" to see what awaits review.`,
      );
    }
    for (const d of done.filter((x) => x.action === "unchanged")) lines.push(`  ${d.key}: left alone, ${d.why}`);
    if (changed.length) lines.push("Commit the files above.");
    printLines(lines);
    if (failed.length)
      printLines(
        failed.map((d) => `tapshot: could not ${decision} ${d.key}: ${d.why}`),
        process.stderr,
      );
  }
  // A name or prompt that selects nothing is likely a typo: say so in the exit code, as `show` does.
  return failed.length || (query && !values.length) ? EXIT.failure : EXIT.ok;
}
