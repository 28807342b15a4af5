/**
 * Masks by element (docs/api.md, "Masks") end to end on the real Appium rig: a baseline of the
 * demo cart is judged with the Checkout button masked by selector, by element or by prompt, then
 * the `restyled` variant (demo/app/pages.ts: Checkout recoloured in place, nothing else changed)
 * is compared. The gemini() provider talks HTTP to the Gemini wire double, which answers from
 * the page's DOM.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ScreenshotOptions } from "../../src/core/engine/options.js";
import { BaselineRecordSchema } from "../../src/core/store/baseline-record.js";
import { addAiCommands, aiMatchers } from "../../src/wdio/index.js";
import type { WireDouble } from "../../rig/model-doubles/index.js";
import type { DomKnowledge } from "../support/dom-knowledge.js";
import { galaxyS23, iphone15, iphoneSE, pixel7, type PhoneProfile } from "../../rig/profiles.js";
import type { Rig, RigSession } from "../../rig/session.js";
import type { Variant } from "../../demo/app/server.js";
import { configureRig, useRigAndDouble } from "../support/rig-double.js";

const KEY = "e2e-test-key-not-secret";
const PROMPT = "the cart with 2 items; the balance varies";
/** The same selector on every device size. */
const CHECKOUT = '[data-testid="checkout-button"]';
/** One seed for every load, so the only change between pages is the variant's. */
const SEED = 4242;

let rig: Rig;
let double: WireDouble;
let knowledge: DomKnowledge;
let storageDir: string;

useRigAndDouble(KEY, (started) => ({ rig, double, knowledge } = started));

beforeEach(async () => {
  storageDir = await mkdtemp(join(tmpdir(), "tapshot-masks-"));
  configureRig(double, KEY, { storageDir });
});

afterEach(async () => {
  await rm(storageDir, { recursive: true, force: true });
});

async function phone(profile: PhoneProfile): Promise<RigSession> {
  const session = await rig.session(profile);
  knowledge.session = session;
  return session;
}

/** Load the cart's variant and compare it with the baseline `name`. */
async function compare(session: RigSession, variant: Variant, name: string, options: ScreenshotOptions) {
  await session.open("cart", { variant, seed: SEED });
  return session.ai.expect(session.driver).toMatchScreenshot(name, PROMPT, options);
}

const record = async (profile: PhoneProfile, name: string) =>
  BaselineRecordSchema.parse(
    JSON.parse(
      await readFile(
        join(
          storageDir,
          "_ai_",
          "apps",
          "127.0.0.1",
          "screenshots",
          "android",
          name,
          `${profile.target.model.toLowerCase().replace(/ /g, "-")}_14.json`,
        ),
        "utf8",
      ),
    ),
  );

test.each([pixel7, galaxyS23, iphone15, iphoneSE])(
  "on $id, a restyled Checkout masked by the same selector still matches with no model call; unmasked it fails",
  async (profile) => {
    const session = await phone(profile);
    const masked = { mask: [CHECKOUT], timeout: 20_000 };
    expect(await compare(session, "default", "masked-cart", masked)).toMatchObject({ outcome: "stored" });
    expect(await compare(session, "default", "plain-cart", { timeout: 20_000 })).toMatchObject({ outcome: "stored" });

    const before = double.received.length;
    const again = await compare(session, "restyled", "masked-cart", masked);
    expect(again).toMatchObject({ outcome: "matched", aiCalls: 0 });
    // The element form masks the same element.
    const element = await session.driver.$(CHECKOUT);
    const byElement = await compare(session, "restyled", "masked-cart", { mask: [element], timeout: 20_000 });
    expect(byElement).toMatchObject({ outcome: "matched", aiCalls: 0 });
    expect(double.received.length).toBe(before);

    const unmasked = await compare(session, "restyled", "plain-cart", { timeout: 3_000 }).catch((e: unknown) => e);
    expect(unmasked).toMatchObject({ code: "screenshot-mismatch" });
    // The masked baseline without its mask fails too: the restyle is what the mask hid.
    const dropped = await compare(session, "restyled", "masked-cart", { timeout: 3_000 }).catch((e: unknown) => e);
    expect(dropped).toMatchObject({ code: "screenshot-mismatch" });
  },
  240_000,
);

