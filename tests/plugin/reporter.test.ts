/**
 * The plugin server given a reporter (docs/plugin.md, docs/configuration.md "Failure images"): an
 * Appium server started in a process that called `configureAi({ reportArtifact })` keeps that
 * reporter under the server's own arguments, and a failed `tapshot: matchScreenshot` keeps its images
 * in the results folder as well, so `tapshot accept --failed` accepts it. The plugin runs in this
 * process over a UiAutomator2-shaped driver object answering from the Android driver double
 * (tests/support/appium-driver-double.ts); the path through a real server is tests/plugin/plugin.test.ts.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { RUN_ID, type Artifact } from "../../src/core/ground/artifacts.js";
import { BaselineRecordSchema } from "../../src/core/store/baseline-record.js";
import { readRecord } from "../../src/core/store/record-io.js";
import { FileStore } from "../../src/core/store/file-store.js";
import type { AppiumDriver } from "../../src/plugin/driver-session.js";
import { MATCH_SCREENSHOT_SCRIPT, TapshotPlugin } from "../../src/plugin/plugin.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { AppiumDriverDouble, PIXEL_7, uiautomator2Script } from "../support/appium-driver-double.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";
import { runCli } from "../cli/run-cli.js";

let dir: string;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-plugin-reporter-"));
});
afterEach(async () => {
  resetAi();
  await fs.rm(dir, { recursive: true, force: true });
});

/** A driver object as Appium hands it to the plugin, its commands served by the double (no proxy). */
function driverOver(double: AppiumDriverDouble): AppiumDriver {
  return {
    sessionId: "appium-session-reporter",
    caps: { platformName: "Android", automationName: "UiAutomator2", deviceName: "Pixel 7" },
    opts: { udid: PIXEL_7.udid },
    getScreenshot: () => double.takeScreenshot(),
    getWindowRect: () => double.getWindowRect(),
    performActions: (actions) => double.performActions(actions as object[]),
    releaseActions: () => double.releaseActions(),
    execute: (script) => double.execute(script),
    getPageSource: () => double.getPageSource(),
    getCurrentContext: () => double.getAppiumContext(),
  };
}

/** The double's screen with a button of `fill` drawn on it. */
async function screenWithButton(fill: string): Promise<string> {
  const { width, height } = uiautomator2Script().screenshot;
  const button = { input: { create: { width: 800, height: 160, channels: 3 as const, background: fill } } };
  const png = await sharp({ create: { width, height, channels: 3, background: "#eef2f7" } })
    .composite([{ ...button, left: 140, top: 1900 }])
    .png()
    .toBuffer();
  return png.toString("base64");
}

test("a server given a reporter: the reporter gets the images, the results folder keeps them, accept --failed accepts", async () => {
  const storage = path.join(dir, "storage");
  const results = path.join(dir, "results");
  const received: Artifact[] = [];
  const channel = new ScriptedChannel({
    judge: () => ({ accept: true, varying: [], reason: "scripted: accepts the screen", model: SCRIPTED_MODEL }),
  });
  // What a process starting Appium itself sets up before the server, as a runner would.
  configureAi({
    channel,
    resultsDir: results,
    log: false,
    reportArtifact: (a) => {
      received.push(a);
      return `https://farm.example/${a.name}`;
    },
  });
  const plugin = new TapshotPlugin("tapshot", { storageDir: storage });
  const double = new AppiumDriverDouble({
    ...uiautomator2Script(),
    screenshotBase64: await screenWithButton("#16a34a"),
  });
  const driver = driverOver(double);
  const next = () => Promise.reject(new Error("the plugin's own script reached the driver"));
  const params = [{ name: "cart", prompt: "the cart" }];
  expect(await plugin.execute(next, driver, MATCH_SCREENSHOT_SCRIPT, params)).toMatchObject({ outcome: "stored" });

  double.script.screenshotBase64 = await screenWithButton("#dc2626");
  const failed = (await plugin
    .execute(next, driver, MATCH_SCREENSHOT_SCRIPT, [{ ...params[0], timeout: 10_000 }])
    .catch((e: unknown) => e)) as Error;
  expect(failed.message).toContain("differ");
  expect(received.map((a) => a.role)).toEqual(expect.arrayContaining(["expected", "actual", "diff"]));
  for (const a of received) {
    expect((await fs.readFile(path.join(results, RUN_ID, a.name))).equals(a.data)).toBe(true);
    expect(failed.message).toContain(path.join(results, RUN_ID, a.name));
    expect(failed.message).toContain(`https://farm.example/${a.name}`);
  }

  const accepted = await runCli(["accept", "--failed", "--storage", storage, "--results", results]);
  expect(accepted.stderr).toBe("");
  expect(accepted.code).toBe(0);
  const store = new FileStore(storage);
  const [key] = (await store.list("apps/com.example.shop/screenshots")).filter((k) => k.endsWith(".json"));
  const stored = (await readRecord(store, key!.replace(/\.json$/, ""), BaselineRecordSchema))!;
  expect(stored.image.equals(received.find((a) => a.role === "actual")!.data)).toBe(true);
});
