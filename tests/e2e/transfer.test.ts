/**
 * Transfer (docs/transfer.md) end to end on the real Appium rig: the Checkout tap learned on one
 * profile through the Gemini wire double is tapped on another profile of the platform (another
 * screen size and pixel density) with no locate request, on Android (Pixel 7 -> Galaxy S23) and iOS
 * (iPhone 15 -> iPhone SE), also when Checkout changes shape with the screen (519x154 px at 3x
 * to 330x81 px at 2x). Two identical Checkout buttons, a dialog over Checkout, Checkout renamed
 * and a source that is itself an unreviewed transfer each go to the model with no tap before it.
 */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TRANSFER_MODEL } from "../../src/core/flows/tap/transfer.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { resetAi } from "../../src/runner/index.js";
import type { WireDouble } from "../../rig/model-doubles/index.js";
import type { DomKnowledge } from "../support/dom-knowledge.js";
import { galaxyS23, iphone15, iphoneSE, pixel7, type PhoneProfile } from "../../rig/profiles.js";
import type { Variant } from "../../demo/app/pages.js";
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
async function learnOn(
  from: PhoneProfile,
  { variant = "default" as Variant, verify = undefined as string | undefined } = {},
) {
  const phone = await rig.session(from);
  knowledge.session = phone;
  await phone.open("cart", { seed: SEED, variant });
  await expect(phone.ai.tap(phone.driver, CHECKOUT, { timeout: 60_000, verify })).resolves.toMatchObject({
    outcome: "learned",
    aiCalls: verify ? 2 : 1,
  });
}

/** Open the cart's `variant` on `to`, ready for the tap. */
async function openOn(to: PhoneProfile, variant: Variant) {
  const phone = await rig.session(to);
  knowledge.session = phone;
  await phone.open("cart", { variant, seed: SEED });
  return phone;
}

/** The kinds of the model requests since `before` requests had been received. */
const requestsSince = (before: number) => double.received.slice(before).map((r) => r.kind);

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
    // Both kinds of evidence agreed: the element in the page source, its pixels with the stored image.
    expect(logs.at(-1)!.detail).toMatch(
      /the element was found once by .*; the stored image resized to its bounds matched/,
    );
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

test("Checkout of another shape (519x154 px at 3x on iPhone 15, 330x81 px at 2x on iPhone SE) transfers with no model call", async () => {
  expect(await (await openOn(iphone15, "stretched")).box("checkout-button")).toMatchObject({ width: 519, height: 154 });
  await learnOn(iphone15, { variant: "stretched" });
  const phone = await openOn(iphoneSE, "stretched");
  const checkout = await phone.box("checkout-button");
  expect(checkout).toMatchObject({ width: 330, height: 81 });
  const before = double.received.length;
  const result = await phone.ai.tap(phone.driver, CHECKOUT, { timeout: 60_000 });
  expect(result).toMatchObject({ outcome: "learned", aiCalls: 0 });
  expect(requestsSince(before)).toEqual([]);
  expect(inside(result.point, checkout)).toBe(true);
  expect((await phone.taps()).map((t) => t.testid)).toEqual(["checkout-button"]);
}, 240_000);

test("a dialog over Checkout (still in the page source), with verify: the model locates before any tap", async () => {
  const verify = "the order summary is shown";
  await learnOn(iphone15, { verify });
  const phone = await openOn(iphoneSE, "dialog");
  const before = double.received.length;
  // The model double answers Checkout's DOM box under the dialog: its tap lands on the dialog and the check fails.
  await expect(phone.ai.tap(phone.driver, CHECKOUT, { timeout: 10_000, verify })).rejects.toMatchObject({
    code: "verify-failed",
  });
  // Locate first; no cheap tap was made before it, so the one tap on the page is the model's.
  expect(requestsSince(before)[0]).toBe("locate");
  expect(await phone.taps()).toHaveLength(1);
  const located = double.received.slice(before).find((r) => r.kind === "locate")!;
  expect(located.text).toMatch(/its pixels contradict the stored image/);
}, 240_000);

test("Checkout renamed (the same id, another text): the model locates before any tap", async () => {
  await learnOn(pixel7);
  const phone = await openOn(galaxyS23, "renamed");
  const before = double.received.length;
  const result = await phone.ai.tap(phone.driver, CHECKOUT, { timeout: 60_000 });
  expect(result).toMatchObject({ outcome: "learned", aiCalls: 1 });
  expect(requestsSince(before)).toEqual(["locate"]);
  expect((await phone.taps()).map((t) => t.testid)).toEqual(["checkout-button"]);
  const located = double.received.at(-1)!;
  expect(located.text).toMatch(/has text="Pay now" where the stored element has "Checkout": another element/);
}, 240_000);

test("a pending transferred record is no source: the model locates before any tap", async () => {
  await learnOn(iphone15);
  const se = await openOn(iphoneSE, "default");
  await expect(se.ai.tap(se.driver, CHECKOUT, { timeout: 60_000 })).resolves.toMatchObject({ aiCalls: 0 });
  // The model's record on iPhone 15 is gone: the only record left is the unreviewed transfer on the SE.
  const iosTaps = join(storageDir, "_ai_", "apps", "127.0.0.1", "taps", "ios");
  const own = (await readdir(iosTaps)).filter((d) => d.startsWith("iphone-15"));
  expect(own).toHaveLength(1);
  await rm(join(iosTaps, own[0]!), { recursive: true });

  const phone = await openOn(iphone15, "default");
  const before = double.received.length;
  const result = await phone.ai.tap(phone.driver, CHECKOUT, { timeout: 60_000 });
  expect(result).toMatchObject({ outcome: "learned", aiCalls: 1 });
  expect(requestsSince(before)).toEqual(["locate"]);
  expect((await phone.taps()).map((t) => t.testid)).toEqual(["checkout-button"]);
  expect(logs.at(-1)!.detail).toMatch(/not used: found without a model \(local:transfer\) and not accepted in review/);
}, 240_000);
