/**
 * Cost accounting (docs/configuration.md "Cost"): each model request's kind, model, tokens, image
 * bytes and price land in calls.jsonl, and `tapshot report` totals a run whose calls are known:
 * a learn with verify (locate + check), a replay, a locate that finds nothing and a channel error.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { RUN_ID } from "../../src/core/ground/artifacts.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { runReport } from "../../src/cli/report/index.js";
import { md } from "../../src/cli/report/markdown.js";
import { costRows, runTotals } from "../../src/cli/report/totals.js";
import type { RunEntry } from "../../src/cli/runs.js";
import { TRANSFER_MODEL } from "../../src/core/flows/tap/transfer.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { checkoutScene, FakeDevice, fakeAdapter, fakeDriver } from "../support/fake-device.js";
import { locateOnDevice, ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

const api = createPlatformApi(fakeAdapter());
let root: string;

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-cost-"));
});
afterEach(async () => {
  resetAi();
  await fs.rm(root, { recursive: true, force: true });
});

test("calls.jsonl carries each request's cost, and the report totals the run", async () => {
  const device = new FakeDevice(checkoutScene());
  device.element("checkout").onTap = (d) => d.scene.elements.push({ ...d.element("header"), id: "summary" });
  const locate = locateOnDevice(device);
  const channel = new ScriptedChannel({
    locate: (r) => {
      if (r.prompt.includes("broken")) throw new Error("the provider is down");
      return { ...locate(r), usage: { inputTokens: 1200, outputTokens: 30 } };
    },
    check: (r) => ({
      pass: device.scene.elements.some((e) => r.statement.includes(e.id)),
      reason: "scripted from the fake scene",
      model: SCRIPTED_MODEL,
      usage: { inputTokens: 800, outputTokens: 10 },
    }),
  });
  const results = path.join(root, "results");
  const storage = path.join(root, "storage");
  configureAi({
    channel,
    storageDir: storage,
    log: false,
    reportArtifact: () => undefined,
    resultsDir: results,
    prices: { [SCRIPTED_MODEL]: { input: 2, output: 10 } },
  });

  const driver = fakeDriver(device);
  await api.tap(driver, "the checkout button", { verify: "the summary is shown" });
  device.scene = checkoutScene();
  await expect(api.tap(driver, "the checkout button", { verify: "the summary is shown" })).resolves.toMatchObject({
    outcome: "replayed",
  });
  await expect(api.tap(driver, "the missing link")).rejects.toMatchObject({ code: "not-found" });
  await expect(api.tap(driver, "the broken button")).rejects.toThrow(/provider is down/);
  expect(channel.requests.map((r) => r.kind)).toEqual(["locate", "check", "locate", "locate"]);

  const lines = (await fs.readFile(path.join(results, RUN_ID, "calls.jsonl"), "utf8")).trim().split("\n");
  const entries = lines.map((l) => JSON.parse(l) as LogEntry);
  const bytes = channel.requests.map((r) => Buffer.from(r.screen!.data, "base64").length);
  expect(entries.map((e) => e.modelCalls)).toEqual([
    [
      {
        kind: "locate",
        model: SCRIPTED_MODEL,
        inputTokens: 1200,
        outputTokens: 30,
        imageBytes: bytes[0],
        ms: expect.any(Number),
        cost: (1200 * 2 + 30 * 10) / 1e6,
      },
      {
        kind: "check",
        model: SCRIPTED_MODEL,
        inputTokens: 800,
        outputTokens: 10,
        imageBytes: bytes[1],
        ms: expect.any(Number),
        cost: (800 * 2 + 10 * 10) / 1e6,
      },
    ],
    undefined,
    [expect.objectContaining({ kind: "locate", imageBytes: bytes[2], inputTokens: 1200 })],
    [{ kind: "locate", model: "none", imageBytes: bytes[3], ms: expect.any(Number), failed: true }],
  ]);

  const out = path.join(root, "report");
  const write = process.stdout.write;
  process.stdout.write = () => true;
  try {
    expect(await runReport({ storage, results, out, format: "markdown" })).toBe(0);
  } finally {
    process.stdout.write = write;
  }
  const summary = await fs.readFile(`${out}/summary.md`, "utf8");
  const row = (label: string, value: string) => `| ${md(label)} | ${md(value)} |`;
  const kb = `${((bytes[0]! + bytes[1]! + bytes[2]! + bytes[3]!) / 1024).toFixed(1)} KB`;
  for (const expected of [
    row("model calls", "4 (3 locate, 1 check)"),
    row("tokens", "3200 in, 70 out"),
    row("images sent", kb),
    row("cost", "0.0071"),
    row("values replayed without a model", "1"),
    row("taps transferred without a model", "0"),
  ]) {
    expect(summary).toContain(expected);
  }
  const page = await fs.readFile(path.join(out, "index.html"), "utf8");
  expect(page).toContain(`<tr data-testid="cost-tokens"><th>tokens</th><td>3200 in, 70 out</td></tr>`);
  expect(page).toContain(`<tr data-testid="cost-cost"><th>cost</th><td>0.0071</td></tr>`);
});

test("without a price the report says which models had none, and puts no cost on them", async () => {
  const device = new FakeDevice(checkoutScene());
  const locate = locateOnDevice(device);
  const channel = new ScriptedChannel({
    locate: (r) => ({ ...locate(r), usage: { inputTokens: 5, outputTokens: 1 } }),
  });
  const results = path.join(root, "results");
  const storage = path.join(root, "storage");
  configureAi({ channel, storageDir: storage, log: false, resultsDir: results });
  await api.tap(fakeDriver(device), "the checkout button");
  const out = path.join(root, "report");
  await runReport({ storage, results, out, json: false });
  const page = await fs.readFile(path.join(out, "index.html"), "utf8");
  expect(page).toContain(
    `<tr data-testid="cost-cost"><th>cost</th><td>no prices configured (no price for ${SCRIPTED_MODEL})</td></tr>`,
  );
});

test("prices must be numbers per million tokens for input and output", () => {
  expect(() => configureAi({ prices: { "gemini-2.5-flash": { input: 0.3 } as never } })).toThrow(/prices/);
  expect(() => configureAi({ prices: { "gemini-2.5-flash": { input: -1, output: 1 } } })).toThrow(/prices/);
});

test("totals count values used without a model: replays, matches, local heals and transfers", () => {
  const at = new Date().toISOString();
  const entry = (outcome: RunEntry["outcome"], aiCalls: number, models: string[] = []): RunEntry => ({
    api: "tap",
    prompt: "p",
    device: "d",
    outcome,
    aiCalls,
    models,
    at,
  });
  const totals = runTotals([
    entry("replayed", 0),
    { ...entry("matched", 0), api: "toMatchScreenshot" },
    entry("healed", 0),
    entry("healed", 1, ["gemini-2.5-flash"]),
    entry("learned", 0, [TRANSFER_MODEL]),
    entry("learned", 1, ["gemini-2.5-flash"]),
  ]);
  expect(totals).toMatchObject({ replayed: 2, healedLocally: 1, transferred: 1, savedAtLeast: 2, unrecorded: 2 });
  expect(costRows(totals).find((r) => r.id === "unrecorded")!.value).toMatch(/^2 \(recorded by an older tapshot/);
});
