/**
 * Where a failure's images go (docs/configuration.md `reportArtifact`, docs/reviewing.md "Failure
 * artifacts"): the run folder keeps a copy whatever the runner's reporter does, the reporter gets
 * each image as well, and a failing side is noted without losing the other.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { RUN_ID, type Artifact } from "../../src/core/ground/artifacts.js";
import { ScreenshotMismatchError, type TapshotError } from "../../src/core/ground/errors.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { configureAi, resetAi, type AiConfig } from "../../src/runner/index.js";
import { checkoutScene, FakeDevice, fakeAdapter, fakeDriver } from "../support/fake-device.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

const api = createPlatformApi(fakeAdapter());
let dir: string;
let logs: LogEntry[];

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-artifacts-"));
  logs = [];
});
afterEach(async () => {
  resetAi();
  await fs.rm(dir, { recursive: true, force: true });
});

/** Store a baseline, then fail it on a restyled screen with `options`; the thrown error. */
async function failWith(options: AiConfig): Promise<TapshotError> {
  const channel = new ScriptedChannel({
    judge: () => ({ accept: true, varying: [], reason: "scripted: accepts the screen", model: SCRIPTED_MODEL }),
  });
  const base = { channel, storageDir: path.join(dir, "storage"), log: (e: LogEntry) => logs.push(e) };
  configureAi({ ...base, resultsDir: false });
  await api.expect(fakeDriver(new FakeDevice(checkoutScene()))).toMatchScreenshot("shop", "the shop");
  configureAi({ ...base, mode: "replay", ...options });
  const restyled = checkoutScene();
  restyled.elements[1]!.fill = "#dc2626";
  const error = await api
    .expect(fakeDriver(new FakeDevice(restyled)))
    .toMatchScreenshot("shop", "the shop", { timeout: 6000 })
    .catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ScreenshotMismatchError);
  return error as TapshotError;
}

/** The files the run folder holds, by label. */
async function keptLabels(resultsDir: string): Promise<string[]> {
  const names = await fs.readdir(path.join(resultsDir, RUN_ID)).catch(() => [] as string[]);
  return names
    .filter((n) => n.endsWith(".png"))
    .map((n) =>
      n
        .split("__")
        .at(-1)!
        .replace(/\.png$/, ""),
    )
    .sort();
}

test("a runner's reporter gets every image and the run folder keeps each one too; both are named", async () => {
  const results = path.join(dir, "results");
  const received: Artifact[] = [];
  const error = await failWith({
    resultsDir: results,
    reportArtifact: (a) => {
      received.push(a);
      return `https://runner.example/${a.name}`;
    },
  });
  expect(received.map((a) => a.role).sort()).toEqual(["actual", "composite", "diff", "expected"]);
  expect(await keptLabels(results)).toEqual(["actual", "composite", "diff", "expected"]);
  for (const a of received) {
    const kept = path.join(results, RUN_ID, a.name);
    expect((await fs.readFile(kept)).equals(a.data)).toBe(true);
    expect(error.artifacts).toContain(kept);
    expect(error.artifacts).toContain(`https://runner.example/${a.name}`);
  }
  expect(logs.at(-1)!.artifacts).toEqual(error.artifacts);
});

test("a reporter that throws: the run folder still keeps the images, the entry says the reporter failed", async () => {
  const results = path.join(dir, "results");
  const error = await failWith({
    resultsDir: results,
    reportArtifact: () => {
      throw new Error("the farm's upload answered 503");
    },
  });
  expect(await keptLabels(results)).toEqual(["actual", "composite", "diff", "expected"]);
  expect(error.artifacts).toHaveLength(4);
  expect(logs.at(-1)!.detail).toContain("the farm's upload answered 503");
});

test("resultsDir: false keeps nothing; a reporter still gets the images, and with none no file is named", async () => {
  const cwd = process.cwd();
  const work = await fs.mkdtemp(path.join(dir, "cwd-"));
  process.chdir(work);
  try {
    const received: string[] = [];
    const reported = await failWith({ resultsDir: false, reportArtifact: (a) => void received.push(a.role) });
    expect(received.sort()).toEqual(["actual", "composite", "diff", "expected"]);
    expect(reported.artifacts ?? []).toEqual([]);

    resetAi();
    const silent = await failWith({ resultsDir: false });
    expect(silent.artifacts ?? []).toEqual([]);
    expect(await fs.readdir(work)).toEqual([]);
  } finally {
    process.chdir(cwd);
  }
});
