/** The console table of a benchmark run. */
import type { Figure } from "./stats.js";

const TITLES: Record<string, string> = {
  replay: "1 replay work",
  rig: "2 rig replay",
  compare: "3 comparison",
  payload: "4 model payload",
  fleet: "5 fleet learning",
  memory: "6 memory",
  peers: "7 peers",
  heal: "8 heal ladder",
  ladder: "8b heal ladder on the rig",
  verdict: "10 change to failure",
  act: "11 ai.act on the rig",
};
const ORDER = [
  "replay",
  "rig",
  "compare",
  "payload",
  "fleet",
  "memory",
  "peers",
  "heal",
  "ladder",
  "verdict",
  "act",
  "plugin",
];

const num = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2));

/** One row per figure: what, value, baseline, ratio, budget and whether it holds. */
function row(f: Figure): string[] {
  const budget = f.budget === undefined ? "" : `<= ${f.budget}x`;
  const verdict = f.withinBudget === undefined ? "" : f.withinBudget ? "ok" : "MISSED";
  const d = f.detail;
  const calls =
    d?.locateCalls !== undefined
      ? ` (${d.locateCalls} locate calls)`
      : d?.rungOn !== undefined
        ? ` (${d.rungOn}; locate calls ${d.locateCallsOn} / ${d.locateCallsOff}; ${d.wrongTaps} wrong taps)`
        : "";
  return [
    f.name + calls,
    `${num(f.value)} ${f.unit}`,
    `${num(f.baseline)} ${f.unit} (${f.baselineName})`,
    `${f.ratio.toFixed(3)}x`,
    budget,
    verdict,
  ];
}

function columns(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(rows[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...rows.slice(1).map(line)].join("\n");
}

/** Benchmark 7's verdicts: one row per pair, one column per tool. */
export function formatVerdicts(verdicts: Record<string, Record<string, string>>): string {
  const tools = Object.keys(Object.values(verdicts)[0] ?? {});
  return columns([
    ["pair", ...tools],
    ...Object.entries(verdicts).map(([pair, row]) => [pair, ...tools.map((t) => row[t] ?? "")]),
  ]);
}

export function formatTable(results: Partial<Record<string, Figure[]>>, skipped: Partial<Record<string, string>>) {
  const rows: string[][] = [["figure", "median", "baseline (median)", "ratio", "budget", ""]];
  for (const key of ORDER) {
    if (skipped[key]) rows.push([`${TITLES[key]}: skipped (${skipped[key]})`, "", "", "", "", ""]);
    for (const f of results[key] ?? []) rows.push(row({ ...f, name: `${TITLES[key]}: ${f.name}` }));
  }
  return columns(rows);
}
