/**
 * Fast verdicts on the rig (docs/api.md "When a call fails"): a real, still change on a real
 * Chromium page fails once the screen has settled, far before a long timeout; mode `update`
 * (docs/reviewing.md "Update mode") replaces it with no model call instead. A replayed tap waits
 * through a static loading view (the demo shop's `?loading=1500`) and replays with no model call,
 * on an Android and an iOS profile, while a redesign of the stored screen still fails once settled.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ScreenshotMismatchError } from "../../src/core/ground/errors.js";
import { BaselineRecordSchema } from "../../src/core/store/baseline-record.js";
import type { WireDouble } from "../../rig/model-doubles/index.js";
import type { DomKnowledge } from "../support/dom-knowledge.js";
import { iphone15, pixel7 } from "../../rig/profiles.js";
import type { Rig } from "../../rig/session.js";
import { configureRig, useRigAndDouble } from "../support/rig-double.js";

const KEY = "e2e-fail-fast-key";
/** Longer than this test's own 120 s limit: a call that waited for it would fail the test. */
const LONG = 600_000;

let rig: Rig;
let double: WireDouble;
let knowledge: DomKnowledge;
let storageDir: string;

useRigAndDouble(KEY, (started) => ({ rig, double, knowledge } = started));

function configure(mode: "auto" | "update") {
  configureRig(double, KEY, {
    storageDir,
    log: false,
    mode,
  });
}

beforeEach(async () => {
  storageDir = await mkdtemp(join(tmpdir(), "tapshot-e2e-fast-"));
  configure("auto");
});

afterEach(async () => {
  await rm(storageDir, { recursive: true, force: true });
});

test("a redesigned, still cart fails once settled, not at its 10-minute timeout, with no model call", async () => {
  const phone = await rig.session(pixel7);
  knowledge.session = phone;
  await phone.open("cart");
  const stored = await phone.ai.expect(phone.driver).toMatchScreenshot("cart", "the cart; the balance varies");
  expect(stored.outcome).toBe("stored");

  await phone.open("cart", { variant: "redesign" });
  const before = double.received.length;
  const error = await phone.ai
    .expect(phone.driver)
    .toMatchScreenshot("cart", "the cart; the balance varies", { timeout: LONG })
    .catch((e: unknown) => e);

  expect(error).toBeInstanceOf(ScreenshotMismatchError);
  expect((error as Error).message).toContain("on a screen that had stopped changing");
  expect(double.received.length).toBe(before);
}, 120_000);

test("mode update replaces the redesigned cart with no model call, pending with the old one kept; the next run matches", async () => {
  const phone = await rig.session(pixel7);
  knowledge.session = phone;
  await phone.open("cart");
  expect(await phone.ai.expect(phone.driver).toMatchScreenshot("cart", "the cart; the balance varies")).toMatchObject({
    outcome: "stored",
  });
  const dir = join(storageDir, "_ai_", "apps", "127.0.0.1", "screenshots", "android", "cart");
  const [json] = (await readdir(dir)).filter((f) => f.endsWith(".json"));
  const oldPng = await readFile(join(dir, json!.replace(/\.json$/, ".png")));

  await phone.open("cart", { variant: "redesign" });
  configure("update");
  const before = double.received.length;
  const updated = await phone.ai.expect(phone.driver).toMatchScreenshot("cart", "the cart; the balance varies");
  expect(updated).toMatchObject({ outcome: "updated", aiCalls: 0 });
  expect(double.received.length).toBe(before);
  const record = BaselineRecordSchema.parse(JSON.parse(await readFile(join(dir, json!), "utf8")));
  expect(record.review).toEqual({ state: "pending" });
  expect(record.previous).toBeDefined();
  expect((await readFile(join(dir, json!.replace(/\.json$/, ".previous.png")))).equals(oldPng)).toBe(true);

  configure("auto");
  const next = await phone.ai.expect(phone.driver).toMatchScreenshot("cart", "the cart; the balance varies");
  expect(next).toMatchObject({ outcome: "matched", aiCalls: 0 });
  expect(double.received.length).toBe(before);
}, 120_000);

describe.each([pixel7, iphone15])("a replayed tap on $id", (profile) => {
  const CHECKOUT = "the Checkout button";

  // 1.5 s is the case; 4 s outlasts the settle rule's decision (2 shots and the 1 s grace) on any machine.
  test.each([1500, 4000])(
    "a plain loading view shown for %i ms, then the cart: replayed with no model call",
    async (ms) => {
      const phone = await rig.session(profile);
      knowledge.session = phone;
      await phone.open("cart");
      expect(await phone.ai.tap(phone.driver, CHECKOUT)).toMatchObject({ outcome: "learned" });

      await phone.open("cart", { loading: ms });
      const before = double.received.length;
      const replayed = await phone.ai.tap(phone.driver, CHECKOUT, { timeout: LONG });

      expect(replayed).toMatchObject({ outcome: "replayed", aiCalls: 0 });
      expect(double.received.length).toBe(before);
      expect(await phone.currentScreen()).toBe("checkout");
    },
    120_000,
  );

  test("the redesigned cart fails once settled, not at its 10-minute timeout; after a loading view too", async () => {
    const phone = await rig.session(profile);
    knowledge.session = phone;
    await phone.open("cart");
    expect(await phone.ai.tap(phone.driver, CHECKOUT)).toMatchObject({ outcome: "learned" });
    const before = double.received.length;

    for (const loading of [0, 1500]) {
      await phone.open("cart", { variant: "redesign", loading });
      const error = await phone.ai.tap(phone.driver, CHECKOUT, { timeout: LONG }).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "replay-mismatch" });
      expect((error as Error).message).toContain(
        "on a screen that had stopped changing (2 identical screenshots in a row)",
      );
    }
    expect(double.received.length).toBe(before);
  }, 120_000);
});
