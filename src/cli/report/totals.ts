/**
 * What a run's model calls cost, totalled from calls.jsonl (docs/configuration.md "Cost"): calls
 * by kind, tokens, image bytes, time waiting on models, money where prices were configured, and
 * the values used without a model.
 */
import { TRANSFER_MODEL } from "../../core/flows/tap/transfer.js";
import type { RunEntry } from "../runs.js";

export interface RunTotals {
  /** tapshot calls (`tap`, `toMatchScreenshot`, `toSatisfy`). */
  calls: number;
  /**
   * Model requests (each retried attempt and refinement pass counted, as the budget counts them), and how many of
   * each kind (`locate`, `check`, `judge`, `compare`, `satisfy`).
   */
  modelCalls: number;
  byKind: Record<string, number>;
  inputTokens: number;
  outputTokens: number;
  /** Bytes of the images sent to models. */
  imageBytes: number;
  /** Time spent waiting on models, summed over requests. */
  modelMs: number;
  /** The priced requests' cost, in the prices' currency; `undefined` when none was priced. */
  cost: number | undefined;
  /** Models that reported tokens but have no price in `configureAi({ prices })`. */
  unpriced: string[];
  /** Stored values used as they were: taps replayed and baselines matched. */
  replayed: number;
  /** Values healed by a local rung (crop search, accessibility) without a model request. */
  healedLocally: number;
  /** Taps transferred from another device without a model request. */
  transferred: number;
  /**
   * Model requests those heals and transfers saved, at least: each would have needed one
   * `locate` request at the least (a zoomed refinement or a `verify` adds more).
   */
  savedAtLeast: number;
  /** Calls that made model requests but recorded no per-request costs (an older SDK wrote them). */
  unrecorded: number;
}

export function runTotals(entries: readonly RunEntry[]): RunTotals {
  const totals: RunTotals = {
    calls: entries.length,
    modelCalls: 0,
    byKind: {},
    inputTokens: 0,
    outputTokens: 0,
    imageBytes: 0,
    modelMs: 0,
    cost: undefined,
    unpriced: [],
    replayed: 0,
    healedLocally: 0,
    transferred: 0,
    savedAtLeast: 0,
    unrecorded: 0,
  };
  const unpriced = new Set<string>();
  for (const entry of entries) {
    const aiCalls = entry.aiCalls ?? 0;
    if (entry.outcome === "replayed" || entry.outcome === "matched") totals.replayed++;
    if (entry.outcome === "healed" && aiCalls === 0) totals.healedLocally++;
    if (entry.outcome === "learned" && aiCalls === 0 && entry.models?.includes(TRANSFER_MODEL)) totals.transferred++;
    if (aiCalls > 0 && !entry.modelCalls?.length) totals.unrecorded++;
    for (const call of entry.modelCalls ?? []) {
      const requests = call.requests ?? 1;
      totals.modelCalls += requests;
      totals.byKind[call.kind] = (totals.byKind[call.kind] ?? 0) + requests;
      totals.inputTokens += call.inputTokens ?? 0;
      totals.outputTokens += call.outputTokens ?? 0;
      totals.imageBytes += call.imageBytes ?? 0;
      totals.modelMs += call.ms ?? 0;
      if (call.cost !== undefined) totals.cost = (totals.cost ?? 0) + call.cost;
      else if (call.inputTokens || call.outputTokens) unpriced.add(call.model);
    }
  }
  totals.savedAtLeast = totals.healedLocally + totals.transferred;
  totals.unpriced = [...unpriced].sort();
  return totals;
}

/** A cost for people: up to 4 decimals, no trailing zeros, e.g. `0.0123`. */
export function formatCost(cost: number): string {
  return cost.toFixed(4).replace(/\.?0+$/, "") || "0";
}

/** Bytes for people: `812 B`, `1.4 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** The kinds in a fixed order, each with its count: `2 locate, 1 check`. */
export function kindsLine(byKind: Record<string, number>): string {
  const order = ["locate", "check", "judge", "compare", "satisfy"];
  const kinds = Object.keys(byKind).sort((a, b) => (order.indexOf(a) + 1 || 99) - (order.indexOf(b) + 1 || 99));
  return kinds.map((k) => `${byKind[k]} ${k}`).join(", ") || "none";
}

/** The totals as labelled rows, worded once for the HTML page and the Markdown summary; `id` names each row for tests. */
export function costRows(t: RunTotals): { id: string; label: string; value: string }[] {
  const rows = [
    { id: "model-calls", label: "model calls", value: `${t.modelCalls} (${kindsLine(t.byKind)})` },
    { id: "tokens", label: "tokens", value: `${t.inputTokens} in, ${t.outputTokens} out` },
    { id: "image-bytes", label: "images sent", value: formatBytes(t.imageBytes) },
    { id: "model-time", label: "time waiting on models", value: `${(t.modelMs / 1000).toFixed(1)} s` },
    {
      id: "cost",
      label: "cost",
      value:
        (t.cost === undefined ? "no prices configured" : formatCost(t.cost)) +
        (t.unpriced.length ? ` (no price for ${t.unpriced.join(", ")})` : ""),
    },
    { id: "replayed", label: "values replayed without a model", value: String(t.replayed) },
    { id: "healed-locally", label: "values healed without a model", value: String(t.healedLocally) },
    { id: "transferred", label: "taps transferred without a model", value: String(t.transferred) },
    { id: "saved", label: "model calls saved by heals and transfers", value: `at least ${t.savedAtLeast}` },
  ];
  if (t.unrecorded) {
    rows.push({
      id: "unrecorded",
      label: "calls without per-request costs",
      value: `${t.unrecorded} (recorded by an older tapshot: not in the totals above)`,
    });
  }
  return rows;
}
