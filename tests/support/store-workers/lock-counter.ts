/**
 * `lock-counter.ts <store> <workerId> <iterations>`: after "go", `iterations` times: take
 * the lock `counter`, read the counter, wait a little, write it plus one, release.
 * Inside the critical section it also holds a marker file (`markerFile` in open-store.ts) created with O_EXCL, so two
 * holders at once show up as a violation without comparing clocks. Reports its critical sections
 * as [enter, exit] in CLOCK_MONOTONIC nanoseconds (one clock for every process on the machine).
 */
import { promises as fs } from "node:fs";
import { markerFile, openStore } from "./open-store.js";
import { args, ready, report } from "./worker-io.js";

const [spec, workerText, iterationsText] = args;
const worker = Number(workerText);
const iterations = Number(iterationsText);
const store = openStore(spec!);
const inside = markerFile(spec!);

await ready();
const sections: [string, string][] = [];
const violations: string[] = [];
for (let i = 0; i < iterations; i++) {
  const release = await store.lock("counter", { deadline: Date.now() + 120_000 });
  const enter = process.hrtime.bigint();
  const marker = await fs.open(inside, "wx").catch((error: NodeJS.ErrnoException) => {
    violations.push(`worker ${worker} iteration ${i}: ${error.code}`);
    return null;
  });
  const count = Number((await store.read("counter"))?.toString("utf8") ?? "0");
  await new Promise((resolve) => setTimeout(resolve, 3));
  await store.write("counter", Buffer.from(String(count + 1)));
  if (marker) {
    await marker.close();
    await fs.rm(inside);
  }
  const exit = process.hrtime.bigint();
  await release();
  sections.push([String(enter), String(exit)]);
}
report({ worker, sections, violations });
