/**
 * The iOS entry bound to the adapter: a tap learned through `tapshot/ios` on an XCUITest
 * double, with the run's target from `configureAi` naming the device; taps go out in points.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as ai from "../../src/ios/index.js";
import type { LogEntry } from "../../src/core/log.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { AppiumDriverDouble, xcuitestScript } from "../support/appium-driver-double.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

let storageDir: string;
let logs: LogEntry[];

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-ios-entry-"));
  logs = [];
});

afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

test("the run's target overrides the device's identity; the tap is sent in points", async () => {
  configureAi({
    channel: new ScriptedChannel({
      locate: () => ({
        found: true,
        box: { x: 300, y: 2100, width: 579, height: 150 },
        reason: "the checkout button",
        model: SCRIPTED_MODEL,
      }),
    }),
    storageDir,
    resultsDir: false,
    log: (entry) => logs.push(entry),
    reportArtifact: (a) => `memory://${a.name}`,
    // A farm that knows the exact model better than the generic name the device reports.
    target: (driver) =>
      (driver as AppiumDriverDouble).isIOS ? { model: "iPhone 15 Pro Max", osVersion: "17.6" } : undefined,
  });
  const script = xcuitestScript();
  script.capabilities.deviceName = "iPhone";
  const driver = new AppiumDriverDouble(script);

  const result = await ai.tap(driver, "the checkout button");
  expect(result.point).toEqual({ x: 590, y: 2175 });
  const pointer = (driver.actions[0] as [{ actions: unknown[] }])[0].actions[0];
  expect(pointer).toEqual({ type: "pointerMove", duration: 0, origin: "viewport", x: 197, y: 725 });

  const files = (await fs.readdir(path.join(storageDir, "_ai_", "taps"), { recursive: true }))
    .map((f) => f.split(path.sep).join("/"))
    .filter((f) => f.endsWith(".json"));
  expect(files).toEqual([expect.stringMatching(/^ios\/iphone-15-pro-max_17\.6\/the-checkout-button-[0-9a-f]+\.json$/)]);
  const record = JSON.parse(await fs.readFile(path.join(storageDir, "_ai_", "taps", files[0]!), "utf8"));
  expect(record.device).toMatchObject({ platform: "ios", model: "iPhone 15 Pro Max", osVersion: "17.6", scale: 3 });
  expect(logs[0]).toMatchObject({ device: "iphone-15-pro-max_17.6", outcome: "learned" });
  // The note about the generic name is still in the log, so the runner can see why the target mattered.
  expect(logs[0]?.detail).toMatch(/"iPhone" does not say which model/);
});
