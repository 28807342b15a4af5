/**
 * One process of benchmark 7's memory figure: 50 comparisons of two PNG files with one tool
 * (or, for `raw`, only reading the files), then its peak RSS as one JSON line.
 * Usage: peer-memory-child.ts <raw|tapshot|peer name> <base.png> <actual.png> <scratch dir>
 */
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";

const [name, base, actual, dir] = process.argv.slice(2) as [string, string, string, string];
const COMPARISONS = 50;

let compare: () => Promise<unknown>;
if (name === "raw") {
  compare = () => Promise.all([readFile(base), readFile(actual)]);
} else {
  const tools = await import("./peer-tools.js");
  const tool = name === "tapshot" ? tools.tapshot : await tools.PEERS[name as keyof typeof tools.PEERS]();
  if (!tool?.files) throw new Error(`no tool ${name} that compares files`);
  compare = () => tool.files!(base, actual, dir);
  process.once("exit", () => tool.close?.());
}
for (let i = 0; i < COMPARISONS; i++) await compare();
/**
 * Peak RSS of this process since it started. Linux keeps `maxRSS` (getrusage) across the exec
 * that started it, so it would report the benchmark parent's size at fork time; VmHWM is this
 * program's own high-water mark.
 */
function peakRssMb(): number {
  try {
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync("/proc/self/status", "utf8"));
    if (hwm) return Math.round(Number(hwm[1]) / 1024);
  } catch {
    // not Linux: fall back to getrusage
  }
  return Math.round(process.resourceUsage().maxRSS / 1024);
}
console.log(JSON.stringify({ peakRssMb: peakRssMb() }));
process.exit(0);
