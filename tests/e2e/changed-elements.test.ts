/**
 * Naming what changed (docs/api.md, "What changed") end to end on the real Appium rig: a baseline
 * of the demo cart stores the page's tree (the rig serves the DOM in UiAutomator2's XML shape,
 * rig/rig-adapter.ts), and a mismatch with a cart variant (demo/app/pages.ts) names the changed
 * elements first. The gemini() provider talks HTTP to the Gemini wire double.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BaselineRecordSchema } from "../../src/core/store/baseline-record.js";
import type { WireDouble } from "../../rig/model-doubles/index.js";
import type { DomKnowledge } from "../support/dom-knowledge.js";
import { iphone15, pixel7 } from "../../rig/profiles.js";
import type { Rig, RigSession } from "../../rig/session.js";
import type { Variant } from "../../demo/app/server.js";
import { configureRig, useRigAndDouble } from "../support/rig-double.js";

const KEY = "e2e-test-key-not-secret";
const PROMPT = "the cart with 2 items; the balance varies";
const SEED = 4242;

let rig: Rig;
let double: WireDouble;
let knowledge: DomKnowledge;
let storageDir: string;
let phone: RigSession;

useRigAndDouble(KEY, (started) => ({ rig, double, knowledge } = started));

beforeAll(async () => {
  storageDir = await mkdtemp(join(tmpdir(), "tapshot-changes-"));
  configureRig(double, KEY, { storageDir });
  phone = await rig.session(pixel7);
  knowledge.session = phone;
  await phone.open("cart", { seed: SEED });
  expect(await phone.ai.expect(phone.driver).toMatchScreenshot("cart", PROMPT)).toMatchObject({ outcome: "stored" });
}, 180_000);

afterAll(async () => {
  await rm(storageDir, { recursive: true, force: true });
}, 60_000);

async function mismatch(variant: Variant, maxDiffPixels?: number): Promise<string> {
  await phone.open("cart", { variant, seed: SEED });
  const error = await phone.ai
    .expect(phone.driver)
    .toMatchScreenshot("cart", PROMPT, { timeout: 8_000, ...(maxDiffPixels === undefined ? {} : { maxDiffPixels }) })
    .catch((e: unknown) => e);
  expect(error).toMatchObject({ code: "screenshot-mismatch" });
  return (error as Error).message;
}

test("the stored baseline carries the page's named elements in screenshot pixels", async () => {
  const file = join(
    storageDir,
    "_ai_",
    "apps",
    "127.0.0.1",
    "screenshots",
    "android",
    "cart",
    "google-pixel-7_14.json",
  );
  const record = BaselineRecordSchema.parse(JSON.parse(await readFile(file, "utf8")));
  const checkout = record.tree?.elements.find((e) => e.attributes["resource-id"] === "checkout-button");
  expect(checkout?.attributes.text).toBe("Checkout");
  const box = await phone.findBox("checkout-button");
  expect(Math.abs(checkout!.bounds.y - box!.y)).toBeLessThanOrEqual(2);
}, 60_000);

test("a new banner is named, and the Checkout button it pushed down", async () => {
  const message = await mismatch("banner");
  const [named] = message.split(/ \d+ pixels differ/);
  expect(named).toMatch(
    /a new element 'Free shipping on orders over €150 this week' \(promo-banner\) appeared at y=\d+/,
  );
  // 44 px banner + 12 px margin, at 2.625.
  expect(named).toContain("'Checkout' (checkout-button) and 20 other elements moved down 147 px");
  expect(message).toMatch(/; \d+ pixels differ from the baseline/);
}, 60_000);

test("a changed label is named with its old and new text", async () => {
  // The new label alone differs in fewer pixels than the default 0.1% allowance.
  const message = await mismatch("renamed", 100);
  expect(message).toContain(`'Pay now' (checkout-button) text changed "Checkout" -> "Pay now"; `);
}, 60_000);

test("on an iOS profile (XCUITest's tree shape) the banner and the moved button are named the same way", async () => {
  const ios = await rig.session(iphone15);
  knowledge.session = ios;
  try {
    await ios.open("cart", { seed: SEED });
    expect(await ios.ai.expect(ios.driver).toMatchScreenshot("cart", PROMPT)).toMatchObject({ outcome: "stored" });
    await ios.open("cart", { variant: "banner", seed: SEED });
    const error = await ios.ai
      .expect(ios.driver)
      .toMatchScreenshot("cart", PROMPT, { timeout: 8_000 })
      .catch((e: unknown) => e);
    const message = (error as Error).message;
    expect(message).toMatch(/: a new element 'Free shipping on orders over €150 this week' \(promo-banner\) appeared/);
    // 44 px banner + 12 px margin, at 3.
    expect(message).toMatch(
      /'Checkout' \(checkout-button\) and \d+ other elements moved down 168 px; \d+ pixels differ/,
    );
  } finally {
    knowledge.session = phone;
  }
}, 120_000);
