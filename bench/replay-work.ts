/**
 * Benchmark 1, replay work: CPU time the SDK spends on one stored-tap replay (read the record,
 * screenshot size, decode the crop region, compare, tap, touch the record, log) on a real
 * 1179x2556 screenshot, against decoding that screenshot once with sharp. Budget: <= 1.2x.
 *
 * The engine runs for real (`createPlatformApi`) over an in-process adapter whose screenshot
 * is a fixed PNG (a fresh copy each time, as a driver hands over new bytes) and whose tap is a
 * no-op, so nothing but tapshot's own work is counted. CPU time covers every thread of the
 * process, libvips' workers included.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import type { DeviceAdapter } from "tapshot/adapter";
import { createPlatformApi } from "tapshot/adapter";
import { configureAi, resetAi } from "tapshot/runner";
import { SCRIPTED_MODEL, ScriptedChannel } from "../tests/support/scripted-channel.js";
import { IPHONE_15, loadScreen } from "./screens.js";
import { alternate, cpuMs, figure, type Figure } from "./stats.js";

/** Options of {@link benchReplayWork}. */
export interface ReplayWorkOptions {
  runs: number;
  warmup: number;
}

const PROMPT = "the checkout button";

/** An adapter over one fixed screenshot; taps do nothing. */
function stillAdapter(png: Buffer): DeviceAdapter {
  return {
    platform: "ios",
    open: () => ({
      describe: async () => structuredClone(IPHONE_15),
      screenshot: async () => Buffer.from(png),
      tap: async () => {},
    }),
  };
}

export async function benchReplayWork({ runs, warmup }: ReplayWorkOptions): Promise<Figure[]> {
  const cart = await loadScreen("cart");
  const box = cart.buttons["checkout-button"]!;
  const storageDir = await mkdtemp(join(tmpdir(), "tapshot-bench-replay-"));
  const channel = new ScriptedChannel({
    locate: () => ({ found: true, box, reason: "the fixture's DOM box", model: SCRIPTED_MODEL }),
  });
  configureAi({ channel, storageDir, log: false, resultsDir: false, mode: "auto" });
  try {
    const ai = createPlatformApi(stillAdapter(cart.png));
    const driver = { sessionId: "bench-replay-work" };
    const learned = await ai.tap(driver, PROMPT);
    if (learned.outcome !== "learned") throw new Error(`expected the first tap to learn, got ${learned.outcome}`);

    let replays = 0;
    const replay = () =>
      cpuMs(async () => {
        const result = await ai.tap(driver, PROMPT);
        if (result.outcome !== "replayed" || result.aiCalls !== 0) {
          throw new Error(`expected a replay without model calls, got ${result.outcome} (${result.aiCalls} calls)`);
        }
        replays++;
      });
    const decodeOnce = () => cpuMs(() => sharp(Buffer.from(cart.png)).raw().toBuffer());
    const samples = await alternate(runs, warmup, replay, decodeOnce);
    return [
      figure("replay CPU per stored tap", "ms CPU", "sharp decode of the screenshot", samples, {
        budget: 1.2,
        detail: {
          screenshot: `${IPHONE_15.screen.width}x${IPHONE_15.screen.height} PNG, ${cart.png.length} bytes`,
          element: box,
          modelCalls: channel.count() - 1,
          replays,
        },
      }),
    ];
  } finally {
    resetAi();
    await rm(storageDir, { recursive: true, force: true });
  }
}
