/**
 * toMatchScreenshot's masks by element (docs/api.md, "Masks") through the engine on the device
 * double (tests/support/fake-device.ts): real PNG screens, a scripted AI channel.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import type { DeviceAdapter } from "../../src/core/device/description.js";
import { BaselineRecordSchema } from "../../src/core/store/baseline-record.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { FakeDevice, fakeAdapter, fakeDriver, type FakeScene } from "../support/fake-device.js";
import { ScriptedChannel, SCRIPTED_MODEL, locateOnDevice } from "../support/scripted-channel.js";

const api = createPlatformApi(fakeAdapter());
let storageDir: string;
let channel: ScriptedChannel;

/** A cart at `k` times the smallest size, its checkout button coloured `checkout`. */
function cart(k: number, checkout = "#16a34a"): FakeScene {
  return {
    background: "#ffffff",
    elements: [
      { id: "header", x: 0, y: 24 * k, width: 360 * k, height: 56 * k, fill: "#1e40af" },
      { id: "item-row", x: 16 * k, y: 100 * k, width: 328 * k, height: 60 * k, fill: "#e5e7eb", mark: "#9ca3af" },
      { id: "checkout", x: 40 * k, y: 520 * k, width: 280 * k, height: 56 * k, fill: checkout, mark: "#ffffff" },
    ],
  };
}

const SIZES = [
  { k: 1, model: "Fake Phone 1" },
  { k: 1.5, model: "Fake Phone XL" },
];

function phone(k: number, model: string): FakeDevice {
  return new FakeDevice(cart(k), {
    model,
    width: 360 * k,
    height: 640 * k,
    insets: { top: 0, bottom: 0, left: 0, right: 0 },
  });
}

function setup(device?: FakeDevice) {
  channel = new ScriptedChannel({
    judge: () => ({ accept: true, varying: [], reason: "scripted: the cart", model: SCRIPTED_MODEL }),
    ...(device ? { locate: locateOnDevice(device) } : {}),
  });
  configureAi({ channel, storageDir, mode: "auto", resultsDir: false, log: () => undefined });
}

const record = async (name: string, slug = "fake-phone-1_14") =>
  BaselineRecordSchema.parse(
    JSON.parse(
      await fs.readFile(path.join(storageDir, "_ai_", "screenshots", "android", name, `${slug}.json`), "utf8"),
    ),
  );

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-element-masks-"));
});
afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

test.each(SIZES)(
  "$model: a restyle of the element masked by selector matches with no model call; unmasked it fails",
  async ({ k, model }) => {
    setup();
    const device = phone(k, model);
    const expect_ = api.expect(fakeDriver(device));
    await expect_.toMatchScreenshot("masked", "the cart", { mask: ["~checkout"] });
    await expect_.toMatchScreenshot("plain", "the cart");
    const asked = channel.requests.length;

    device.scene = cart(k, "#ea580c");
    const lookups = device.elementLookups;
    expect(await expect_.toMatchScreenshot("masked", "the cart", { mask: ["~checkout"] })).toMatchObject({
      outcome: "matched",
      aiCalls: 0,
    });
    // Found again on this comparison, not remembered from the judged one.
    expect(device.elementLookups).toBe(lookups + 1);
    const held = { elementId: "checkout" };
    expect(await expect_.toMatchScreenshot("masked", "the cart", { mask: [held] })).toMatchObject({ aiCalls: 0 });
    expect(channel.requests.length).toBe(asked);

    await expect(expect_.toMatchScreenshot("plain", "the cart", { timeout: 20_000 })).rejects.toMatchObject({
      code: "screenshot-mismatch",
    });
  },
);

test("an element that moved is masked where it is now", async () => {
  setup();
  const device = phone(1, "Fake Phone 1");
  const expect_ = api.expect(fakeDriver(device));
  await expect_.toMatchScreenshot("masked", "the cart", { mask: ["~checkout"] });
  // The button is restyled and moves 10 px down; the old place shows the background.
  device.scene = cart(1, "#ea580c");
  device.element("checkout").y += 10;
  const moved = expect_.toMatchScreenshot("masked", "the cart", { mask: ["~checkout"], timeout: 20_000 });
  // The 10 rows it left are uncovered now: a real difference the current mask does not hide.
  await expect(moved).rejects.toMatchObject({ code: "screenshot-mismatch" });
  const both = await expect_.toMatchScreenshot("masked", "the cart", {
    mask: ["~checkout", { x: 40, y: 520, width: 280, height: 10 }],
  });
  expect(both).toMatchObject({ outcome: "matched", aiCalls: 0 });
});

test("a missing element fails clearly unless optional; an adapter without elementRects says what to add", async () => {
  setup();
  const device = phone(1, "Fake Phone 1");
  const expect_ = api.expect(fakeDriver(device));
  await expect_.toMatchScreenshot("cart", "the cart");
  await expect(expect_.toMatchScreenshot("cart", "the cart", { mask: ["~promo"] })).rejects.toMatchObject({
    code: "not-found",
    message: expect.stringMatching(/mask\[0\] \("~promo"\) matches no element on the screen.*optional: true/),
  });
  const optional = await expect_.toMatchScreenshot("cart", "the cart", {
    mask: [{ selector: "~promo", optional: true }],
  });
  expect(optional).toMatchObject({ outcome: "matched" });

  const bare: DeviceAdapter = {
    platform: "android",
    open(driver) {
      const { elementRects: _, ...session } = fakeAdapter().open(driver);
      return session;
    },
  };
  const error = await createPlatformApi(bare)
    .expect(fakeDriver(device))
    .toMatchScreenshot("cart", "the cart", { mask: ["~checkout"] })
    .catch((e: unknown) => e);
  expect(error).toMatchObject({ code: "device", message: expect.stringContaining("has no elementRects() method") });
});

test("prompt masks are located once when judged and stored; a missing optional one stores no box", async () => {
  const device = phone(1, "Fake Phone 1");
  setup(device);
  const expect_ = api.expect(fakeDriver(device));
  const mask = [{ prompt: "the checkout button" }, { prompt: "the promo banner", optional: true }];
  await expect_.toMatchScreenshot("prompted", "the cart", { mask });
  expect(channel.requests.map((r) => r.kind)).toEqual(["judge", "locate", "locate"]);
  expect((await record("prompted")).promptMasks).toEqual([
    { prompt: "the checkout button", box: { x: 40, y: 520, width: 280, height: 56 } },
    { prompt: "the promo banner" },
  ]);

  device.scene = cart(1, "#ea580c");
  expect(await expect_.toMatchScreenshot("prompted", "the cart", { mask })).toMatchObject({ aiCalls: 0 });
  expect(channel.requests).toHaveLength(3);
});

test("a prompt mask the model does not find stores nothing", async () => {
  const device = phone(1, "Fake Phone 1");
  setup(device);
  const error = await api
    .expect(fakeDriver(device))
    .toMatchScreenshot("prompted", "the cart", { mask: [{ prompt: "the promo banner" }] })
    .catch((e: unknown) => e);
  expect(error).toMatchObject({
    code: "rejected",
    message: expect.stringContaining('did not find the mask { prompt: "the promo banner" } on the screen'),
  });
  await expect(fs.readdir(path.join(storageDir, "_ai_", "screenshots", "android", "prompted"))).rejects.toThrow();
});
