/**
 * Naming what changed on a baseline mismatch (docs/api.md, "What changed"): the accessibility tree
 * stored with the baseline against the one read on the failure, through the engine on the device
 * double (tests/support/fake-device.ts, whose page source is its scene as UiAutomator2 or XCUITest
 * serve theirs), real PNG screens, a scripted AI channel.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { BaselineRecordSchema } from "../../src/core/store/baseline-record.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { FakeDevice, fakeAdapter, fakeDriver, type FakeElement, type FakeScene } from "../support/fake-device.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

let storageDir: string;

type Change = { banner?: boolean; label?: string; rowLabel?: string; checkoutFill?: string; wide?: boolean };

/** A cart with a header, a row and a Checkout button; a banner pushes the content down 150 px. */
function cart(platform: "android" | "ios", change: Change = {}): FakeScene {
  const dy = change.banner ? 150 : 0;
  const a11y = (id: string, text: string, cls: string): Record<string, string> =>
    platform === "android"
      ? { "resource-id": `com.shop:id/${id}`, text, class: `android.widget.${cls}` }
      : { name: id, label: text, type: `XCUIElementType${cls === "Button" ? "Button" : "StaticText"}` };
  const elements: FakeElement[] = [
    { id: "title", x: 0, y: 24, width: 360, height: 56, fill: "#1e40af", a11y: a11y("title", "Your cart", "TextView") },
  ];
  if (change.banner) {
    elements.push({
      id: "promo",
      x: 16,
      y: 100,
      width: 328,
      height: 120,
      fill: "#fde68a",
      a11y: a11y("promo", "Promo banner", "TextView"),
    });
  }
  elements.push(
    {
      id: "row",
      x: 16,
      y: 100 + dy,
      width: 328,
      height: 60,
      fill: "#e5e7eb",
      a11y: a11y("row", change.rowLabel ?? "Shoes", "TextView"),
    },
    {
      id: "checkout",
      x: 40,
      y: 400 + dy,
      width: change.wide ? 300 : 280,
      height: 56,
      fill: change.checkoutFill ?? "#16a34a",
      mark: "#ffffff",
      a11y: a11y("checkout", change.label ?? "Checkout", "Button"),
    },
  );
  return { background: "#ffffff", elements };
}

function setup() {
  const channel = new ScriptedChannel({
    judge: () => ({ accept: true, varying: [], reason: "scripted: the cart", model: SCRIPTED_MODEL }),
    compare: () => ({ realChange: false, reason: "scripted: a new banner", model: SCRIPTED_MODEL }),
  });
  configureAi({ channel, storageDir, mode: "auto", resultsDir: false, log: () => undefined });
}

async function mismatchAfter(platform: "android" | "ios", change: Change, device = phone(platform)) {
  const api = createPlatformApi(fakeAdapter(platform));
  const expect_ = api.expect(fakeDriver(device));
  await expect_.toMatchScreenshot("cart", "the cart");
  device.scene = cart(platform, change);
  const error = await expect_.toMatchScreenshot("cart", "the cart", { timeout: 4_000 }).catch((e: unknown) => e);
  expect(error).toMatchObject({ code: "screenshot-mismatch" });
  return (error as Error).message;
}

function phone(platform: "android" | "ios"): FakeDevice {
  const device = new FakeDevice(cart(platform), { platform, osVersion: platform === "ios" ? "17.5" : "14" });
  device.pageSource = "scene";
  return device;
}

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-changes-"));
  setup();
});
afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

test("the baseline stores its screen's named elements, bounds in screenshot pixels", async () => {
  const device = phone("android");
  await createPlatformApi(fakeAdapter()).expect(fakeDriver(device)).toMatchScreenshot("cart", "the cart");
  const file = path.join(storageDir, "_ai_", "screenshots", "android", "cart", "fake-phone-1_14.json");
  const record = BaselineRecordSchema.parse(JSON.parse(await fs.readFile(file, "utf8")));
  expect(record.tree?.elements).toEqual([
    {
      attributes: { "resource-id": "com.shop:id/title", text: "Your cart", class: "android.widget.TextView" },
      bounds: { x: 0, y: 24, width: 360, height: 56 },
    },
    expect.objectContaining({ bounds: { x: 16, y: 100, width: 328, height: 60 } }),
    expect.objectContaining({ bounds: { x: 40, y: 400, width: 280, height: 56 } }),
  ]);
});

