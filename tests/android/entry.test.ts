/**
 * The Android entry bound to the adapter: a tap learned through `tapshot/android` on a
 * UiAutomator2 double, with the run's target from `configureAi` naming the device.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as ai from "../../src/android/index.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { AppiumDriverDouble, uiautomator2Script, asBrowser } from "../support/appium-driver-double.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

let storageDir: string;
let logs: LogEntry[];

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-android-entry-"));
  logs = [];
});

afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

function configure(target?: { model?: string; osVersion?: string }) {
  const channel = new ScriptedChannel({
    locate: () => ({
      found: true,
      box: { x: 100, y: 2000, width: 880, height: 150 },
      reason: "the wide button near the bottom",
      model: SCRIPTED_MODEL,
    }),
  });
  configureAi({
    channel,
    storageDir,
    resultsDir: false,
    log: (entry) => logs.push(entry),
    reportArtifact: (a) => `memory://${a.name}`,
    ...(target ? { target } : {}),
  });
  return channel;
}

async function storedFiles(): Promise<string[]> {
  const files = await fs.readdir(path.join(storageDir, "_ai_", "apps", "com.example.shop", "taps"), {
    recursive: true,
  });
  return files.map((f) => f.split(path.sep).join("/")).filter((f) => f.endsWith(".json"));
}

test("the run's target names the device in the stored record and the log; the tap lands at the box centre", async () => {
  configure({ model: "Pixel 8 Pro", osVersion: "15" });
  const driver = new AppiumDriverDouble(uiautomator2Script());
  const result = await ai.tap(asBrowser(driver), "the checkout button");

  expect(result).toEqual({ outcome: "learned", point: { x: 540, y: 2075 }, aiCalls: 1 });
  const pointer = (driver.actions[0] as [{ actions: unknown[] }])[0].actions[0];
  expect(pointer).toEqual({ type: "pointerMove", duration: 0, origin: "viewport", x: 540, y: 2075 });

  const files = await storedFiles();
  expect(files).toHaveLength(1);
  expect(files[0]).toMatch(/^android\/pixel-8-pro_15\/the-checkout-button-[0-9a-f]+\.json$/);
  const record = JSON.parse(
    await fs.readFile(path.join(storageDir, "_ai_", "apps", "com.example.shop", "taps", files[0]!), "utf8"),
  );
  expect(record.device).toMatchObject({
    platform: "android",
    model: "Pixel 8 Pro",
    osVersion: "15",
    screen: { width: 1080, height: 2400 },
    scale: 1,
    insets: { top: 118, bottom: 63, left: 0, right: 0 },
  });
  expect(logs.map((l) => [l.device, l.outcome])).toEqual([["pixel-8-pro_15", "learned"]]);
});

test("without a target the device's own model names the record; describe runs once per session", async () => {
  configure();
  const driver = new AppiumDriverDouble(uiautomator2Script());
  await ai.tap(asBrowser(driver), "the checkout button");
  await ai.tap(asBrowser(driver), "the checkout button");
  expect(await storedFiles()).toEqual([expect.stringMatching(/^android\/google-pixel-7_14\//)]);
  expect(logs.map((l) => l.outcome)).toEqual(["learned", "replayed"]);
  expect(driver.count("execute mobile: deviceInfo")).toBe(1);
});

test("a fallback during describe ends up in the call's log entry", async () => {
  configure();
  const script = uiautomator2Script();
  delete script.mobile["mobile: getSystemBars"];
  await ai.tap(asBrowser(new AppiumDriverDouble(script)), "the checkout button");
  expect(logs[0]?.detail).toMatch(/android status bar: mobile: getSystemBars failed .*used capability statBarHeight/);
});

test("an iOS session passed to tapshot/android fails before any device or model call", async () => {
  const channel = configure();
  const driver = new AppiumDriverDouble({
    ...uiautomator2Script(),
    platform: "ios",
    capabilities: { platformName: "iOS" },
  });
  await expect(ai.tap(asBrowser(driver), "the checkout button")).rejects.toThrow(ai.DeviceError);
  expect(driver.calls).toEqual([]);
  expect(channel.count()).toBe(0);
});

test("tap takes a WebdriverIO Browser: a plain object fails to type-check, and at run time with a DeviceError", async () => {
  const channel = configure();
  // @ts-expect-error a plain object is not a Browser (tsc --noEmit checks this line).
  await expect(ai.tap({ sessionId: "x" }, "the checkout button")).rejects.toThrow(ai.DeviceError);
  expect(channel.count()).toBe(0);
});
