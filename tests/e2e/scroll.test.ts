/**
 * Scroll taps end to end (docs/api.md "Scrolling to find"): a real Appium 3 server driving
 * Chromium as a Pixel 7, on the rig's long cart and offer carousel (demo/app/long-pages.ts),
 * with the real gemini() provider against the Gemini wire double, which answers from the DOM
 * and finds nothing scrolled out of view.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { LogEntry } from "../../src/core/ground/log.js";
import { TapRecordSchema, type TapRecord } from "../../src/core/store/tap-record.js";
import type { WireDouble } from "../../rig/model-doubles/index.js";
import type { DomKnowledge } from "../support/dom-knowledge.js";
import { pixel7 } from "../../rig/profiles.js";
import type { Rig, RigSession } from "../../rig/session.js";
import { configureRig, useRigAndDouble } from "../support/rig-double.js";

const KEY = "e2e-test-key-not-secret";
const PLACE_ORDER = "the Place order button";
/** Checked after a fresh tap (learn, heal) as for any tap; part of the key, so every Place order tap passes it. */
const verify = "the thank you confirmation is shown";

let rig: Rig;
let double: WireDouble;
let knowledge: DomKnowledge;
let storageDir: string;
let logs: LogEntry[];
let session: RigSession;

useRigAndDouble(KEY, (started) => ({ rig, double, knowledge } = started));

beforeAll(async () => {
  session = await rig.session(pixel7);
  knowledge.session = session;
  storageDir = await mkdtemp(join(tmpdir(), "tapshot-e2e-scroll-"));
}, 180_000);

afterAll(async () => {
  if (storageDir) await rm(storageDir, { recursive: true, force: true });
}, 60_000);

function configure(mode: "auto" | "replay") {
  logs = [];
  configureRig(double, KEY, {
    storageDir,
    log: (entry) => logs.push(entry),
    mode,
  });
}

async function storedTap(prefix: string): Promise<TapRecord> {
  const dir = join(storageDir, "_ai_", "apps", "127.0.0.1", "taps", "android", "google-pixel-7_14");
  const file = (await readdir(dir)).find((f) => f.startsWith(prefix) && f.endsWith(".json"));
  if (!file) throw new Error(`no stored tap ${prefix}*.json in ${dir}`);
  return TapRecordSchema.parse(JSON.parse(await readFile(join(dir, file), "utf8")));
}

const tappedIds = async () => (await session.taps()).map((t) => t.testid);

