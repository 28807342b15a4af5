/**
 * Benchmark 2, replay wall time on the rig: one `ai.tap` replay against the same session's raw
 * `takeScreenshot` + W3C touch tap at the stored point, step by step through the cycling demo
 * flow on an emulated iPhone 15 under a real Appium server. Modes alternate step by step, so
 * every screen is measured both ways. Budget: <= 1.1x.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Box } from "tapshot/runner";
import type { DeviceAdapter, DeviceSession, Point } from "tapshot/adapter";
import { createPlatformApi } from "tapshot/adapter";
import { configureAi, resetAi } from "tapshot/runner";
import { touchTap } from "../rig/rig-adapter.js";
import { rigTarget, type RigSession } from "../rig/session.js";
import { flowChannel, FLOW, SEED, stepAt, waitForScreen } from "./rig-flow.js";
import { figure, median, round, wallMs, type Figure } from "./stats.js";

/** Options of {@link benchRigReplay}. */
export interface RigReplayOptions {
  /** Measured steps per mode. */
  runs: number;
  /** Unmeasured steps per mode first. */
  warmup: number;
}

/** Learn the flow's three taps on `session` into a new storage folder (a double answers `locate`); returns it. */
export async function learnFlow(session: RigSession, boxes: Map<string, Box>): Promise<string> {
  const storageDir = await mkdtemp(join(tmpdir(), "tapshot-bench-rig-"));
  const channel = flowChannel(boxes);
  configureAi({ channel, storageDir, target: rigTarget, log: false, resultsDir: false, mode: "auto" });
  try {
    await session.open("cart", { seed: SEED });
    for (const step of FLOW) {
      await waitForScreen(session.driver, step.screen);
      const result = await session.ai.tap(session.driver, step.prompt);
      if (result.outcome !== "learned") throw new Error(`learning "${step.prompt}" gave ${result.outcome}`);
    }
    await waitForScreen(session.driver, "cart");
  } finally {
    resetAi();
  }
  return storageDir;
}

/** An adapter that counts its screenshots and times the device's part (screenshot, tap) of each call. */
function timed(adapter: DeviceAdapter): DeviceAdapter & { screenshots: number; deviceMs: number } {
  const time = async <T>(work: () => Promise<T>): Promise<T> => {
    const start = performance.now();
    try {
      return await work();
    } finally {
      wrapped.deviceMs += performance.now() - start;
    }
  };
  const wrapped = {
    platform: adapter.platform,
    screenshots: 0,
    deviceMs: 0,
    open(driver: unknown): DeviceSession {
      const session = adapter.open(driver);
      return {
        describe: (note) => session.describe(note),
        screenshot() {
          wrapped.screenshots++;
          return time(() => session.screenshot());
        },
        tap: (point: Point) => time(() => session.tap(point)),
      };
    },
  };
  return wrapped;
}

export async function benchRigReplay(
  session: RigSession,
  storageDir: string,
  boxes: Map<string, Box>,
  { runs, warmup }: RigReplayOptions,
): Promise<Figure[]> {
  const { driver, profile } = session;
  const adapter = timed(session.adapter);
  const ai = createPlatformApi(adapter);
  configureAi({ storageDir, target: rigTarget, log: false, resultsDir: false, mode: "replay" });
  try {
    await session.open("cart", { seed: SEED });
    const replay: number[] = [];
    const raw: number[] = [];
    const shotsPerReplay: number[] = [];
    /** Per replay: wall time outside the adapter's screenshot and tap, i.e. tapshot's own. */
    const sdkMs: number[] = [];
    for (let i = 0; i < 2 * (warmup + runs); i++) {
      const step = stepAt(i);
      await waitForScreen(driver, step.screen);
      const measured = i >= 2 * warmup;
      if (i % 2 === 0) {
        const before = adapter.screenshots;
        const deviceBefore = adapter.deviceMs;
        const ms = await wallMs(async () => {
          const result = await ai.tap(driver, step.prompt);
          if (result.outcome !== "replayed") throw new Error(`"${step.prompt}" was not replayed: ${result.outcome}`);
        });
        if (measured) {
          replay.push(ms);
          shotsPerReplay.push(adapter.screenshots - before);
          sdkMs.push(ms - (adapter.deviceMs - deviceBefore));
        }
      } else {
        const box = boxes.get(step.prompt)!;
        const x = Math.round((box.x + box.width / 2) / profile.pixelRatio);
        const y = Math.round((box.y + box.height / 2) / profile.pixelRatio);
        const ms = await wallMs(async () => {
          await driver.takeScreenshot();
          await touchTap(driver, x, y);
        });
        if (measured) raw.push(ms);
      }
    }
    await waitForScreen(driver, stepAt(2 * (warmup + runs)).screen);
    return [
      figure(
        "rig replay wall time per tap",
        "ms",
        "raw takeScreenshot + W3C tap",
        { subject: replay, baseline: raw },
        {
          budget: 1.1,
          detail: {
            profile: `${profile.id} ${profile.width}x${profile.height}@${profile.pixelRatio}`,
            screenshotsPerReplay: median(shotsPerReplay),
            sdkMsPerReplay: round(median(sdkMs), 1),
          },
        },
      ),
    ];
  } finally {
    resetAi();
  }
}
