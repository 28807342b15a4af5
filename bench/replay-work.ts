/**
 * Benchmark 1, replay work: CPU time the SDK spends on one stored-tap replay (read the record,
 * screenshot size, decode the crop region, compare, tap, touch the record, log) on a real
 * 1179x2556 screenshot, against decoding that screenshot once with sharp. Budget: <= 1.2x.
 *
 * The engine runs for real (`createPlatformApi`) over an in-process adapter whose screenshot
 * is a fixed PNG (a fresh copy each time, as a driver hands over new bytes) and whose tap is a
 * no-op, so nothing but tapshot's own work is counted. The fixed PNG's bytes equal those of the
 * last screenshot that matched, so a replay decodes nothing (an unchanged screen); a second
 * figure alternates two encodings of the screen, so every replay decodes the crop's rows. CPU time covers every thread of the
 * process, libvips' workers included.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import type { DeviceAdapter } from "tapshot/adapter";
import { createPlatformApi } from "tapshot/adapter";
import { configureAi, resetAi } from "tapshot/runner";
import { SCRIPTED_MODEL, ScriptedChannel } from "../rig/scripted-channel.js";
import { IPHONE_15, loadScreen } from "./screens.js";
import { alternate, cpuMs, figure, type Figure } from "./stats.js";

/** Options of {@link benchReplayWork}. */
export interface ReplayWorkOptions {
  runs: number;
  warmup: number;
}

const PROMPT = "the checkout button";

/** An adapter over fixed screenshots, handed out in turn; taps do nothing. */
function stillAdapter(pngs: Buffer[]): DeviceAdapter {
  let next = 0;
  return {
    platform: "ios",
    open: () => ({
      describe: async () => structuredClone(IPHONE_15),
      screenshot: async () => Buffer.from(pngs[next++ % pngs.length]!),
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
    // The same screen in two encodings, in turn: every screenshot's bytes differ from the last one that matched.
    const reencoded = await sharp(cart.png).png({ compressionLevel: 9, adaptiveFiltering: true }).toBuffer();
    const cases = [
      { name: "replay CPU per stored tap", driver: "bench-replay-work", pngs: [cart.png] },
      {
        name: "replay CPU per stored tap, new bytes every screenshot",
        driver: "bench-replay-work-new-bytes",
        pngs: [reencoded, cart.png],
      },
    ];
    const figures: Figure[] = [];
    for (const { name, driver: sessionId, pngs } of cases) {
      const ai = createPlatformApi(stillAdapter(pngs));
      const driver = { sessionId };
      const first = await ai.tap(driver, PROMPT);
      if (first.outcome !== (figures.length ? "replayed" : "learned")) {
        throw new Error(`unexpected first outcome ${first.outcome}`);
      }
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
      figures.push(
        figure(name, "ms CPU", "sharp decode of the screenshot", samples, {
          budget: 1.2,
          detail: {
            screenshot: `${IPHONE_15.screen.width}x${IPHONE_15.screen.height} PNG, ${cart.png.length} bytes`,
            element: box,
            modelCalls: channel.count() - 1,
            replays,
          },
        }),
      );
    }
    return figures;
  } finally {
    resetAi();
    await rm(storageDir, { recursive: true, force: true });
  }
}
