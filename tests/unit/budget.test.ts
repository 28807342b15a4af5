/**
 * The AI budget (src/core/run/budget.ts): a model request over `maxAiCalls` fails with a
 * BudgetError before it is sent, in one process and across two worker processes that share the
 * run folder; every request on the wire counts (the providers' retries and refinements, seen by
 * the wire doubles of rig/model-doubles); a claim that cannot be confirmed is refused; a check
 * is claimed before the tap it follows; per session on the plugin; afresh when a run starts.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { BUDGET_FILE, resetClaims } from "../../src/core/run/budget.js";
import { BudgetError, ConfigError } from "../../src/core/ground/errors.js";
import { RUN_ID } from "../../src/core/ground/artifacts.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { configureAi, resetAi, startRun } from "../../src/runner/index.js";
import { checkoutScene, FakeDevice, fakeAdapter, fakeDriver } from "../support/fake-device.js";
import { locateOnDevice, SCRIPTED_MODEL, ScriptedChannel } from "../support/scripted-channel.js";
import type { AiChannel } from "../../src/core/model/contract.js";
import { gemini, openai } from "../../src/providers/index.js";
import { startGeminiDouble, startOpenAiDouble, type Knowledge } from "../../rig/model-doubles/index.js";
import { TapshotService } from "../../src/wdio/service.js";
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

function setup(options: { maxAiCalls?: number; resultsDir?: string | false; maxAiCallsPer?: "run" | "session" }) {
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
  expect(error).toMatchObject({ code: "budget", maxAiCalls: 1 });
  // `made` is what reached the channel, not a copy of the budget.
  expect((error as BudgetError).made).toBe(channel.count());
  expect((error as Error).message).toMatch(/maxAiCalls is 1 and 1 model request was sent \(counted in .*ai-calls\.log/);
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

/** Knowledge of a wire double that finds the fake phone's elements by the id the prompt names. */
function fakePhoneKnowledge(device: FakeDevice): Knowledge {
  return {
    locate(target, image) {
      const element = device.scene.elements.find((e) => target.includes(e.id));
      if (!element) return { found: false, reason: `double: nothing named in "${target}"` };
      const sx = image.width / device.description.screen.width;
      const sy = image.height / device.description.screen.height;
      const { x, y, width, height } = element;
      return { box: { x: x * sx, y: y * sy, width: width * sx, height: height * sy }, reason: "double: by id" };
    },
    check: () => ({ pass: true, reason: "double: check" }),
  };
}

function wireSetup(channel: AiChannel, device: FakeDevice, maxAiCalls: number, logs: LogEntry[] = []) {
  configureAi({
    channel,
    storageDir: path.join(root, "storage"),
    log: (entry) => logs.push(entry),
    reportArtifact: () => undefined,
    resultsDir: path.join(root, "results"),
    maxAiCalls,
  });
  return async (prompt: string) => api.tap(fakeDriver(device), prompt).catch((e: unknown) => e);
}

const KEY = "sk-test-budget-0123456789abcdef";
const fastRetry = { attempts: 4, initialDelayMs: 5, maxDelayMs: 20 };

test("a budget of N sends at most N requests to OpenAI, retried attempts and refinements counted at the wire", async () => {
  const device = new FakeDevice(checkoutScene());
  const double = await startOpenAiDouble(fakePhoneKnowledge(device), { apiKey: KEY });
  try {
    // Refinement is on (the default): each locate is 2 requests; the first 2 requests fail with a 503.
    double.inject({ status: 503 }, 2);
    const channel = openai({ apiKey: KEY, baseURL: `${double.baseUrl}/v1`, retry: fastRetry });
    const logs: LogEntry[] = [];
    const tap = wireSetup(channel, device, 5, logs);
    // 503, 503, locate, refine: 4 requests.
    expect(await tap("the checkout button")).toMatchObject({ outcome: "learned" });
    expect(double.calls()).toBe(4);
    // The call's record says what the budget counted: one answer, 4 requests.
    expect(logs[0]!.modelCalls).toEqual([expect.objectContaining({ kind: "locate", requests: 4 })]);
    // The 5th is the header's locate; its refinement would be the 6th, so it is not sent.
    const error = await tap("the header");
    expect(error).toBeInstanceOf(BudgetError);
    expect(error).toMatchObject({ maxAiCalls: 5, made: 5 });
    expect(double.calls()).toBe(5);
    expect(double.received.map((r) => (r.crop ? "refine" : r.kind))).toEqual([
      "locate",
      "locate",
      "locate",
      "refine",
      "locate",
    ]);
    const claims = (await fs.readFile(path.join(root, "results", RUN_ID, BUDGET_FILE), "utf8")).trim().split("\n");
    expect(claims).toHaveLength(6);
  } finally {
    await double.close();
  }
});

test("a budget of N sends at most N requests to Gemini when every attempt is retried", async () => {
  const device = new FakeDevice(checkoutScene());
  const double = await startGeminiDouble(fakePhoneKnowledge(device), { apiKey: KEY });
  try {
    double.inject({ status: 503 }, 10);
    const tap = wireSetup(gemini({ apiKey: KEY, baseUrl: double.baseUrl, retry: fastRetry }), device, 3);
    const error = await tap("the checkout button");
    // The 4th attempt would be the 4th request: refused before it is sent, not a provider error after it.
    expect(error).toBeInstanceOf(BudgetError);
    expect(double.calls()).toBe(3);
    expect(device.taps).toEqual([]);
  } finally {
    await double.close();
  }
});

