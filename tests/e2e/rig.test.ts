/**
 * Smoke test of the rig: a real Appium 3 server driving Debian's Chromium as an emulated
 * iPhone 15, on the demo shop. Screenshots come in device pixels, taps land in CSS pixels,
 * the shop's pages are pixel-stable apart from their varying content.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Box } from "../../src/core/model/contract.js";
import { decode, imageSize } from "../../src/core/pixels/image-decode.js";
import { TapRecordSchema } from "../../src/core/store/tap-record.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { SCRIPTED_MODEL, ScriptedChannel } from "../support/scripted-channel.js";
import { iphone15, screenshotSize } from "../../rig/profiles.js";
import { rigTarget, startRig, type Rig, type RigSession } from "../../rig/session.js";

let rig: Rig;
let phone: RigSession;

beforeAll(async () => {
  rig = await startRig();
  phone = await rig.session(iphone15);
}, 180_000);

afterAll(async () => {
  await rig?.stop();
}, 60_000);

test("an iPhone 15 profile gives 1179x2556 screenshots and describes itself in screenshot pixels", async () => {
  await phone.open("cart");
  const png = await phone.screenshot();
  expect(await imageSize(png)).toEqual({ width: 1179, height: 2556 });
  expect(screenshotSize(iphone15)).toEqual({ width: 1179, height: 2556 });

  const device = await phone.describe();
  expect(device).toMatchObject({
    platform: "ios",
    screen: { width: 1179, height: 2556 },
    scale: 3,
    insets: { top: 47 * 3, bottom: 34 * 3, left: 0, right: 0 },
    orientation: "portrait",
  });
  expect(device.model).toBe("Chromium 393x852@3");
  expect(rigTarget(phone.driver)).toEqual({ platform: "ios", model: "iPhone 15", osVersion: "17.5" });
  expect(await rig.session(iphone15)).toBe(phone);
});

test("a touch tap through the rig adapter at the Checkout button's box centre opens the order summary", async () => {
  await phone.open("cart", { seed: 1 });
  const box = await phone.box("checkout-button");
  // The box is in screenshot pixels: inside the 1179-pixel-wide screen, wider than the CSS viewport.
  expect(box.x + box.width).toBeLessThanOrEqual(1179);
  expect(box.width).toBeGreaterThan(393);

  await phone.describe();
  const centre = { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) };
  await phone.device.tap(centre);
  await phone.driver.waitUntil(async () => (await phone.currentScreen()) === "checkout", {
    timeout: 10_000,
    timeoutMsg: "the tap on Checkout did not open the checkout screen",
  });
  expect(await phone.findBox("order-summary")).toBeDefined();
  expect(await phone.currentUrl()).toContain("/checkout?variant=default&seed=1");
  // The page saw one click, in CSS pixels (screenshot pixels / 3), on the button.
  expect(await phone.taps()).toEqual([
    { screen: "cart", x: Math.round(centre.x / 3), y: Math.round(centre.y / 3), testid: "checkout-button" },
  ]);
});

test("a tap beside the button lands where it was aimed and does not navigate", async () => {
  await phone.open("cart", { seed: 1 });
  const box = await phone.box("checkout-button");
  const beside = { x: Math.round(box.x + box.width / 2), y: box.y - 60 };
  await phone.describe();
  await phone.device.tap(beside);
  await phone.driver.waitUntil(async () => (await phone.taps()).length > 0, { timeout: 10_000 });
  const [tap] = await phone.taps();
  expect(tap).toMatchObject({ screen: "cart", x: Math.round(beside.x / 3), y: Math.round(beside.y / 3) });
  expect(tap?.testid).not.toBe("checkout-button");
  expect(await phone.currentScreen()).toBe("cart");
});

test("pages are pixel-stable: the same seed gives the same bytes, another seed changes only the varying content", async () => {
  await phone.open("cart", { seed: 11 });
  const first = await phone.screenshot();
  await phone.open("cart", { seed: 11 });
  expect((await phone.screenshot()).equals(first)).toBe(true);

  await phone.open("cart", { seed: 12 });
  const other = await phone.screenshot();
  const varying = [await phone.box("balance"), await phone.box("status-bar")];
  const { changed, outside } = await diffPixels(first, other, varying);
  expect(changed).toBeGreaterThan(0);
  expect(outside).toBe(0);
});

test("the redesign moves and restyles the Checkout button; the regression removes it", async () => {
  await phone.open("cart", { variant: "default" });
  const before = await phone.box("checkout-button");
  await phone.open("cart", { variant: "redesign" });
  const after = await phone.box("checkout-button");
  expect(after.y).toBeGreaterThan(before.y + 100);
  expect(after.width).toBeLessThan(before.width);
  await phone.tapElement("checkout-button");
  await phone.driver.waitUntil(async () => (await phone.currentScreen()) === "checkout", { timeout: 10_000 });
  expect(await phone.currentUrl()).toContain("variant=redesign");

  await phone.open("cart", { variant: "regression" });
  expect(await phone.findBox("checkout-button")).toBeUndefined();
  await expect(phone.box("checkout-button")).rejects.toThrow(/No visible element with data-testid "checkout-button"/);
});

test("the engine learns a tap through the rig adapter under the target's identity, then replays it", async () => {
  const storageDir = await mkdtemp(join(tmpdir(), "tapshot-rig-store-"));
  // Answers from the page's DOM box; names itself as a test double, never as a model.
  const channel = new ScriptedChannel({
    locate: async () => ({
      found: true,
      box: await phone.box("checkout-button"),
      reason: "DOM box",
      model: SCRIPTED_MODEL,
    }),
  });
  configureAi({ channel, storageDir, target: rigTarget, log: false, resultsDir: false });
  try {
    await phone.open("cart");
    const learned = await phone.ai.tap(phone.driver, "the checkout button");
    expect(learned).toMatchObject({ outcome: "learned", aiCalls: 1 });
    await phone.driver.waitUntil(async () => (await phone.currentScreen()) === "checkout", { timeout: 10_000 });
    const files = await readdir(join(storageDir, "_ai_/apps/127.0.0.1/taps/ios/iphone-15_17.5"));
    expect(files).toHaveLength(2);
    // The page source (the DOM as XCUITest XML) was read before the tap: the record holds the button.
    const json = files.find((f) => f.endsWith(".json"))!;
    const record = TapRecordSchema.parse(
      JSON.parse(await readFile(join(storageDir, "_ai_/apps/127.0.0.1/taps/ios/iphone-15_17.5", json), "utf8")),
    );
    expect(record.element?.attributes).toEqual({
      name: "checkout-button",
      label: "Checkout",
      type: "XCUIElementTypeButton",
    });
    expect(Math.abs(record.element!.bounds.y - record.box.y)).toBeLessThanOrEqual(3);

    await phone.open("cart");
    const replayed = await phone.ai.tap(phone.driver, "the checkout button");
    expect(replayed).toMatchObject({ outcome: "replayed", aiCalls: 0, point: learned.point });
    await phone.driver.waitUntil(async () => (await phone.currentScreen()) === "checkout", { timeout: 10_000 });
    expect(channel.count()).toBe(1);
  } finally {
    resetAi();
    await rm(storageDir, { recursive: true, force: true });
  }
});

describe("demo server", () => {
  test("rejects an unknown variant and page with messages that name the choices", async () => {
    const bad = await fetch(`${rig.demo.url}/cart?variant=shiny`);
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("use one of default, redesign, regression");
    const missing = await fetch(`${rig.demo.url}/basket`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("/cart, /checkout, /confirmation");
  });

  test("without a seed, each load shows another balance", async () => {
    const balance = async () => /data-testid="balance".*?<strong>(.*?)<\/strong>/s.exec(await page())?.[1];
    const page = async () => (await fetch(`${rig.demo.url}/cart`)).text();
    const seen = new Set([await balance(), await balance(), await balance()]);
    expect(seen.size).toBeGreaterThan(1);
  });
});

/** How many pixels differ between two same-sized PNGs, and how many of those lie outside `allowed`. */
async function diffPixels(a: Buffer, b: Buffer, allowed: Box[]): Promise<{ changed: number; outside: number }> {
  const [x, y] = await Promise.all([decode(a), decode(b)]);
  let changed = 0;
  let outside = 0;
  const stride = x.width * 4;
  for (let row = 0; row < x.height; row++) {
    if (x.data.compare(y.data, row * stride, (row + 1) * stride, row * stride, (row + 1) * stride) === 0) continue;
    for (let col = 0; col < x.width; col++) {
      const i = (row * x.width + col) * 4;
      if (x.data.readUInt32LE(i) === y.data.readUInt32LE(i)) continue;
      changed++;
      const inside = allowed.some((r) => col >= r.x && col < r.x + r.width && row >= r.y && row < r.y + r.height);
      if (!inside) outside++;
    }
  }
  return { changed, outside };
}
