/** Statistics and timing shared by the benchmarks: medians, ratios, alternating runs. */
import { readFileSync } from "node:fs";

/** The median of `values` (mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (!values.length) throw new Error("median of no values");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The `p`th percentile of `values` (nearest rank). */
export function percentile(values: readonly number[], p: number): number {
  if (!values.length) throw new Error("percentile of no values");
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** `value / baseline`, rounded to 3 decimals. */
export function ratio(value: number, baseline: number): number {
  return round(value / baseline, 3);
}

/** Round to `digits` decimals. */
export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** Milliseconds of CPU time (user + system, every thread of the process) that `work` used. */
export async function cpuMs(work: () => Promise<unknown>): Promise<number> {
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** Milliseconds of wall time that `work` took. */
export async function wallMs(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

/** Samples of a measured subject and of its baseline, taken in alternation. */
export interface Paired {
  subject: number[];
  baseline: number[];
}

/**
 * Run `subject` and `baseline` alternately (`runs` times each, after `warmup` unmeasured
 * rounds), swapping which goes first every round so drift hits both alike.
 */
export async function alternate(
  runs: number,
  warmup: number,
  subject: () => Promise<number>,
  baseline: () => Promise<number>,
): Promise<Paired> {
  const out: Paired = { subject: [], baseline: [] };
  for (let i = 0; i < warmup + runs; i++) {
    const order = i % 2 ? [baseline, subject] : [subject, baseline];
    const [first, second] = [await order[0]!(), await order[1]!()];
    if (i < warmup) continue;
    const [s, b] = i % 2 ? [second, first] : [first, second];
    out.subject.push(s);
    out.baseline.push(b);
  }
  return out;
}

/** One figure of the report: a median, its baseline's median, and the ratio of the two. */
export interface Figure {
  /** What is measured, e.g. "replay CPU per call". */
  name: string;
  unit: string;
  value: number;
  baselineName: string;
  baseline: number;
  ratio: number;
  /** The budget on the ratio, when the design sets one. */
  budget?: number;
  /** `ratio <= budget`, when there is a budget. */
  withinBudget?: boolean;
  runs: number;
  /** Anything else worth recording (absolute sizes, call counts). */
  detail?: Record<string, unknown>;
}

/** A figure from paired samples. */
export function figure(
  name: string,
  unit: string,
  baselineName: string,
  samples: Paired,
  extra: { budget?: number; detail?: Record<string, unknown> } = {},
): Figure {
  const value = median(samples.subject);
  const baseline = median(samples.baseline);
  return fromMedians(name, unit, baselineName, value, baseline, samples.subject.length, extra);
}

/** A figure from medians already taken. */
export function fromMedians(
  name: string,
  unit: string,
  baselineName: string,
  value: number,
  baseline: number,
  runs: number,
  extra: { budget?: number; detail?: Record<string, unknown> } = {},
): Figure {
  const r = ratio(value, baseline);
  return {
    name,
    unit,
    value: round(value, 3),
    baselineName,
    baseline: round(baseline, 3),
    ratio: r,
    ...(extra.budget === undefined ? {} : { budget: extra.budget, withinBudget: r <= extra.budget }),
    runs,
    ...(extra.detail ? { detail: extra.detail } : {}),
  };
}

/** Whether libvips (sharp) is mapped into this process, or `undefined` without /proc (not Linux). */
export function libvipsLoaded(): boolean | undefined {
  try {
    return readFileSync("/proc/self/maps", "utf8").includes("libvips");
  } catch {
    return undefined;
  }
}

/**
 * Peak RSS of this process in MB. On Linux getrusage's `maxRSS` survives the exec that started a
 * child, so a child would report its parent's size at fork time when that was larger; VmHWM in
 * /proc/self/status is this program's own high-water mark. Elsewhere, `maxRSS`.
 */
export function peakRssMb(): number {
  try {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
    if (hwm) return Math.round(Number(hwm[1]) / 1024);
  } catch {
    // no /proc: not Linux
  }
  return Math.round(process.resourceUsage().maxRSS / 1024);
}