test("a learn with verify claims its check before it taps: a spent budget fails with no tap", async () => {
  const { device, channel } = setup({ maxAiCalls: 1 });
  channel.script.check = () => ({ pass: true, reason: "shown", model: SCRIPTED_MODEL });
  const error = await api
    .tap(fakeDriver(device), "the checkout button", { verify: "the order summary is shown" })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(BudgetError);
  expect(device.taps).toEqual([]);
  expect(channel.count("locate")).toBe(1);
  expect(channel.count("check")).toBe(0);

  resetClaims();
  const fresh = setup({ maxAiCalls: 2, resultsDir: false });
  fresh.channel.script.check = () => ({ pass: true, reason: "shown", model: SCRIPTED_MODEL });
  await expect(
    api.tap(fakeDriver(fresh.device), "the checkout button", { verify: "the order summary is shown" }),
  ).resolves.toMatchObject({ outcome: "learned" });
  expect(fresh.device.taps).toHaveLength(1);
  expect(fresh.channel.count("check")).toBe(1);
});

describe("a claim that cannot be confirmed is refused", () => {
  test("the claims file does not keep the line (appends lost, as where O_APPEND is emulated)", async () => {
    const dir = path.join(root, "results", RUN_ID);
    await fs.mkdir(dir, { recursive: true });
    await fs.symlink("/dev/null", path.join(dir, BUDGET_FILE));
    const { device, channel } = setup({ maxAiCalls: 10 });
    const error = await api.tap(fakeDriver(device), "the checkout button").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetError);
    expect((error as Error).message).toMatch(/could not confirm its claim .* the line it appended is not in the file/);
    expect(channel.count()).toBe(0);
    expect(error).toMatchObject({ maxAiCalls: 10, made: 0 });
  });

  test.each([
    ["truncated", (file: string) => fs.truncate(file, 0)],
    ["pruned", (file: string) => fs.rm(path.dirname(file), { recursive: true })],
    ["replaced", (file: string) => fs.writeFile(file, "someone else\n")],
  ])("the claims file was %s during the run", async (_, change) => {
    const { device, channel } = setup({ maxAiCalls: 10 });
    await api.tap(fakeDriver(device), "the checkout button");
    await change(path.join(root, "results", RUN_ID, BUDGET_FILE));
    const error = await api.tap(fakeDriver(device), "the header").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetError);
    expect((error as Error).message).toMatch(/1 earlier claim of this process is gone from the file/);
    expect(channel.count()).toBe(1);
    // `made` is what was sent under the budget, not the budget.
    expect(error).toMatchObject({ maxAiCalls: 10, made: 1 });
  });
});

test('maxAiCallsPer "session": each device session has its own budget, counted in this process', async () => {
  const { device, channel } = setup({ maxAiCalls: 1, maxAiCallsPer: "session" });
  const [first, second] = [fakeDriver(device), fakeDriver(new FakeDevice(checkoutScene(), { model: "Fake Phone 2" }))];
  await api.tap(first, "the checkout button");
  await expect(api.tap(second, "the checkout button")).resolves.toMatchObject({ outcome: "learned" });
  const error = await api.tap(first, "the header").catch((e: unknown) => e);
  expect((error as Error).message).toMatch(/maxAiCalls is 1 .*counted for this device session/);
  expect(channel.count()).toBe(2);
  await expect(fs.readFile(path.join(root, "results", RUN_ID, BUDGET_FILE))).rejects.toThrow(/ENOENT/);
});

test("a run started again under the same run id does not inherit the spent claims file", async () => {
  const { device, channel } = setup({ maxAiCalls: 1 });
  const file = path.join(root, "results", RUN_ID, BUDGET_FILE);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, "1 a\n2 b\n3 c\n");
  // The WDIO launcher's onPrepare starts the run (src/wdio/service.ts).
  const wasRunId = process.env.TAPSHOT_RUN_ID;
  await new TapshotService({ resultsDir: path.join(root, "results") }).onPrepare();
  if (wasRunId === undefined) delete process.env.TAPSHOT_RUN_ID;
  await expect(api.tap(fakeDriver(device), "the checkout button")).resolves.toMatchObject({ outcome: "learned" });
  expect(channel.count()).toBe(1);
  const kept = (await fs.readdir(path.dirname(file))).filter((f) => /^ai-calls\..+\.log$/.test(f));
  expect(kept).toHaveLength(1);
  expect(await fs.readFile(path.join(path.dirname(file), kept[0]!), "utf8")).toBe("1 a\n2 b\n3 c\n");

  // Another runner starts its run with startRun (a Jest globalSetup): the budget the last run spent is set aside again.
  const spent = await api.tap(fakeDriver(device), "the header").catch((e: unknown) => e);
  expect(spent).toBeInstanceOf(BudgetError);
  expect(await startRun({ resultsDir: path.join(root, "results") })).toMatch(/ai-calls\..+\.log$/);
  await expect(api.tap(fakeDriver(device), "the header")).resolves.toMatchObject({ outcome: "learned" });
  expect(channel.count()).toBe(2);
  expect(await startRun({ resultsDir: false })).toBeUndefined();
});
