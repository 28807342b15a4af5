/**
 * One process of benchmark 7's memory figure: 50 comparisons of two PNG files with one tool
 * (or, for `raw`, only reading the files), then its peak RSS as one JSON line.
 * Usage: peer-memory-child.ts <raw|tapshot|peer name> <base.png> <actual.png> <scratch dir>
 */
import { readFile } from "node:fs/promises";
import { peakRssMb } from "./stats.js";

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
console.log(JSON.stringify({ peakRssMb: peakRssMb() }));
process.exit(0);
