/**
 * End to end through a real Appium 3 server driving Debian's Chromium as emulated phones,
 * on the demo shop, with the real gemini() provider talking HTTP to the Gemini wire double
 * (which answers from the page's DOM and names itself as the model in every record).
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LogEntry } from "../../src/core/ground/log.js";
import { BaselineRecordSchema } from "../../src/core/store/baseline-record.js";
import { TapRecordSchema } from "../../src/core/store/tap-record.js";
import { A11Y_MODEL } from "../../src/core/flows/tap/heal-ladder.js";
import type { WireDouble } from "../../rig/model-doubles/index.js";
import type { DomKnowledge } from "../support/dom-knowledge.js";
import { galaxyS23, pixel7 } from "../../rig/profiles.js";
import type { Rig, RigSession } from "../../rig/session.js";
import { configureRig, useRigAndDouble } from "../support/rig-double.js";

const KEY = "e2e-test-key-not-secret";
const CHECKOUT = "the Checkout button";
const SUMMARY_SHOWN = "the order summary is shown";

let rig: Rig;
let double: WireDouble;
let knowledge: DomKnowledge;
let storageDir: string;
let logs: LogEntry[];

useRigAndDouble(KEY, (started) => ({ rig, double, knowledge } = started));

beforeEach(async () => {
  storageDir = await mkdtemp(join(tmpdir(), "tapshot-e2e-"));
  logs = [];
  configureRig(double, KEY, {
    storageDir,
    log: (entry) => logs.push(entry),
  });
});

afterEach(async () => {
  await rm(storageDir, { recursive: true, force: true });
});

/** The model calls made on the double since `before`. */
const callsSince = (before: number, kind?: "locate" | "check" | "judge" | "compare") =>
  double.received.slice(before).filter((r) => kind === undefined || r.kind === kind).length;

async function phone(profile = pixel7): Promise<RigSession> {
  const session = await rig.session(profile);
  knowledge.session = session;
  return session;
}

async function reachConfirmation(session: RigSession): Promise<void> {
  await session.driver.waitUntil(async () => (await session.currentScreen()) === "confirmation", {
    timeout: 15_000,
    timeoutMsg: "the flow did not reach the confirmation screen",
  });
}

/** cart -> Checkout (verified) -> Place order -> confirmation. */
async function checkoutFlow(session: RigSession, variant: "default" | "redesign" = "default", autoHeal = false) {
  await session.open("cart", { variant });
  const checkout = await session.ai.tap(session.driver, CHECKOUT, { verify: SUMMARY_SHOWN, autoHeal, timeout: 60_000 });
  const place = await session.ai.tap(session.driver, "the Place order button", { timeout: 60_000 });
  await reachConfirmation(session);
  return [checkout, place];
}

async function storedTaps(): Promise<string[]> {
  const files = await readdir(join(storageDir, "_ai_", "apps", "127.0.0.1", "taps"), { recursive: true }).catch(
    () => [],
  );
  return files.filter((f) => f.endsWith(".json")).sort();
}

