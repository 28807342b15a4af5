/**
 * `budget-spender.ts <storage> <results> <maxAiCalls> <prompt>...`: after "go", learns a tap for
 * each prompt on a fake phone (each needs one model request) with the run's budget set, and reports
 * how each ended and how many requests reached this process's channel. Started with a shared
 * `TAPSHOT_RUN_ID`, so workers share one run folder and one budget (src/core/run/budget.ts).
 */
import { createPlatformApi } from "../../../src/core/engine/engine.js";
import { configureAi } from "../../../src/runner/index.js";
import { FakeDevice, fakeAdapter, fakeDriver, type FakeScene } from "../fake-device.js";
import { locateOnDevice, ScriptedChannel } from "../scripted-channel.js";
import { args, ready, report } from "./worker-io.js";

const [storageDir, resultsDir, max, ...prompts] = args;
const scene: FakeScene = {
  background: "#ffffff",
  elements: prompts.map((p, i) => ({ id: p, x: 20, y: 80 + i * 70, width: 300, height: 50, fill: "#16a34a" })),
};
const device = new FakeDevice(scene);
const channel = new ScriptedChannel({ locate: locateOnDevice(device) });
configureAi({ channel, storageDir, resultsDir, maxAiCalls: Number(max), log: false, reportArtifact: () => undefined });
const api = createPlatformApi(fakeAdapter());

await ready();
const outcomes: string[] = [];
for (const prompt of prompts) {
  try {
    outcomes.push((await api.tap(fakeDriver(device), prompt)).outcome);
  } catch (error) {
    outcomes.push((error as { code?: string }).code ?? String(error));
  }
}
report({ outcomes, modelRequests: channel.count() });
