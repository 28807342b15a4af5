/**
 * Mode `update` (docs/reviewing.md "Update mode"), as `jest -u`: a mismatching baseline is replaced
 * by the settled screenshot with no model call, stored pending review with the old value kept;
 * a tap whose crop no longer matches is learned again. Real PNG screens from FakeDevice.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { ScreenshotMismatchError } from "../../src/core/ground/errors.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { resolveConfig } from "../../src/core/config/config.js";
import { BaselineRecordSchema } from "../../src/core/store/baseline-record.js";
import { TapRecordSchema } from "../../src/core/store/tap-record.js";
import { UPDATE_MODEL } from "../../src/core/flows/screenshot/update.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { FakeDevice, fakeAdapter, fakeDriver, type FakeScene } from "../support/fake-device.js";
import { locateOnDevice, ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

function shopScene(change: { checkout?: string; y?: number; spinner?: number } = {}): FakeScene {
  const elements: FakeScene["elements"] = [
    { id: "header", x: 0, y: 24, width: 360, height: 56, fill: "#1e40af" },
    { id: "item-row", x: 16, y: 100, width: 328, height: 60, fill: "#e5e7eb", mark: "#9ca3af" },
    {
      id: "checkout",
      x: 40,
      y: change.y ?? 520,
      width: 280,
      height: 56,
      fill: change.checkout ?? "#16a34a",
      mark: "#ffffff",
    },
  ];
  if (change.spinner !== undefined) {
    elements.push({ id: "spinner", x: 60 + (change.spinner % 20) * 10, y: 300, width: 20, height: 20, fill: "#000" });
  }
  return { background: "#ffffff", elements };
}

let storageDir: string;
let logs: LogEntry[];
let channel: ScriptedChannel;
const api = createPlatformApi(fakeAdapter());
const baselineDir = () => path.join(storageDir, "_ai_", "screenshots", "android", "shop");

function setup(device: FakeDevice, mode: "auto" | "replay" | "update") {
  channel = new ScriptedChannel({
    locate: locateOnDevice(device),
    judge: () => ({ accept: true, varying: [], reason: "scripted: accepts the screen", model: SCRIPTED_MODEL }),
  });
  configureAi({
    channel,
    storageDir,
    mode,
    resultsDir: false,
    log: (e) => logs.push(e),
    reportArtifact: () => undefined,
  });
}

async function readJson(file: string) {
  return JSON.parse(await fs.readFile(file, "utf8")) as unknown;
}

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-update-"));
  logs = [];
});
afterEach(async () => {
  resetAi();
  delete process.env.TAPSHOT_MODE;
  await fs.rm(storageDir, { recursive: true, force: true });
});

test("a mismatching baseline is replaced by the settled screen with no model call, pending, the old one kept", async () => {
  const first = new FakeDevice(shopScene());
  setup(first, "auto");
  await api.expect(fakeDriver(first)).toMatchScreenshot("shop", "the shop");
  const oldPng = await fs.readFile(path.join(baselineDir(), "fake-phone-1_14.png"));

  const changed = new FakeDevice(shopScene({ checkout: "#dc2626" }));
  setup(changed, "update");
  const updated = await api.expect(fakeDriver(changed)).toMatchScreenshot("shop", "the shop");

  expect(updated).toMatchObject({ outcome: "updated", aiCalls: 0 });
  expect(updated.diffPixels).toBeGreaterThan(1000);
  expect(channel.count()).toBe(0);
  const record = BaselineRecordSchema.parse(await readJson(path.join(baselineDir(), "fake-phone-1_14.json")));
  expect(record.review).toEqual({ state: "pending" });
  expect(record.model).toBe(UPDATE_MODEL);
  expect(record.previous?.model).toBe(SCRIPTED_MODEL);
  expect((await fs.readFile(path.join(baselineDir(), "fake-phone-1_14.previous.png"))).equals(oldPng)).toBe(true);
  expect(logs.at(-1)).toMatchObject({ outcome: "updated", aiCalls: 0 });
  expect(logs.at(-1)!.detail).toMatch(
    /^tapshot updated a stored value: screenshots\/android\/shop\/fake-phone-1_14\.json; /,
  );

  // The next run, with no model at all, matches the updated baseline.
  setup(changed, "replay");
  const next = await api
    .expect(fakeDriver(new FakeDevice(shopScene({ checkout: "#dc2626" }))))
    .toMatchScreenshot("shop", "the shop");
  expect(next).toMatchObject({ outcome: "matched", aiCalls: 0, diffPixels: 0 });
});

test("a matching baseline is left alone, and a new one is judged as in mode auto", async () => {
  const device = new FakeDevice(shopScene());
  setup(device, "update");
  expect(await api.expect(fakeDriver(device)).toMatchScreenshot("shop", "the shop")).toMatchObject({
    outcome: "stored",
  });
  const before = await fs.readFile(path.join(baselineDir(), "fake-phone-1_14.json"));
  expect(await api.expect(fakeDriver(device)).toMatchScreenshot("shop", "the shop")).toMatchObject({
    outcome: "matched",
  });
  expect((await fs.readFile(path.join(baselineDir(), "fake-phone-1_14.json"))).equals(before)).toBe(true);
  expect(channel.count("judge")).toBe(1);
});

test("a screen that keeps changing is not stored by mode update", async () => {
  const first = new FakeDevice(shopScene());
  setup(first, "auto");
  await api.expect(fakeDriver(first)).toMatchScreenshot("shop", "the shop");
  const before = await fs.readFile(path.join(baselineDir(), "fake-phone-1_14.json"));

  const moving = new FakeDevice(shopScene({ checkout: "#dc2626" }));
  const shoot = moving.screenshot.bind(moving);
  let n = 0;
  moving.screenshot = () => {
    moving.scene = shopScene({ checkout: "#dc2626", spinner: ++n });
    return shoot();
  };
  setup(moving, "update");
  const error = await api
    .expect(fakeDriver(moving))
    .toMatchScreenshot("shop", "the shop", { timeout: 2000 })
    .catch((e: unknown) => e);

  expect(error).toBeInstanceOf(ScreenshotMismatchError);
  expect((error as Error).message).toContain('mode "update" stored nothing');
  expect((await fs.readFile(path.join(baselineDir(), "fake-phone-1_14.json"))).equals(before)).toBe(true);
});

test("a tap whose crop no longer matches is learned again, pending review, the old value kept", async () => {
  const device = new FakeDevice(shopScene());
  setup(device, "auto");
  await api.tap(fakeDriver(device), "the checkout button");

  device.scene = shopScene({ y: 420, checkout: "#7c3aed" });
  setup(device, "update");
  const result = await api.tap(fakeDriver(device), "the checkout button");

  expect(result).toMatchObject({ outcome: "healed", point: { y: 448 } });
  const dir = path.join(storageDir, "_ai_", "taps");
  const [file] = (await fs.readdir(dir, { recursive: true })).filter((f) => f.endsWith(".json"));
  const record = TapRecordSchema.parse(await readJson(path.join(dir, file!)));
  expect(record.review).toEqual({ state: "pending" });
  expect(record.previous?.point.y).toBe(548);
});

test("TAPSHOT_MODE=update selects the mode; a wrong value names the three", () => {
  process.env.TAPSHOT_MODE = "update";
  expect(resolveConfig(undefined).mode).toBe("update");
  process.env.TAPSHOT_MODE = "upgrade";
  expect(() => resolveConfig(undefined)).toThrow('TAPSHOT_MODE is "upgrade"; use "auto", "replay" or "update".');
});