test("the first run learns, the second replays with no model call, and the taps really happened", async () => {
  const session = await phone();
  const before = double.received.length;
  const first = await checkoutFlow(session);
  expect(first.map((r) => r.outcome)).toEqual(["learned", "learned"]);
  expect(callsSince(before, "locate")).toBe(2);
  expect(callsSince(before, "check")).toBeGreaterThanOrEqual(1);

  const files = await storedTaps();
  expect(files).toEqual([
    expect.stringMatching(/^android\/google-pixel-7_14\/the-checkout-button-[0-9a-f]{10}\.json$/),
    expect.stringMatching(/^android\/google-pixel-7_14\/the-place-order-button-[0-9a-f]{10}\.json$/),
  ]);
  const record = TapRecordSchema.parse(
    JSON.parse(await readFile(join(storageDir, "_ai_", "apps", "127.0.0.1", "taps", files[0]!), "utf8")),
  );
  expect(record.model).toMatch(/^double:gemini-wire\//);
  expect(record.device).toMatchObject({ model: "Google Pixel 7", osVersion: "14", platform: "android" });

  const afterLearning = double.received.length;
  const second = await checkoutFlow(session);
  expect(second.map((r) => [r.outcome, r.aiCalls])).toEqual([
    ["replayed", 0],
    ["replayed", 0],
  ]);
  expect(callsSince(afterLearning)).toBe(0);
  // The replayed taps landed on the elements: the page logged each click on its button.
  const taps = await session.taps();
  expect(taps.map((t) => t.testid)).toEqual(["checkout-button", "place-order-button"]);
}, 240_000);

test("a failed verify stores nothing", async () => {
  const session = await phone();
  await session.open("cart");
  const error = await session.ai
    .tap(session.driver, CHECKOUT, { verify: "the payment form is shown", timeout: 20_000 })
    .catch((e: unknown) => e);
  expect(error).toMatchObject({ code: "verify-failed" });
  expect(await storedTaps()).toEqual([]);
}, 120_000);

test("a redesign fails the replay, heals with autoHeal, then replays the healed value; a regression never heals", async () => {
  const session = await phone();
  await checkoutFlow(session);

  await session.open("cart", { variant: "redesign" });
  const failed = await session.ai
    .tap(session.driver, CHECKOUT, { verify: SUMMARY_SHOWN, timeout: 3_000 })
    .catch((e) => e);
  expect(failed).toMatchObject({ code: "replay-mismatch" });
  expect(await session.currentScreen()).toBe("cart");

  const before = double.received.length;
  const [healed] = await checkoutFlow(session, "redesign", true);
  expect(healed).toMatchObject({ outcome: "healed", aiCalls: expect.any(Number) });
  // The redesign restyles the button, so crop search fails; the page source still has it: healed with no locate.
  expect(callsSince(before, "locate")).toBe(0);
  expect(logs.some((l) => l.outcome === "healed" && /^tapshot healed a stored value/.test(l.detail ?? ""))).toBe(true);
  const [file] = (await storedTaps()).filter((f) => f.includes("checkout"));
  const record = TapRecordSchema.parse(
    JSON.parse(await readFile(join(storageDir, "_ai_", "apps", "127.0.0.1", "taps", file!), "utf8")),
  );
  expect(record.model).toBe(A11Y_MODEL);
  expect(record.previous).toBeDefined();
  expect(record.point).not.toEqual(record.previous!.point);

  const afterHeal = double.received.length;
  const [replayed] = await checkoutFlow(session, "redesign");
  expect(replayed).toMatchObject({ outcome: "replayed", aiCalls: 0 });
  expect(callsSince(afterHeal)).toBe(0);

  await session.open("cart", { variant: "regression" });
  const regression = await session.ai
    .tap(session.driver, CHECKOUT, { verify: SUMMARY_SHOWN, autoHeal: true, timeout: 30_000 })
    .catch((e: unknown) => e);
  expect(regression).toMatchObject({ code: "not-found", message: expect.stringContaining("nothing was healed") });
  const after = TapRecordSchema.parse(
    JSON.parse(await readFile(join(storageDir, "_ai_", "apps", "127.0.0.1", "taps", file!), "utf8")),
  );
  expect(after.point).toEqual(record.point);
}, 300_000);

test("baselines on two Android profiles: the second is judged with the first as its reference; the varying balance passes", async () => {
  const pixel = await phone(pixel7);
  await pixel.open("cart");
  const judgedBefore = knowledge.judgeReferences.length;
  const first = await pixel.ai
    .expect(pixel.driver)
    .toMatchScreenshot("cart", "the cart with 2 items; the balance varies");
  expect(first).toMatchObject({ outcome: "stored", aiCalls: 1 });

  const galaxy = await phone(galaxyS23);
  await galaxy.open("cart");
  const second = await galaxy.ai
    .expect(galaxy.driver)
    .toMatchScreenshot("cart", "the cart with 2 items; the balance varies");
  expect(second).toMatchObject({ outcome: "stored", aiCalls: 1 });
  expect(knowledge.judgeReferences.slice(judgedBefore)).toEqual([0, 1]);

  const dir = join(storageDir, "_ai_", "apps", "127.0.0.1", "screenshots", "android", "cart");
  expect((await readdir(dir)).filter((f) => f.endsWith(".json")).sort()).toEqual([
    "google-pixel-7_14.json",
    "samsung-galaxy-s23_14.json",
  ]);
  const record = BaselineRecordSchema.parse(JSON.parse(await readFile(join(dir, "google-pixel-7_14.json"), "utf8")));
  expect(record.varying.length).toBeGreaterThanOrEqual(1);

  // A new load shows another balance and clock; with the balance stored as varying, pixels still match.
  knowledge.session = pixel;
  await pixel.open("cart");
  const before = double.received.length;
  const again = await pixel.ai
    .expect(pixel.driver)
    .toMatchScreenshot("cart", "the cart with 2 items; the balance varies");
  expect(again).toMatchObject({ outcome: "matched", aiCalls: 0 });
  expect(callsSince(before)).toBe(0);
}, 240_000);

test("three parallel sessions on one new device learning one tap make exactly one locate call", async () => {
  const sessions = await Promise.all([0, 1, 2].map(() => rig.openSession(pixel7)));
  try {
    knowledge.session = sessions;
    await Promise.all(sessions.map((s) => s.open("cart", { seed: 7 })));
    const before = double.received.length;
    const results = await Promise.all(
      sessions.map((s) => s.ai.tap(s.driver, CHECKOUT, { verify: SUMMARY_SHOWN, timeout: 90_000 })),
    );
    expect(results.map((r) => r.outcome).sort()).toEqual(["learned", "replayed", "replayed"]);
    expect(callsSince(before, "locate")).toBe(1);
    for (const s of sessions) expect(await s.currentScreen()).toBe("checkout");
  } finally {
    await Promise.allSettled(sessions.map((s) => s.close()));
  }
}, 300_000);
