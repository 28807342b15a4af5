/**
 * Memory and CPU of the OCR engine alone: load it, read one PNG a few times, print RSS,
 * wall time and CPU time per read.
 * `npx tsx bench/ocr/memory.ts <png> [runs]`.
 */
import { readFile } from "node:fs/promises";
import { loadOcrEngine } from "tapshot/providers";

const png = await readFile(process.argv[2]!);
const runs = Number(process.argv[3] ?? 5);
const mb = (bytes: number) => Math.round(bytes / 1e6);
const start = mb(process.memoryUsage().rss);
const engine = await loadOcrEngine();
const loaded = mb(process.memoryUsage().rss);
const times: number[] = [];
const cpu: number[] = [];
for (let i = 0; i < runs; i++) {
  const t = performance.now();
  const before = process.cpuUsage();
  await engine.read(png);
  const used = process.cpuUsage(before);
  times.push(Math.round(performance.now() - t));
  // CPU time of the whole process (all threads): a measure that a busy machine does not inflate.
  cpu.push(Math.round((used.user + used.system) / 1000));
}
console.log(
  JSON.stringify({
    rssMb: { start, loaded, afterReads: mb(process.memoryUsage().rss), peak: mb(process.resourceUsage().maxRSS * 1e3) },
    readMs: times,
    readCpuMs: cpu,
  }),
);
