/**
 * The iOS entry bound to the adapter: a tap learned through `tapshot/ios` on an XCUITest
 * double, with the run's target from `configureAi` naming the device; taps go out in points.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import * as ai from "../../src/ios/index.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { promptHash } from "../../src/core/store/keys.js";
import { sha256 } from "../../src/core/store/record-io.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { AppiumDriverDouble, xcuitestScript, asBrowser } from "../support/appium-driver-double.js";
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

  const result = await ai.tap(asBrowser(driver), "the checkout button");
  expect(result.point).toEqual({ x: 590, y: 2175 });
  const pointer = (driver.actions[0] as [{ actions: unknown[] }])[0].actions[0];
  expect(pointer).toEqual({ type: "pointerMove", duration: 0, origin: "viewport", x: 197, y: 725 });

  const files = (
    await fs.readdir(path.join(storageDir, "_ai_", "apps", "com.example.shop", "taps"), { recursive: true })
  )
    .map((f) => f.split(path.sep).join("/"))
    .filter((f) => f.endsWith(".json"));
  expect(files).toEqual([expect.stringMatching(/^ios\/iphone-15-pro-max_17\.6\/the-checkout-button-[0-9a-f]+\.json$/)]);
  const record = JSON.parse(
    await fs.readFile(path.join(storageDir, "_ai_", "apps", "com.example.shop", "taps", files[0]!), "utf8"),
  );
  expect(record.device).toMatchObject({ platform: "ios", model: "iPhone 15 Pro Max", osVersion: "17.6", scale: 3 });
  expect(logs[0]).toMatchObject({ device: "iphone-15-pro-max_17.6", outcome: "learned" });
  // The note about the generic name is still in the log, so the runner can see why the target mattered.
  expect(logs[0]?.detail).toMatch(/"iPhone" does not say which model/);
});

describe("one model, one key: simulator, real device and stores written by older versions", () => {
  const realIphone15Pro = (productVersion: string) =>
    xcuitestScript({
      realDevice: { productType: "iPhone16,1", productVersion, deviceName: "Team phone", hardwareModel: "D83AP" },
    });
  const checkout = {
    found: true as const,
    box: { x: 300, y: 2100, width: 579, height: 150 },
    reason: "the checkout button",
    model: SCRIPTED_MODEL,
  };

  function configure(mode: "auto" | "replay", channel = new ScriptedChannel({ locate: () => checkout })) {
    configureAi({ channel, storageDir, mode, resultsDir: false, log: (entry) => logs.push(entry) });
    return channel;
  }

  test("a tap learned on the simulator replays on the real phone on another patch release", async () => {
    configure("auto");
    expect(await ai.tap(asBrowser(new AppiumDriverDouble(xcuitestScript())), "the checkout button")).toMatchObject({
      outcome: "learned",
    });
    configure("replay", new ScriptedChannel({}));
    const onPhone = new AppiumDriverDouble(realIphone15Pro("17.5.1"));
    expect(await ai.tap(asBrowser(onPhone), "the checkout button")).toMatchObject({ outcome: "replayed", aiCalls: 0 });
    expect(logs.map((l) => l.device)).toEqual(["iphone-15-pro_17.5", "iphone-15-pro_17.5"]);
  });

  test("values an older version stored under the product type and full OS version are still replayed", async () => {
    // The layout older versions wrote for a real iPhone 15 Pro on iOS 17.5.1: taps/ios/iphone16-1_17.5.1/...
    const screen = { width: 1179, height: 2556 };
    const device = {
      platform: "ios",
      model: "iPhone16,1",
      osVersion: "17.5.1",
      screen,
      scale: 3,
      insets: { top: 162, bottom: 102, left: 0, right: 0 },
      orientation: "portrait",
    };
    const crop = { x: 288, y: 2088, width: 603, height: 174 };
    const cropPng = await solid(crop);
    const screenPng = await solid(screen);
    const at = "2026-01-05T10:00:00.000Z";
    const tapKey = `taps/ios/iphone16-1_17.5.1/the-checkout-button-${promptHash("the checkout button", undefined)}`;
    await writePair(tapKey, cropPng, {
      format: 1,
      kind: "tap",
      prompt: "the checkout button",
      verify: null,
      device,
      point: { x: 590, y: 2175 },
      box: checkout.box,
      crop,
      model: SCRIPTED_MODEL,
      reason: "the checkout button",
      imageSha256: sha256(cropPng),
      storedAt: at,
      createdAt: at,
    });
    await writePair("screenshots/ios/cart/iphone16-1_17.5.1", screenPng, {
      format: 1,
      kind: "baseline",
      name: "cart",
      device,
      prompt: "the cart",
      varying: [],
      model: SCRIPTED_MODEL,
      reason: "the cart",
      imageSha256: sha256(screenPng),
      storedAt: at,
      createdAt: at,
    });

    configure("replay", new ScriptedChannel({}));
    const driver = new AppiumDriverDouble(realIphone15Pro("17.5.1"));
    expect(await ai.tap(asBrowser(driver), "the checkout button")).toMatchObject({ outcome: "replayed", aiCalls: 0 });
    expect(await ai.expect(asBrowser(driver)).toMatchScreenshot("cart", "the cart")).toMatchObject({
      outcome: "matched",
    });
    expect(logs.map((l) => l.device)).toEqual(["iphone-15-pro_17.5", "iphone-15-pro_17.5"]);
    expect(logs[0]?.detail).toMatch(/tap read from taps\/ios\/iphone16-1_17\.5\.1\/the-checkout-button-\w+\.json/);
    expect(logs[1]?.detail).toMatch(/baseline read from screenshots\/ios\/cart\/iphone16-1_17\.5\.1\.json/);
    // Replays write nothing: the old files stay where they are.
    expect(await storedFiles()).toEqual([
      "screenshots/ios/cart/iphone16-1_17.5.1.json",
      "screenshots/ios/cart/iphone16-1_17.5.1.png",
      expect.stringMatching(/^taps\/ios\/iphone16-1_17\.5\.1\/the-checkout-button-\w+\.json$/),
      expect.stringMatching(/^taps\/ios\/iphone16-1_17\.5\.1\/the-checkout-button-\w+\.png$/),
    ]);
  });
});

function solid({ width, height }: { width: number; height: number }): Promise<Buffer> {
  // The colour of the double's screenshots (tests/support/appium-driver-double.ts).
  return sharp({ create: { width, height, channels: 3, background: "#eef2f7" } })
    .png()
    .toBuffer();
}

async function writePair(key: string, png: Buffer, record: object): Promise<void> {
  const file = path.join(storageDir, "_ai_", ...key.split("/"));
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(`${file}.png`, png);
  await fs.writeFile(`${file}.json`, JSON.stringify(record, null, 2));
}

async function storedFiles(): Promise<string[]> {
  const root = path.join(storageDir, "_ai_");
  const all = await fs.readdir(root, { recursive: true, withFileTypes: true });
  return all
    .filter((e) => e.isFile())
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join("/"))
    .sort();
}
