/** `tapshot list`: stored taps, locators and baselines per platform and device, with age, last heal and last use. */
import { printJson, printLines, age, clip, table } from "./format.js";
import { allEntries, whereOf, type StoreEntry, type StoreModel } from "./model.js";
import { entryJson, matchesFilter, type EntryFilter } from "./select.js";
import { reviewOf } from "../core/store/review-state.js";

export interface ListOptions extends EntryFilter {
  json?: boolean;
}

export function runList(model: StoreModel, options: ListOptions): number {
  const entries = allEntries(model).filter((e) => matchesFilter(e, options));
  if (options.json) {
    printJson({
      storage: model.root,
      taps: entries.filter((e) => e.kind === "tap").map(entryJson),
      baselines: entries.filter((e) => e.kind === "baseline").map(entryJson),
      judgments: entries.filter((e) => e.kind === "judgment").map(entryJson),
      acts: entries.filter((e) => e.kind === "act").map(entryJson),
      invalid: model.invalid,
    });
    return 0;
  }
  const count = (kind: StoreEntry["kind"]) => entries.filter((e) => e.kind === kind).length;
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  const judgments = count("judgment");
  // Locators (`find`) are tap records of their own kind, listed with the taps (src/cli/model.ts).
  const locators = entries.filter((e) => e.record.kind === "locator").length;
  const acts = count("act");
  const lines = [
    `${model.root}: ${plural(count("tap") - locators, "tap")}, ${plural(count("baseline"), "baseline")}` +
      (locators ? `, ${plural(locators, "locator")}` : "") +
      (judgments ? `, ${plural(judgments, "judgment")}` : "") +
      (acts ? `, ${plural(acts, "act")}` : "") +
      (model.invalid.length ? `, ${model.invalid.length} invalid` : ""),
  ];
  const groups = new Map<string, typeof entries>();
  for (const entry of entries) {
    const group = [whereOf(entry), `${entry.platform} / ${entry.device}`].filter(Boolean).join(": ");
    groups.set(group, [...(groups.get(group) ?? []), entry]);
  }
  for (const [group, members] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    const rows = members
      .sort((a, b) => a.kind.localeCompare(b.kind) || a.subject.localeCompare(b.subject))
      .map((e) => [
        e.record.kind,
        clip(e.subject),
        age(e.record.createdAt),
        e.healedAt ? age(e.healedAt) : "-",
        age(e.lastUsed),
        e.record.model,
        reviewOf(e.record).state,
      ]);
    const header = ["KIND", "NAME / PROMPT", "CREATED", "HEALED", "LAST USED", "MODEL", "REVIEW"];
    lines.push("", group, ...table(header, rows).map((line) => `  ${line}`));
  }
  const filtered = Boolean(
    options.platform || options.device?.length || options.kind || options.project !== undefined || options.app,
  );
  if (!entries.length) lines.push("", filtered ? "Nothing stored matches the filters." : "Nothing stored yet.");
  if (model.invalid.length) {
    lines.push("", "Invalid (fix from git, or delete to learn again):");
    for (const bad of model.invalid) lines.push(`  ${bad.key}: ${bad.problem}`);
  }
  printLines(lines);
  return 0;
}
