/**
 * Benchmark 5, fleet learning: N = 1, 2, 4 parallel sessions of one new device (the same
 * emulated iPhone 15, so one device slug) run the three-tap flow with an empty storage folder
 * and the real `gemini()` provider against the Gemini wire double. Target: 3 locate calls
 * whatever N (one session learns each tap under the store's lock; the others wait and replay).
 * Wall time of the learning run is set against the same N sessions replaying the flow from
 * what was just stored (0 model calls).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AiChannel, Box } from "tapshot/runner";
import { imageSize } from "tapshot/images";
import { gemini } from "tapshot/providers";
import { configureAi, resetAi } from "tapshot/runner";
import { startGeminiDouble } from "../rig/model-doubles/index.js";
import { rigTarget, type RigSession } from "../rig/session.js";
import { FLOW, flowKnowledge, SEED, waitForScreen } from "./rig-flow.js";
import { fromMedians, median, round, wallMs, type Figure } from "./stats.js";

/** Options of {@link benchFleet}. */
export interface FleetOptions {
  /** Fleet sizes to run. */
  sizes: number[];
  /** Learning runs (each with a fresh storage folder) per size. */
  runs: number;
}

const KEY = "bench-key-not-a-secret";

/** Run the flow once on every session at the same time; returns the outcomes of each session's taps. */
async function runFleet(sessions: RigSession[]): Promise<string[][]> {
  await Promise.all(sessions.map((s) => s.open("cart", { seed: SEED })));
  return Promise.all(
    sessions.map(async (s) => {
      const outcomes: string[] = [];
      for (const step of FLOW) {
        await waitForScreen(s.driver, step.screen);
        outcomes.push((await s.ai.tap(s.driver, step.prompt)).outcome);
      }
      await waitForScreen(s.driver, "cart");
      return outcomes;
    }),
  );
}

export async function benchFleet(
  sessions: RigSession[],
  boxes: Map<string, Box>,
  { sizes, runs }: FleetOptions,
): Promise<{ figures: Figure[]; storageDir: string }> {
  const screenWidth = (await sessions[0]!.describe()).screen.width;
  const double = await startGeminiDouble(flowKnowledge(boxes, screenWidth));
  const figures: Figure[] = [];
  const dirs: string[] = [];
  try {
    // One channel for every run, warmed up once, so loading @google/genai is not counted as learning.
    const provider = gemini({ apiKey: KEY, baseUrl: double.baseUrl });
    const png = await sessions[0]!.screenshot();
    const screen = { mimeType: "image/png" as const, data: png.toString("base64"), ...(await imageSize(png)) };
    await provider.request(
      { kind: "locate", prompt: FLOW[0]!.prompt, screen },
      { signal: new AbortController().signal },
    );
    /** Wall time spent inside the channel (image preparation, HTTP, the double's answer). */
    let channelMs = 0;
    const channel: AiChannel = {
      async request(request, options) {
        const start = performance.now();
        try {
          return await provider.request(request, options);
        } finally {
          channelMs += performance.now() - start;
        }
      },
    };
    for (const n of sizes) {
      const fleet = sessions.slice(0, n);
      if (fleet.length < n) throw new Error(`fleet of ${n} needs ${n} sessions, got ${fleet.length}`);
      const learnMs: number[] = [];
      const replayMs: number[] = [];
      const learnCalls: number[] = [];
      const channelMsPerLocate: number[] = [];
      const replayCalls: number[] = [];
      let outcomes: string[][] = [];
      for (let run = 0; run < runs; run++) {
        const storageDir = await mkdtemp(join(tmpdir(), `tapshot-bench-fleet-${n}-`));
        dirs.push(storageDir);
        configureAi({
          channel,
          storageDir,
          target: rigTarget,
          log: false,
          resultsDir: false,
          mode: "auto",
        });
        let before = double.calls("locate");
        channelMs = 0;
        learnMs.push(await wallMs(async () => (outcomes = await runFleet(fleet))));
        learnCalls.push(double.calls("locate") - before);
        channelMsPerLocate.push(channelMs / Math.max(1, learnCalls.at(-1)!));
        before = double.calls("locate");
        replayMs.push(await wallMs(() => runFleet(fleet)));
        replayCalls.push(double.calls("locate") - before);
      }
      const tally = outcomes.flat().reduce<Record<string, number>>((t, o) => ({ ...t, [o]: (t[o] ?? 0) + 1 }), {});
      figures.push(
        fromMedians(
          `fleet of ${n}: learning wall time`,
          "ms",
          "same fleet replaying",
          median(learnMs),
          median(replayMs),
          runs,
          {
            detail: {
              locateCalls: median(learnCalls),
              locateCallsTarget: FLOW.length,
              locateCallsPerRun: learnCalls,
              replayLocateCalls: median(replayCalls),
              outcomesOfLastRun: tally,
              channelMsPerLocate: round(median(channelMsPerLocate), 1),
            },
          },
        ),
      );
    }
  } finally {
    resetAi();
    await double.close();
    // Keep the last folder: the memory benchmark replays from it.
    for (const dir of dirs.slice(0, -1)) await rm(dir, { recursive: true, force: true });
  }
  return { figures, storageDir: dirs.at(-1)! };
}
