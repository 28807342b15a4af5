/**
 * Benchmark 6, memory: peak RSS of a process that replays 20 steps of the demo flow through
 * tapshot, against a process that runs the same 20 steps raw (screenshot + touch tap, without
 * tapshot loaded) on the same rig session. Each run is a fresh child process
 * (memory-child.ts), so its peak RSS is its own; modes alternate. A second figure runs V8's full
 * collection after every step in both modes: what tapshot keeps, without the garbage V8 has not
 * collected yet.
 */
import type { Box } from "tapshot/runner";
import type { RigSession } from "../rig/session.js";
import { runJsonChild } from "./child.js";
import type { ChildInput } from "./memory-child.js";
import { FLOW, SEED } from "./rig-flow.js";
import { alternate, figure, type Figure } from "./stats.js";

/** Options of {@link benchMemory}. */
export interface MemoryOptions {
  /** Child processes per mode. */
  runs: number;
  /** Steps each child runs. */
  steps: number;
}

/** What one memory child reports. */
export interface ChildResult {
  peakRssMb: number;
  rssAtEndMb: number;
  /** Whether sharp's libvips was loaded by the end (a replay-only run should not load it). */
  libvipsLoaded?: boolean;
}

export function runChild(input: ChildInput): Promise<ChildResult> {
  return runJsonChild("./memory-child.ts", [JSON.stringify(input)], `memory child (${input.mode})`);
}

export async function benchMemory(
  session: RigSession,
  appiumPort: number,
  cartUrl: string,
  storageDir: string,
  boxes: Map<string, Box>,
  { runs, steps }: MemoryOptions,
): Promise<Figure[]> {
  const ratioPx = session.profile.pixelRatio;
  const base: Omit<ChildInput, "mode"> = {
    sessionId: session.driver.sessionId,
    port: appiumPort,
    capabilities: session.driver.capabilities as WebdriverIO.Capabilities,
    cartUrl,
    storageDir,
    profile: session.profile.id,
    steps: FLOW.map((s) => {
      const box = boxes.get(s.prompt)!;
      return {
        screen: s.screen,
        next: s.next,
        prompt: s.prompt,
        x: Math.round((box.x + box.width / 2) / ratioPx),
        y: Math.round((box.y + box.height / 2) / ratioPx),
      };
    }),
    count: steps,
  };
  const figures: Figure[] = [];
  for (const collect of [false, true]) {
    const atEnd: Record<"sdk" | "raw", number[]> = { sdk: [], raw: [] };
    const libvips: Record<"sdk" | "raw", (boolean | undefined)[]> = { sdk: [], raw: [] };
    const measure = (mode: "sdk" | "raw") => async () => {
      const result = await runChild({ ...base, mode, collect });
      atEnd[mode].push(result.rssAtEndMb);
      libvips[mode].push(result.libvipsLoaded);
      return result.peakRssMb;
    };
    const samples = await alternate(runs, 0, measure("sdk"), measure("raw"));
    const collected = collect ? ", a full collection after every step (both)" : "";
    figures.push(
      figure(
        `peak RSS, ${steps}-step replay run${collected}`,
        "MB",
        `same ${steps} steps raw, without tapshot`,
        samples,
        {
          detail: {
            seed: SEED,
            peakMb: { sdk: samples.subject, raw: samples.baseline },
            rssAtEndMb: atEnd,
            libvipsLoaded: libvips,
          },
        },
      ),
    );
  }
  return figures;
}
