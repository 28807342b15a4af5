/**
 * A process that only replays a stored tap (mode "replay") on a fixed screenshot, then reports
 * the outcome and whether libvips (sharp) was ever mapped into it. Args: storage folder, the
 * screenshot's PNG file, the device description as JSON. Started by tests/unit/lazy-sharp.test.ts.
 */
import { readFileSync } from "node:fs";
import type { DeviceDescription } from "../../src/core/device/description.js";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { configureAi } from "../../src/runner/index.js";

const [storageDir, pngFile, deviceJson] = process.argv.slice(2);
const png = readFileSync(pngFile!);
const device = JSON.parse(deviceJson!) as DeviceDescription;
configureAi({ storageDir, mode: "replay", log: false, resultsDir: false });
const api = createPlatformApi({
  platform: device.platform,
  open: () => ({
    describe: async () => structuredClone(device),
    screenshot: async () => Buffer.from(png),
    tap: async () => {},
  }),
});
const result = await api.tap({ sessionId: "replay-only" }, "the checkout button");
const libvips = readFileSync("/proc/self/maps", "utf8").includes("libvips");
console.log(JSON.stringify({ outcome: result.outcome, aiCalls: result.aiCalls, libvips }));
