/**
 * Transfer (docs/transfer.md) end to end on the real Appium rig: the Checkout tap learned on one
 * profile through the Gemini wire double is tapped on another profile of the platform (another
 * screen size and pixel density) with no locate request, on Android (Pixel 7 -> Galaxy S23) and iOS
 * (iPhone 15 -> iPhone SE); two identical Checkout buttons on the new profile go to the model.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TRANSFER_MODEL } from "../../src/core/flows/tap/transfer.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { resetAi } from "../../src/runner/index.js";
import type { WireDouble } from "../../rig/model-doubles/index.js";
import type { DomKnowledge } from "../support/dom-knowledge.js";
import { galaxyS23, iphone15, iphoneSE, pixel7, type PhoneProfile } from "../../rig/profiles.js";
import type { Rig } from "../../rig/session.js";
import { configureRig, useRigAndDouble } from "../support/rig-double.js";

const KEY = "e2e-test-key-not-secret";
const CHECKOUT = "the Checkout button";
const SEED = 4242;

let rig: Rig;
let double: WireDouble;
let knowledge: DomKnowledge;
let storageDir: string;
let logs: LogEntry[];

type Box = { x: number; y: number; width: number; height: number };
const inside = (p: { x: number; y: number }, b: Box) =>
  p.x >= b.x && p.x <= b.x + b.width && p.y >= b.y && p.y <= b.y + b.height;
const locates = () => double.received.filter((r) => r.kind === "locate").length;

useRigAndDouble(KEY, (started) => ({ rig, double, knowledge } = started));

beforeEach(async () => {
  storageDir = await mkdtemp(join(tmpdir(), "tapshot-transfer-e2e-"));
  logs = [];
  configureRig(double, KEY, {
    storageDir,
    resultsDir: false,
    log: (e) => logs.push(e),
  });
});

afterEach(async () => {
  resetAi();
  await rm(storageDir, { recursive: true, force: true });
});

/** Learn Checkout on `from` with the model double. */
async function learnOn(from: PhoneProfile) {
  const phone = await rig.session(from);
  knowledge.session = phone;
  await phone.open("cart", { seed: SEED });
  await expect(phone.ai.tap(phone.driver, CHECKOUT, { timeout: 60_000 })).resolves.toMatchObject({
    outcome: "learned",
    aiCalls: 1,
  });
}

test.each([
  { from: pixel7, to: galaxyS23 },
  { from: iphone15, to: iphoneSE },
])(
  "learned on $from.id, transferred to $to.id with no locate request",
  async ({ from, to }) => {
    await learnOn(from);
    const phone = await rig.session(to);
    knowledge.session = phone;
    await phone.open("cart", { seed: SEED });
    const checkout = await phone.box("checkout-button");
    const before = locates();
    const result = await phone.ai.tap(phone.driver, CHECKOUT, { timeout: 60_000 });
    expect(result).toMatchObject({ outcome: "learned", aiCalls: 0 });
    expect(locates()).toBe(before);
    expect(inside(result.point, checkout)).toBe(true);
    expect((await phone.taps()).map((t) => t.testid)).toEqual(["checkout-button"]);
    expect(logs.at(-1)).toMatchObject({ models: [TRANSFER_MODEL] });
    expect(logs.at(-1)!.detail).toMatch(/transferred from taps\/.*\.json/);
    // Both kinds of evidence agreed: the element in the page source, the scaled crop found once inside it.
    expect(logs.at(-1)!.detail).toMatch(/the element was found once by .*; the crop was found once at/);
  },
  240_000,
);

test("two identical Checkout buttons on the new profile: nothing cheap is tapped, the model is asked", async () => {
  await learnOn(pixel7);
  const phone = await rig.session(galaxyS23);
  knowledge.session = phone;
  await phone.open("cart", { variant: "twins", seed: SEED });
  const before = locates();
  const result = await phone.ai.tap(phone.driver, CHECKOUT, { timeout: 60_000 });
  expect(result).toMatchObject({ outcome: "learned", aiCalls: 1 });
  expect(locates()).toBe(before + 1);
  // One click, the model's: no cheap evidence tapped first.
  expect((await phone.taps()).map((t) => t.testid)).toEqual(["checkout-button"]);
  const last = double.received.filter((r) => r.kind === "locate").at(-1)!;
  expect(last.text).toMatch(/twins|2 places/);
}, 240_000);
