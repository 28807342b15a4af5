/** `tapshot pending`: what awaits review; with `--fail-on-pending`, a CI gate (docs/reviewing.md). */
import { reviewOf } from "../../core/store/review-state.js";
import { EXIT } from "../exit.js";
import { age, clip, printJson, printLines, table } from "../format.js";
import { allEntries, deviceOf, type StoreEntry, type StoreModel } from "../model.js";
import { entryJson, matchesFilter, type EntryFilter } from "../select.js";
import { isHeal } from "./actions.js";

/** A value awaiting review: a heal (its previous value kept) or a new value. */
export interface PendingValue {
  entry: StoreEntry;
  change: "heal" | "new";
}

/** The pending values among `entries`. */
export function pendingOf(entries: StoreEntry[]): PendingValue[] {
  return entries
    .filter((e) => reviewOf(e.record).state === "pending")
    .map((entry) => ({ entry, change: isHeal(entry.record) ? "heal" : "new" }));
}

/** Every pending value of the store that matches `filter`. */
export function pendingValues(model: StoreModel, filter: EntryFilter = {}): PendingValue[] {
  return pendingOf(allEntries(model).filter((e) => matchesFilter(e, filter)));
}

/** `heals` and `new` counts, for summaries. */
export function pendingCounts(values: PendingValue[]): { total: number; heals: number; new: number } {
  const heals = values.filter((v) => v.change === "heal").length;
  return { total: values.length, heals, new: values.length - heals };
}

export interface PendingOptions extends EntryFilter {
  json?: boolean;
  failOnPending?: boolean;
}

export function runPending(model: StoreModel, options: PendingOptions): number {
  const values = pendingValues(model, options);
  const counts = pendingCounts(values);
  if (options.json) {
    printJson({
      storage: model.root,
      ...counts,
      pending: values.map((v) => ({ change: v.change, ...entryJson(v.entry) })),
    });
  } else if (!values.length) {
    printLines([`Nothing awaits review in ${model.root}.`]);
  } else {
    printLines([
      `${counts.total} value${counts.total === 1 ? "" : "s"} await${counts.total === 1 ? "s" : ""} review in ` +
        `${model.root} (${counts.heals} heal${counts.heals === 1 ? "" : "s"}, ${counts.new} new):`,
      ...table(
        ["KIND", "CHANGE", "PLATFORM", "DEVICE", "NAME / PROMPT", "STORED", "MODEL"],
        values.map(({ entry, change }) => [
          entry.kind,
          change,
          entry.platform,
          deviceOf(entry),
          clip(entry.subject),
          age(entry.record.storedAt),
          entry.record.model,
        ]),
      ).map((line) => `  ${line}`),
      `Review them with "tapshot review", or "tapshot accept" / "tapshot revert" <name|prompt>.`,
    ]);
  }
  if (options.failOnPending && values.length) {
    printLines(
      [
        `tapshot: ${counts.total} stored value${counts.total === 1 ? "" : "s"} await review (--fail-on-pending). ` +
          `Run "tapshot review" (or accept / revert), then commit the changed files.`,
      ],
      process.stderr,
    );
    return EXIT.failure;
  }
  return EXIT.ok;
}