test("learns Place order after several swipes, then replays it in mode replay with no model call", async () => {
  configure("auto");
  await session.open("long-cart");
  const before = double.received.length;
  const learned = await session.ai.tap(session.driver, PLACE_ORDER, { verify, scroll: true, timeout: 120_000 });
  expect(learned.outcome).toBe("learned");
  const record = await storedTap("the-place-order-button-");
  expect(record.scroll?.swipes).toBeGreaterThanOrEqual(2);
  expect(record.scroll).toMatchObject({ direction: "down", swipe: { durationMs: 800 } });
  // One locate per screen looked at: the start and each swipe; then verify's check on the confirmation.
  expect(double.received.slice(before).filter((r) => r.kind === "locate")).toHaveLength(record.scroll!.swipes + 1);
  expect(double.received.slice(before).filter((r) => r.kind === "check").length).toBeGreaterThanOrEqual(1);
  expect(record.verify).toBe(verify);
  expect(record.model).toMatch(/^double:gemini-wire\//);
  expect(await tappedIds()).toEqual(["place-order-button"]);
  expect(logs.at(-1)?.detail).toContain(`found after ${record.scroll!.swipes} swipes down`);

  configure("replay");
  await session.open("long-cart");
  const afterLearning = double.received.length;
  const replayed = await session.ai.tap(session.driver, PLACE_ORDER, { verify, scroll: true, timeout: 120_000 });
  expect(replayed).toMatchObject({ outcome: "replayed", aiCalls: 0 });
  expect(double.received.length).toBe(afterLearning);
  expect(await tappedIds()).toEqual(["place-order-button"]);
  expect(logs.at(-1)?.detail).toContain(`after ${record.scroll!.swipes} swipes down`);
}, 240_000);

test.each([31, 29, 33])(
  "a long cart of %i rows still replays the stored swipes with no model call",
  async (rows) => {
    configure("replay");
    await session.open("long-cart", { rows });
    const replayed = await session.ai.tap(session.driver, PLACE_ORDER, { verify, scroll: true, timeout: 120_000 });
    expect(replayed).toMatchObject({ outcome: "replayed", aiCalls: 0 });
    expect(await tappedIds()).toEqual(["place-order-button"]);
  },
  120_000,
);

test("a plain tap of the same prompt does not use the scroll tap's record", async () => {
  configure("replay");
  await session.open("long-cart");
  await expect(session.ai.tap(session.driver, PLACE_ORDER, { verify, timeout: 10_000 })).rejects.toMatchObject({
    code: "not-stored",
  });
}, 60_000);

test("a list far longer than stored fails the replay, naming the swipes tried", async () => {
  configure("replay");
  await session.open("long-cart", { rows: 60 });
  const error = await session.ai
    .tap(session.driver, PLACE_ORDER, { verify, scroll: true, timeout: 120_000 })
    .catch((e) => e);
  expect(error).toMatchObject({ code: "replay-mismatch" });
  expect((error as Error).message).toMatch(
    /did not appear in \d+ swipes down \(learned after \d+, plus 2 more tried\)/,
  );
  expect(await tappedIds()).toEqual([]);
}, 240_000);

test("reaching the end of the list without the element is a clear not-found", async () => {
  configure("auto");
  await session.open("long-cart");
  const error = await session.ai
    .tap(session.driver, "the Continue shopping button", { scroll: { maxSwipes: 20 }, timeout: 120_000 })
    .catch((e) => e);
  expect(error).toMatchObject({ code: "not-found" });
  expect((error as Error).message).toMatch(/the screen stopped changing after \d+ swipes down \(the end of the list/);
  expect(await tappedIds()).toEqual([]);
}, 300_000);

test("a horizontal carousel: learned by swiping right within the strip, replayed with no model call", async () => {
  configure("auto");
  await session.open("carousel");
  const within = await session.box("offer-strip");
  const scroll = { direction: "right", within, maxSwipes: 8 } as const;
  const learned = await session.ai.tap(session.driver, "the Gift card offer", { scroll, timeout: 120_000 });
  expect(learned.outcome).toBe("learned");
  const record = await storedTap("the-gift-card-offer-");
  expect(record.scroll).toMatchObject({ direction: "right", within });
  expect(record.scroll!.swipes).toBeGreaterThanOrEqual(2);
  expect(record.scroll!.swipe.from.x).toBeGreaterThan(record.scroll!.swipe.to.x);
  expect(await tappedIds()).toEqual(["offer-5"]);

  configure("replay");
  await session.open("carousel");
  const replayed = await session.ai.tap(session.driver, "the Gift card offer", { scroll, timeout: 120_000 });
  expect(replayed).toMatchObject({ outcome: "replayed", aiCalls: 0 });
  expect(await tappedIds()).toEqual(["offer-5"]);
}, 240_000);

test("within as a prompt: the strip is located once when learning and its box stored; the replay makes no model call", async () => {
  configure("auto");
  await session.open("carousel");
  const strip = await session.box("offer-strip");
  const scroll = { direction: "right", within: "the strip of offers", maxSwipes: 8 } as const;
  const before = double.received.length;
  const learned = await session.ai.tap(session.driver, "the Gift card offer tile", { scroll, timeout: 120_000 });
  expect(learned.outcome).toBe("learned");
  const record = await storedTap("the-gift-card-offer-tile-");
  expect(record.scroll?.direction).toBe("right");
  // The strip's DOM box, give or take the pixel the wire's 0-1000 coordinates round away.
  for (const side of ["x", "y", "width", "height"] as const) {
    expect(Math.abs(record.scroll!.within![side] - strip[side])).toBeLessThanOrEqual(2);
  }
  const locates = double.received.slice(before).filter((r) => r.kind === "locate");
  expect(locates.filter((r) => r.userText === "the strip of offers")).toHaveLength(1);
  expect(locates.filter((r) => r.userText === "the Gift card offer tile")).toHaveLength(record.scroll!.swipes + 1);
  expect(locates).toHaveLength(record.scroll!.swipes + 2);
  expect(await tappedIds()).toEqual(["offer-5"]);

  configure("replay");
  await session.open("carousel");
  const afterLearning = double.received.length;
  const replayed = await session.ai.tap(session.driver, "the Gift card offer tile", { scroll, timeout: 120_000 });
  expect(replayed).toMatchObject({ outcome: "replayed", aiCalls: 0 });
  expect(double.received.length).toBe(afterLearning);
  expect(await tappedIds()).toEqual(["offer-5"]);
}, 240_000);

test("fromStart swipes back to the top first, so a list left scrolled still replays", async () => {
  configure("replay");
  await session.open("long-cart");
  await session.driver.execute(() => document.querySelector(".scroller")!.scrollTo(0, 700));
  const replayed = await session.ai.tap(session.driver, PLACE_ORDER, {
    verify,
    scroll: { fromStart: true },
    timeout: 120_000,
  });
  expect(replayed).toMatchObject({ outcome: "replayed", aiCalls: 0 });
  expect(await tappedIds()).toEqual(["place-order-button"]);
}, 300_000);

test("with autoHeal, a list that outgrew the stored swipes is healed: back to the top, found again, previous kept", async () => {
  configure("auto");
  const before = await storedTap("the-place-order-button-");
  await session.open("long-cart", { rows: 60 });
  const healed = await session.ai.tap(session.driver, PLACE_ORDER, {
    verify,
    scroll: { maxSwipes: 15 },
    autoHeal: true,
    timeout: 150_000,
  });
  expect(healed.outcome).toBe("healed");
  const after = await storedTap("the-place-order-button-");
  expect(after.scroll!.swipes).toBeGreaterThan(before.scroll!.swipes + 2);
  expect(after.previous?.scroll).toEqual(before.scroll);
  expect(await tappedIds()).toEqual(["place-order-button"]);
  expect(logs.at(-1)?.detail).toMatch(/^tapshot healed a stored value: .*found after \d+ swipes down/);
}, 240_000);
