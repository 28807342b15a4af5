/**
 * `tapshot report --format markdown`: a summary for `$GITHUB_STEP_SUMMARY` or a pull-request
 * comment (docs/reviewing.md), over the same view as the HTML page, its images linked relative to
 * the report folder. Stored text is escaped so a prompt can neither format nor link anything.
 */
import { subjectOf } from "../../core/ground/log.js";
import { printable } from "../../core/ground/printable.js";
import { pendingCounts, type PendingValue } from "../review/pending.js";
import type { ReportView } from "./view.js";
import { costRows } from "./totals.js";

/** Text as inert Markdown: control characters escaped, Markdown and HTML specials backslashed or entities. */
export function md(value: unknown): string {
  return printable(String(value))
    .replace(/[\\`*_{}[\]()#+\-.!|~]/g, (c) => `\\${c}`)
    .replace(/[<>&]/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;" })[c]!);
}

function link(label: string, url: string | undefined): string {
  return url ? `[${label}](${url.replace(/[()\s]/g, encodeURIComponent)})` : `${label} (missing)`;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function renderMarkdown(view: ReportView, pending: PendingValue[]): string {
  const counts = pendingCounts(pending);
  const pendingKeys = new Set(pending.map((p) => p.entry.key));
  const calls = view.calls.map((c) => c.entry);
  const aiCalls = calls.reduce((sum, e) => sum + (e.aiCalls ?? 0), 0);
  const ms = calls.reduce((sum, e) => sum + (e.durationMs ?? 0), 0);
  const lines = [
    `## tapshot: ${plural(view.failures.length, "failure")}, ${plural(view.heals.length, "heal")}, ` +
      `${plural(counts.total, "value")} pending review`,
    "",
    "| failures | heals | new values pending | heals pending | calls | model calls | time |",
    "| --- | --- | --- | --- | --- | --- | --- |",
    `| ${view.failures.length} | ${view.heals.length} | ${counts.new} | ${counts.heals} | ${calls.length} | ` +
      `${aiCalls} | ${(ms / 1000).toFixed(1)} s |`,
  ];

  if (calls.length) {
    lines.push("", "### Model calls and their cost", "", "| | |", "| --- | --- |");
    for (const row of costRows(view.totals)) lines.push(`| ${md(row.label)} | ${md(row.value)} |`);
  }
  if (view.failures.length) {
    lines.push("", "### Failures");
    for (const { entry, artifacts } of view.failures) {
      const subject = subjectOf(entry);
      const files = artifacts.map((a) => link(md(a.label), a.url)).join(", ");
      lines.push(
        `- **${md(subject)}** on ${md(entry.device)}: ${md(entry.detail ?? "failed")}${files ? ` (${files})` : ""}`,
      );
    }
  }
  if (view.heals.length) {
    lines.push("", "### Heals");
    for (const heal of view.heals) {
      const { entry } = heal;
      const before = "point" in heal ? heal.before?.crop : heal.before;
      const after = "point" in heal ? heal.crop : heal.image;
      const state = pendingKeys.has(entry.key) ? "**pending review**" : "accepted";
      lines.push(
        `- ${entry.kind} **${md(entry.subject)}** on ${md(entry.device)}, ${state}: ${link("before", before)} → ` +
          `${link("after", after)}; the model (${md(entry.record.model)}): ${md(entry.record.reason)}`,
      );
    }
  }
  const fresh = pending.filter((p) => p.change === "new");
  if (fresh.length) {
    lines.push("", "### New values pending review");
    for (const { entry } of fresh) {
      lines.push(`- ${entry.kind} **${md(entry.subject)}** on ${md(entry.device)} by ${md(entry.record.model)}`);
    }
  }
  if (counts.total) {
    lines.push("", "Review with `npx tapshot review` (or `tapshot accept` / `tapshot revert`), then commit the files.");
  }
  if (view.store.invalid.length)
    lines.push("", `${plural(view.store.invalid.length, "invalid file")} in the store: see the HTML report.`);
  return lines.join("\n") + "\n";
}