test("a selector that finds nothing is a clear error, unless the mask is optional", async () => {
  const session = await phone(pixel7);
  await compare(session, "default", "cart", { timeout: 20_000 });
  const missing = '[data-testid="no-such-banner"]';
  const error = await compare(session, "default", "cart", { mask: [missing], timeout: 5_000 }).catch((e: unknown) => e);
  expect(error).toMatchObject({
    code: "not-found",
    message: expect.stringContaining(`mask[0] (${JSON.stringify(missing)}) matches no element on the screen`),
  });
  // An element the test found missing is the same error, naming it by its selector.
  const gone = await session.driver.$(missing);
  const byElement = await compare(session, "default", "cart", { mask: [gone], timeout: 5_000 }).catch(
    (e: unknown) => e,
  );
  expect(byElement).toMatchObject({
    code: "not-found",
    message: expect.stringContaining(`(element ${JSON.stringify(missing)})`),
  });
  const optional = await compare(session, "default", "cart", {
    mask: [
      { selector: missing, optional: true },
      { element: gone, optional: true },
    ],
  });
  expect(optional).toMatchObject({ outcome: "matched", aiCalls: 0 });
}, 180_000);

test("a prompt mask is located once when the baseline is judged, stored, and masks a restyle with no model call", async () => {
  const session = await phone(pixel7);
  const options = { mask: [{ prompt: "the Checkout button" }], timeout: 20_000 };
  const before = double.received.length;
  expect(await compare(session, "default", "prompt-cart", options)).toMatchObject({ outcome: "stored" });
  expect(double.received.slice(before).map((r) => r.kind)).toEqual(["judge", "locate"]);
  const stored = await record(pixel7, "prompt-cart");
  const box = await session.findBox("checkout-button");
  expect(stored.promptMasks).toEqual([{ prompt: "the Checkout button", box: expect.any(Object) }]);
  const masked = stored.promptMasks![0]!.box!;
  expect(Math.abs(masked.y - box!.y)).toBeLessThanOrEqual(1);

  const afterJudge = double.received.length;
  expect(await compare(session, "restyled", "prompt-cart", options)).toMatchObject({ outcome: "matched", aiCalls: 0 });
  expect(double.received.length).toBe(afterJudge);

  const added = await compare(session, "default", "prompt-cart", { mask: [{ prompt: "the balance" }] }).catch(
    (e: unknown) => e,
  );
  expect(added).toMatchObject({
    code: "input",
    message: expect.stringContaining("was not located when this baseline"),
  });
}, 180_000);

test("the WDIO command and the matcher pass selector masks through", async () => {
  const session = await phone(pixel7);
  await compare(session, "default", "cart", { mask: [CHECKOUT], timeout: 20_000 });
  await session.open("cart", { variant: "restyled", seed: SEED });
  const driver = session.driver;
  addAiCommands(driver, { adapter: session.adapter });
  const before = double.received.length;
  const result = await driver.aiMatchScreenshot("cart", PROMPT, { mask: [CHECKOUT] });
  expect(result).toMatchObject({ outcome: "matched", aiCalls: 0 });
  const matcher = aiMatchers().toMatchAiScreenshot;
  const passed = await matcher.call({}, driver, "cart", PROMPT, { mask: [CHECKOUT] });
  expect(passed.pass).toBe(true);
  const failed = await matcher.call({}, driver, "cart", PROMPT, { timeout: 3_000 });
  expect(failed.pass).toBe(false);
  expect(double.received.length).toBe(before);
}, 180_000);
