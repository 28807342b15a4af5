/**
 * sharp (libvips) loads on first use (src/core/pixels/sharp.ts): a process that only replays stored taps
 * decodes the screenshot's rows and the stored crop with the row decoder and never maps libvips,
 * which would add its library and thread pool to the process's memory.
 */
import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import sharp from "sharp";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { SCRIPTED_MODEL, ScriptedChannel } from "../support/scripted-channel.js";
// The benchmarks' iPhone 15 cart screenshot, its device description and its buttons' boxes.
import { IPHONE_15, loadScreen } from "../../bench/screens.js";

const onLinux = process.platform === "linux" ? test : test.skip;

afterEach(() => resetAi());

onLinux("a process that only replays a stored tap never loads libvips", async () => {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-lazy-sharp-"));
  try {
    const { png: cart, buttons } = await loadScreen("cart");
    const box = buttons["checkout-button"]!;
    const channel = new ScriptedChannel({
      locate: () => ({ found: true, box, reason: "the fixture's Checkout button", model: SCRIPTED_MODEL }),
    });
    configureAi({ channel, storageDir: dir, log: false, resultsDir: false, mode: "auto" });
    const api = createPlatformApi({
      platform: "ios",
      open: () => ({
        describe: async () => structuredClone(IPHONE_15),
        screenshot: async () => cart,
        tap: async () => {},
      }),
    });
    expect((await api.tap({ sessionId: "learner" }, "the checkout button")).outcome).toBe("learned");

    // Other bytes, same pixels: the replay must decode the screenshot's rows.
    const screenshot = path.join(dir, "screenshot.png");
    await fs.writeFile(screenshot, await sharp(cart).png({ compressionLevel: 9 }).toBuffer());
    const child = path.join("tests", "support", "replay-only-child.ts");
    const env = { ...process.env };
    delete env.NODE_OPTIONS;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", child, dir, screenshot, JSON.stringify(IPHONE_15)],
      { env, timeout: 30_000 },
    );
    expect(JSON.parse(stdout.trim().split("\n").pop()!)).toEqual({ outcome: "replayed", aiCalls: 0, libvips: false });
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
});
