/**
 * Benchmark 9, transfer (docs/transfer.md), standalone: `npx tsx bench/transfer.ts [runs]`. The
 * demo shop's three-tap flow (bench/rig-flow.ts) is learned on one rig profile through the real
 * `gemini()` provider against the Gemini wire double, then run on another profile of the platform
 * with transfer on and off, each pair from a fresh storage folder. Per pair and setting: the
 * double's `locate` requests on the new profile, wrong taps (the demo server's click log: anything
 * but each step's button) and the wall time of the flow on the new profile (median of the runs).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gemini } from "tapshot/providers";
import { configureAi, resetAi, type LogEntry } from "tapshot/runner";
import { startGeminiDouble, type Knowledge } from "../rig/model-doubles/index.js";
import { galaxyS23, iphone15, iphoneSE, pixel7, type PhoneProfile } from "../rig/profiles.js";
import { rigTarget, startRig, type RigSession } from "../rig/session.js";
import { FLOW, flowBoxes, flowKnowledge, SEED, waitForScreen } from "./rig-flow.js";
import { median, round, wallMs } from "./stats.js";

const KEY = "bench-key-not-a-secret";
const PAIRS: [PhoneProfile, PhoneProfile][] = [
  [iphone15, iphoneSE],
  [pixel7, galaxyS23],
  [galaxyS23, pixel7],
];

/** Run the flow once; returns each tap's outcome and whether any click hit something else. */
async function runFlow(session: RigSession, transfer: boolean): Promise<{ outcomes: string[]; wrong: number }> {
  await session.open("cart", { seed: SEED });
  const outcomes: string[] = [];
  for (const step of FLOW) {
    await waitForScreen(session.driver, step.screen);
    outcomes.push((await session.ai.tap(session.driver, step.prompt, { transfer, timeout: 60_000 })).outcome);
  }
  await waitForScreen(session.driver, "cart");
  const clicked = (await session.taps()).map((t) => t.testid);
  const wrong = clicked.filter((id, i) => id !== FLOW[i]?.testid).length + Math.max(0, FLOW.length - clicked.length);
  return { outcomes, wrong };
}

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 1);
  let current: Knowledge = {};
  const knowledge: Knowledge = {
    locate: (target, frame) => current.locate?.(target, frame) ?? { found: false, reason: "double: no session yet" },
  };
  const [rig, double] = await Promise.all([startRig(), startGeminiDouble(knowledge, { apiKey: KEY })]);
  const rows: string[] = [];
  try {
    const knowledgeOf = new Map<PhoneProfile, Knowledge>();
    for (const profile of [iphone15, iphoneSE, pixel7, galaxyS23]) {
      const session = await rig.session(profile);
      knowledgeOf.set(profile, flowKnowledge(await flowBoxes(session), (await session.describe()).screen.width));
    }
    for (const [from, to] of PAIRS) {
      for (const transfer of [true, false]) {
        const times: number[] = [];
        let locates = 0;
        let wrong = 0;
        let outcomes: string[] = [];
        for (let run = 0; run < runs; run++) {
          const storageDir = await mkdtemp(join(tmpdir(), "tapshot-bench-transfer-"));
          const logs: LogEntry[] = [];
          configureAi({
            channel: gemini({ apiKey: KEY, baseUrl: double.baseUrl }),
            storageDir,
            target: rigTarget,
            log: (e) => logs.push(e),
            resultsDir: false,
            mode: "auto",
          });
          try {
            current = knowledgeOf.get(from)!;
            const learned = await runFlow(await rig.session(from), true);
            wrong += learned.wrong;
            current = knowledgeOf.get(to)!;
            const before = double.calls("locate");
            const session = await rig.session(to);
            let done = { outcomes: [] as string[], wrong: 0 };
            times.push(await wallMs(async () => (done = await runFlow(session, transfer))));
            locates += double.calls("locate") - before;
            wrong += done.wrong;
            outcomes = done.outcomes;
          } finally {
            resetAi();
            await rm(storageDir, { recursive: true, force: true });
          }
        }
        rows.push(
          `| ${from.id} -> ${to.id} | ${transfer ? "on" : "off"} | ${locates / runs} | ${wrong} | ` +
            `${round(median(times) / 1000, 2)} s | ${outcomes.join(", ")} |`,
        );
        console.warn(rows.at(-1));
      }
    }
  } finally {
    await Promise.allSettled([rig.stop(), double.close()]);
  }
  console.log(
    [
      `runs per row: ${runs}`,
      "| pair | transfer | locate calls on the new profile (per run) | wrong taps | flow time on the new profile (median) | outcomes |",
      "| --- | --- | --- | --- | --- | --- |",
      ...rows,
    ].join("\n"),
  );
}

await main();
