/**
 * A real store and a real run for the CLI tests: taps learned, replayed, healed and
 * failed through the real tap flow (fake device, scripted channel), baselines written
 * with the real record helpers, a screenshot failure reported through the real
 * artifact reporter, an invalid record and an old record nobody uses any more.
 */
import { mkdtempSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { keepArtifact, recordCall, RUN_ID, type Artifact } from "../../src/core/ground/artifacts.js";
import { FileStore } from "../../src/core/store/file-store.js";
import { baselineKey, deviceSlug, tapKey } from "../../src/core/store/keys.js";
import { createRecord, replaceRecord, sha256 } from "../../src/core/store/record-io.js";
import { FORMAT } from "../../src/core/store/record-format.js";
import type { BaselineRecord } from "../../src/core/store/baseline-record.js";
import type { TapRecord } from "../../src/core/store/tap-record.js";
import { compare } from "../../src/core/pixels/image-compare.js";
import { cropPng, sideBySide } from "../../src/core/pixels/image-encode.js";
import { decode } from "../../src/core/pixels/image-decode.js";
import type { DeviceDescription } from "../../src/core/device/description.js";
import { FakeDevice, fakeAdapter, fakeDriver, render, type FakeScene } from "../support/fake-device.js";
import { locateOnDevice, ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

export const PIXEL = "fake-pixel-7_14";
export const GALAXY = "fake-galaxy-s23_14";
export const IPHONE = "fake-iphone-15-pro_17.5";
export const OLD_PHONE = "fake-old-phone_9";

/** What the fixture made, for assertions. */
export interface Fixture {
  root: string;
  storage: string;
  results: string;
  runId: string;
  keys: {
    healedTap: string;
    failedTap: string;
    iosTap: string;
    oldTap: string;
    cartPixel: string;
    cartGalaxy: string;
    cartIphone: string;
    healedBaseline: string;
    failedBaseline: string;
    invalid: string;
  };
  cleanup(): Promise<void>;
}

const DAY = 86_400_000;
const W = 360;
const H = 720;

function shopScene(
  options: { checkoutY?: number; checkoutFill?: string; addFill?: string; items?: number } = {},
): FakeScene {
  const items = Array.from({ length: options.items ?? 3 }, (_, i) => ({
    id: `item-${i}`,
    x: 16,
    y: 96 + i * 88,
    width: W - 32,
    height: 72,
    fill: "#eef1f6",
    mark: ["#7c8cff", "#ffb86b", "#5fd3a6", "#ff7aa2"][i % 4],
  }));
  return {
    background: "#ffffff",
    statusBar: "#1d2330",
    elements: [
      { id: "header", x: 0, y: 24, width: W, height: 56, fill: "#3b5bdb" },
      ...items,
      { id: "add", x: 16, y: 380, width: 150, height: 48, fill: options.addFill ?? "#ffd43b", mark: "#1d2330" },
      {
        id: "checkout",
        x: 16,
        y: options.checkoutY ?? 600,
        width: W - 32,
        height: 56,
        fill: options.checkoutFill ?? "#2b8a3e",
        mark: "#ffffff",
      },
    ],
  };
}

function device(model: string, osVersion: string, platform: "android" | "ios"): DeviceDescription {
  return new FakeDevice(shopScene(), { model, osVersion, platform, width: W, height: H }).description;
}

async function writeBaseline(
  store: FileStore,
  dev: DeviceDescription,
  name: string,
  scene: FakeScene,
  options: { createdDaysAgo: number; varying?: BaselineRecord["varying"]; previous?: FakeScene },
): Promise<string> {
  const key = baselineKey(dev.platform, name, deviceSlug(dev));
  const image = await render(scene, dev);
  const created = new Date(Date.now() - options.createdDaysAgo * DAY).toISOString();
  const first = options.previous ? await render(options.previous, dev) : image;
  const record: BaselineRecord = {
    format: FORMAT,
    kind: "baseline",
    name,
    device: dev,
    prompt: `the ${name.replace(/-/g, " ")}`,
    varying: options.varying ?? [],
    model: SCRIPTED_MODEL,
    reason: "matches the prompt",
    imageSha256: sha256(first),
    storedAt: created,
    createdAt: created,
  };
  await createRecord(store, key, record, first);
  if (options.previous) {
    // Learned with the old design, then healed with the new one.
    const { format: _f, kind: _k, name: _n, device: _d, createdAt: _c, ...previous } = record;
    const healed: BaselineRecord = {
      ...record,
      imageSha256: sha256(image),
      reason: "the redesign moved the checkout button; no real change",
      changed: "'Checkout' (checkout) moved down 150 px",
      promptMasks: [{ prompt: "the promo banner", box: { x: 0, y: 100, width: 360, height: 40 } }],
      tree: {
        elements: [{ attributes: { "resource-id": "checkout" }, bounds: { x: 40, y: 520, width: 280, height: 56 } }],
      },
      storedAt: new Date(Date.now() - DAY).toISOString(),
      previous,
      review: { state: "pending" },
    };
    await replaceRecord(store, key, healed, image, first);
  }
  return key;
}

export async function makeFixture(): Promise<Fixture> {
  const root = mkdtempSync(path.join(os.tmpdir(), "tapshot-cli-"));
  const storage = path.join(root, "storage");
  const results = path.join(root, "results");
  await fs.mkdir(storage, { recursive: true });
  const store = new FileStore(storage);

  // Taps through the real flow.
  const pixel = new FakeDevice(shopScene(), { model: "Fake Pixel 7", osVersion: "14", width: W, height: H });
  const channel = new ScriptedChannel({ locate: locateOnDevice(pixel) });
  configureAi({ storageDir: storage, resultsDir: results, log: false, channel, mode: "auto" });
  const android = createPlatformApi(fakeAdapter("android"));
  const driver = fakeDriver(pixel);
  await android.tap(driver, "the checkout button");
  await android.tap(driver, "the checkout button");
  pixel.scene = shopScene({ checkoutY: 520, checkoutFill: "#1971c2" });
  await android.tap(driver, "the checkout button", { autoHeal: true, timeout: 4000 });
  await android.tap(driver, "the add to cart button");
  pixel.scene = shopScene({ checkoutY: 520, checkoutFill: "#1971c2", addFill: "#e8590c" });
  await android.tap(driver, "the add to cart button", { timeout: 20_000 }).catch((error: Error) => {
    if (!/never matched/.test(error.message)) throw error;
  });

  const iphone = new FakeDevice(shopScene(), {
    model: "Fake iPhone 15 Pro",
    osVersion: "17.5",
    platform: "ios",
    width: W,
    height: H,
    scale: 3,
  });
  channel.script.locate = locateOnDevice(iphone);
  await createPlatformApi(fakeAdapter("ios")).tap(fakeDriver(iphone), "the checkout button");
  resetAi();

  // A tap on a phone nobody tests on any more, last used long ago.
  const old = device("Fake Old Phone", "9", "android");
  const oldKey = tapKey("android", OLD_PHONE, "the checkout button", undefined);
  const oldCrop = { x: 12, y: 596, width: 336, height: 64 };
  const oldImage = await cropPng(await render(shopScene(), old), oldCrop);
  const longAgo = new Date(Date.now() - 400 * DAY);
  const oldRecord: TapRecord = {
    format: FORMAT,
    kind: "tap",
    prompt: "the checkout button",
    verify: null,
    device: old,
    point: { x: 180, y: 628 },
    box: { x: 16, y: 600, width: 328, height: 56 },
    crop: oldCrop,
    model: SCRIPTED_MODEL,
    reason: "element checkout",
    imageSha256: sha256(oldImage),
    storedAt: longAgo.toISOString(),
    createdAt: longAgo.toISOString(),
  };
  await createRecord(store, oldKey, oldRecord, oldImage);
  await fs.utimes(path.join(store.root, `${oldKey}.json`), longAgo, longAgo);

  // Baselines through the real record helpers.
  const pixelDev = pixel.description;
  const galaxyDev = device("Fake Galaxy S23", "14", "android");
  const iphoneDev = iphone.description;
  const clock = { x: 0, y: 0, width: W, height: 24 };
  const cartPixel = await writeBaseline(store, pixelDev, "cart-page", shopScene(), {
    createdDaysAgo: 12,
    varying: [clock],
  });
  const cartGalaxy = await writeBaseline(store, galaxyDev, "cart-page", shopScene({ items: 2 }), { createdDaysAgo: 9 });
  const cartIphone = await writeBaseline(store, iphoneDev, "cart-page", shopScene({ items: 4 }), { createdDaysAgo: 5 });
  const healedBaseline = await writeBaseline(
    store,
    pixelDev,
    "checkout-page",
    shopScene({ checkoutY: 520, checkoutFill: "#1971c2" }),
    {
      createdDaysAgo: 20,
      previous: shopScene(),
    },
  );
  const failedBaseline = await writeBaseline(store, pixelDev, "confirmation", shopScene({ items: 1 }), {
    createdDaysAgo: 3,
  });
  // Not touched for long, but the run below used it: prune must keep it.
  await fs.utimes(path.join(store.root, `${cartGalaxy}.json`), longAgo, longAgo);

  // A screenshot failure as the screenshot flow reports it: expected, actual, diff, composite.
  const expected = await render(shopScene({ items: 1 }), pixelDev);
  const actual = await render(shopScene({ items: 1, checkoutFill: "#c92a2a" }), pixelDev);
  const { diffPng } = await compare(await decode(expected), await decode(actual), { diff: true });
  const report = (artifact: Artifact) => keepArtifact(results, artifact);
  const artifacts: string[] = [];
  const images: [string, Buffer][] = [
    ["expected", expected],
    ["actual", actual],
    ["diff", diffPng!],
    ["composite", await sideBySide([expected, actual, diffPng!])],
  ];
  for (const [role, data] of images) {
    const where = await report({
      name: `screenshot-confirmation__${PIXEL}__${role}.png`,
      role: role as "expected",
      mimeType: "image/png",
      data,
      api: "toMatchScreenshot",
      subject: "confirmation",
      device: PIXEL,
    });
    if (where) artifacts.push(where);
  }
  const entry = { api: "toMatchScreenshot", device: PIXEL, aiCalls: 0, models: [], durationMs: 900 };
  recordCall(results, { ...entry, name: "cart-page", outcome: "matched" });
  recordCall(results, { ...entry, name: "cart-page", device: GALAXY, outcome: "matched" });
  recordCall(results, {
    ...entry,
    name: "confirmation",
    outcome: "failed",
    detail: 'screenshot "confirmation" on fake-pixel-7_14: 1.9% of pixels differ (allowed 0.1%)',
    artifacts,
  });

  // An invalid record: a hand edit that broke the JSON.
  const invalid = `taps/android/${PIXEL}/broken-0000000000`;
  await store.write(`${invalid}.json`, Buffer.from("{ not json"));
  await sharp({ create: { width: 8, height: 8, channels: 3, background: "#000" } })
    .png()
    .toBuffer()
    .then((png) => store.write(`${invalid}.png`, png));

  return {
    root,
    storage,
    results,
    runId: RUN_ID,
    keys: {
      healedTap: tapKey("android", PIXEL, "the checkout button", undefined),
      failedTap: tapKey("android", PIXEL, "the add to cart button", undefined),
      iosTap: tapKey("ios", IPHONE, "the checkout button", undefined),
      oldTap: oldKey,
      cartPixel,
      cartGalaxy,
      cartIphone,
      healedBaseline,
      failedBaseline,
      invalid,
    },
    cleanup: () => fs.rm(root, { recursive: true, force: true }),
  };
}
