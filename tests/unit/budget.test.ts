/**
 * The run's AI budget (src/core/run/budget.ts): a model request over `maxAiCalls` fails with a
 * BudgetError before the channel is asked, in one process and across two worker processes that
 * share the run folder.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { BUDGET_FILE, resetClaims } from "../../src/core/run/budget.js";
import { BudgetError, ConfigError } from "../../src/core/ground/errors.js";
import { RUN_ID } from "../../src/core/ground/artifacts.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { checkoutScene, FakeDevice, fakeAdapter, fakeDriver } from "../support/fake-device.js";
import { locateOnDevice, ScriptedChannel } from "../support/scripted-channel.js";
import { startTogether } from "../support/store-workers/spawn.js";

const api = createPlatformApi(fakeAdapter());
let root: string;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-budget-"));
});
afterEach(async () => {
  resetAi();
  resetClaims();
  delete process.env.TAPSHOT_MAX_AI_CALLS;
  await fs.rm(root, { recursive: true, force: true });
});

function setup(options: { maxAiCalls?: number; resultsDir?: string | false }) {
  const device = new FakeDevice(checkoutScene());
  const channel = new ScriptedChannel({ locate: locateOnDevice(device) });
  const logs: LogEntry[] = [];
  configureAi({
    channel,
    storageDir: path.join(root, "storage"),
    log: (e) => logs.push(e),
    reportArtifact: () => undefined,
    resultsDir: path.join(root, "results"),
    ...options,
  });
  return { device, channel, logs };
}

test("a request over maxAiCalls fails with a BudgetError and the channel is never asked", async () => {
  const { device, channel, logs } = setup({ maxAiCalls: 1 });
  await api.tap(fakeDriver(device), "the checkout button");
  const error = await api.tap(fakeDriver(device), "the header").catch((e: unknown) => e);
  expect(error).toBeInstanceOf(BudgetError);
  expect(error).toMatchObject({ code: "budget", maxAiCalls: 1, made: 1 });
  expect((error as Error).message).toMatch(
    /maxAiCalls is 1 and the run has made 1 model request \(counted in .*ai-calls\.log/,
  );
  expect((error as Error).message).toMatch(/TAPSHOT_MAX_AI_CALLS/);
  expect(channel.count()).toBe(1);
  expect(logs.map((l) => [l.outcome, l.aiCalls])).toEqual([
    ["learned", 1],
    ["failed", 0],
  ]);
  // A replay needs no request, so a spent budget does not stop it.
  device.scene = checkoutScene();
  await expect(api.tap(fakeDriver(device), "the checkout button")).resolves.toMatchObject({ outcome: "replayed" });
});

test("TAPSHOT_MAX_AI_CALLS sets the budget; 0 allows no request; a bad value is a ConfigError", async () => {
  process.env.TAPSHOT_MAX_AI_CALLS = "0";
  const { device, channel } = setup({});
  await expect(api.tap(fakeDriver(device), "the checkout button")).rejects.toBeInstanceOf(BudgetError);
  expect(channel.count()).toBe(0);
  process.env.TAPSHOT_MAX_AI_CALLS = "many";
  await expect(api.tap(fakeDriver(device), "the checkout button")).rejects.toThrow(ConfigError);
  await expect(api.tap(fakeDriver(device), "the checkout button")).rejects.toThrow(
    /TAPSHOT_MAX_AI_CALLS is "many"; use a whole number/,
  );
});

test("configureAi's maxAiCalls must be a whole number, and wins over the environment", async () => {
  expect(() => configureAi({ maxAiCalls: 1.5 })).toThrow(/maxAiCalls must be a whole number/);
  expect(() => configureAi({ maxAiCalls: -1 })).toThrow(/maxAiCalls/);
  process.env.TAPSHOT_MAX_AI_CALLS = "0";
  const { device, channel } = setup({ maxAiCalls: 1 });
  await api.tap(fakeDriver(device), "the checkout button");
  expect(channel.count()).toBe(1);
});

test("without a results folder the budget counts this process's requests", async () => {
  const { device, channel } = setup({ maxAiCalls: 1, resultsDir: false });
  await api.tap(fakeDriver(device), "the checkout button");
  const error = await api.tap(fakeDriver(device), "the header").catch((e: unknown) => e);
  expect((error as Error).message).toMatch(/counted in this process: resultsDir is off/);
  expect(channel.count()).toBe(1);
});

test("two worker processes sharing the run folder share one budget", async () => {
  const results = path.join(root, "results");
  const runId = `budget-test-${RUN_ID}`;
  process.env.TAPSHOT_RUN_ID = runId;
  let workers;
  try {
    workers = await startTogether(
      "budget-spender.ts",
      (i) => [path.join(root, `storage-${i}`), results, "3", ...["alpha", "bravo", "charlie"].map((p) => `${p}${i}`)],
      2,
    );
  } finally {
    delete process.env.TAPSHOT_RUN_ID;
  }
  const reports = await Promise.all(workers.map((w) => w.result<{ outcomes: string[]; modelRequests: number }>()));
  const outcomes = reports.flatMap((r) => r.outcomes);
  expect(outcomes.filter((o) => o === "learned")).toHaveLength(3);
  expect(outcomes.filter((o) => o === "budget")).toHaveLength(3);
  expect(reports[0]!.modelRequests + reports[1]!.modelRequests).toBe(3);
  // Every claim is one whole line: 3 granted and 3 refused.
  const claims = (await fs.readFile(path.join(results, runId, BUDGET_FILE), "utf8")).trim().split("\n");
  expect(claims).toHaveLength(6);
  expect(new Set(claims).size).toBe(6);
}, 60_000);