test.each(["android", "ios"] as const)(
  "%s: a new banner and the content it moved are named first",
  async (platform) => {
    const message = await mismatchAfter(platform, { banner: true });
    const id = (name: string) => (platform === "android" ? `com.shop:id/${name}` : name);
    expect(message).toContain(
      `: a new element 'Promo banner' (${id("promo")}) appeared at y=100; ` +
        // Of the elements that moved alike, the button is named.
        `'Checkout' (${id("checkout")}) and 1 other element moved down 150 px; `,
    );
    // Then the pixel count.
    expect(message).toMatch(/moved down 150 px; \d+ pixels differ from the baseline/);
  },
);

test("a changed text is named with its old and new value", async () => {
  const message = await mismatchAfter("android", { label: "Pay now", checkoutFill: "#ea580c" });
  expect(message).toContain(`'Pay now' (com.shop:id/checkout) text changed "Checkout" -> "Pay now"; `);
});

test("a resized element is named with both sizes", async () => {
  const message = await mismatchAfter("ios", { wide: true });
  expect(message).toContain("'Checkout' (checkout) resized from 280x56 to 300x56 px; ");
});

test("a change where no pixel differs is not named", async () => {
  // The double draws no text: the row's new label leaves its pixels alone, while the restyled button differs.
  const message = await mismatchAfter("android", { rowLabel: "Socks", checkoutFill: "#ea580c" });
  expect(message).not.toContain("text changed");
  expect(message).toMatch(/on fake-phone-1_14: \d+ pixels differ/);
});

test("a text change and a move of one element are named together", async () => {
  const message = await mismatchAfter("android", { label: "Pay now", banner: true });
  expect(message).toContain(
    `'Pay now' (com.shop:id/checkout) text changed "Checkout" -> "Pay now" and moved down 150 px`,
  );
});

test("without a readable tree the message says so and keeps the pixel count and content-shift hint", async () => {
  const device = phone("android");
  device.pageSource = undefined;
  const message = await mismatchAfter("android", { banner: true }, device);
  expect(message).toContain("no element named: the baseline was stored without an accessibility tree");
  expect(message).toMatch(/pixels differ from the baseline/);

  // Stored with a tree, but the failure's read is a web page's HTML (a web context).
  await fs.rm(storageDir, { recursive: true, force: true });
  const web = phone("android");
  const api = createPlatformApi(fakeAdapter());
  await api.expect(fakeDriver(web)).toMatchScreenshot("cart", "the cart");
  web.pageSource = async () => "<html><body><button>Checkout</button></body></html>";
  web.scene = cart("android", { banner: true });
  const error = await api
    .expect(fakeDriver(web))
    .toMatchScreenshot("cart", "the cart", { timeout: 4_000 })
    .catch((e: unknown) => e);
  expect((error as Error).message).toContain(
    "no element named: the page source is a web page's HTML (a web context), not the accessibility tree",
  );
});

test("a healed baseline keeps what its mismatch named, for the review page", async () => {
  const device = phone("android");
  const expect_ = createPlatformApi(fakeAdapter()).expect(fakeDriver(device));
  await expect_.toMatchScreenshot("cart", "the cart");
  device.scene = cart("android", { banner: true });
  expect(await expect_.toMatchScreenshot("cart", "the cart", { autoHeal: true, timeout: 6_000 })).toMatchObject({
    outcome: "healed",
  });
  const file = path.join(storageDir, "_ai_", "screenshots", "android", "cart", "fake-phone-1_14.json");
  const record = BaselineRecordSchema.parse(JSON.parse(await fs.readFile(file, "utf8")));
  expect(record.changed).toBe(
    "a new element 'Promo banner' (com.shop:id/promo) appeared at y=100; " +
      "'Checkout' (com.shop:id/checkout) and 1 other element moved down 150 px",
  );
  // The healed screen's tree is stored with it.
  expect(record.tree?.elements.map((e) => e.attributes["resource-id"])).toContain("com.shop:id/promo");
});
