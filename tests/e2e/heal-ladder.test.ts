/**
 * The heal ladder (docs/heal.md) end to end on the real Appium rig: the Checkout tap is learned
 * once on the original cart, then each cart variant (demo/app/pages.ts) is replayed with
 * `autoHeal` from that same learned record, and the test checks which rung healed it, whether the
 * model double was asked, and what it was told. The gemini() provider talks HTTP to the Gemini
 * wire double, which answers from the page's DOM.
 */
import { cp, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { XMLParser } from "fast-xml-parser";
import type { TapOptions } from "../../src/core/engine/options.js";
import { TapRecordSchema, type TapRecord } from "../../src/core/store/tap-record.js";
import { AGREED_MODEL, CROP_SEARCH_MODEL } from "../../src/core/flows/tap/heal-ladder.js";
import type { WireDouble } from "../../rig/model-doubles/index.js";
import type { DomKnowledge } from "../support/dom-knowledge.js";
import { iphone15, pixel7 } from "../../rig/profiles.js";
import type { Rig, RigSession } from "../../rig/session.js";
import type { Variant } from "../../demo/app/server.js";
import { configureRig, useRigAndDouble } from "../support/rig-double.js";

const KEY = "e2e-test-key-not-secret";
const CHECKOUT = "the Checkout button";
const SUMMARY_SHOWN = "the order summary is shown";
/** One seed for every load, so the only change between pages is the variant's. */
const SEED = 4242;

let rig: Rig;
let double: WireDouble;
let knowledge: DomKnowledge;
let phone: RigSession;
let storageDir: string;
/** A copy of `_ai_` right after the learn, restored before each case. */
let learnedDir: string;
/** The learned records: the tap without verify (most cases) and with it (their keys differ). */
const files = { plain: "", verified: "" };
let learned: TapRecord;

const readRecord = async (which: keyof typeof files = "plain") =>
  TapRecordSchema.parse(JSON.parse(await readFile(files[which], "utf8")));
const locatesSince = (before: number) => double.received.slice(before).filter((r) => r.kind === "locate");

type Box = { x: number; y: number; width: number; height: number };
const inside = (p: { x: number; y: number }, b: Box) =>
  p.x >= b.x && p.x <= b.x + b.width && p.y >= b.y && p.y <= b.y + b.height;

useRigAndDouble(KEY, (started) => ({ rig, double, knowledge } = started));

beforeAll(async () => {
  storageDir = await mkdtemp(join(tmpdir(), "tapshot-heal-ladder-"));
  learnedDir = join(storageDir, "learned");
  configureRig(double, KEY, { storageDir });
  phone = await rig.session(pixel7);
  knowledge.session = phone;
  const taps = join(storageDir, "_ai_", "apps", "127.0.0.1", "taps");
  const stored = async () =>
    (await readdir(taps, { recursive: true }).catch(() => [])).filter((f) => f.endsWith(".json"));
  for (const [which, verify] of [
    ["plain", undefined],
    ["verified", SUMMARY_SHOWN],
  ] as const) {
    const before = await stored();
    await phone.open("cart", { seed: SEED });
    const result = await phone.ai.tap(phone.driver, CHECKOUT, { ...(verify ? { verify } : {}), timeout: 60_000 });
    expect(result.outcome).toBe("learned");
    const added = (await stored()).filter((f) => !before.includes(f));
    expect(added).toHaveLength(1);
    files[which] = join(taps, added[0]!);
  }
  learned = await readRecord();
  await cp(join(storageDir, "_ai_"), learnedDir, { recursive: true });
}, 180_000);

afterAll(async () => {
  if (storageDir) await rm(storageDir, { recursive: true, force: true });
}, 60_000);

beforeEach(async () => {
  await rm(join(storageDir, "_ai_"), { recursive: true, force: true });
  await cp(learnedDir, join(storageDir, "_ai_"), { recursive: true });
  knowledge.session = phone;
});

/** Open the variant and tap Checkout with autoHeal; the result or the error, and the locate requests made. */
async function healOn(variant: Variant, options: Partial<TapOptions> = {}) {
  await phone.open("cart", { variant, seed: SEED });
  const checkout = await phone.box("checkout-button").catch(() => undefined);
  const before = double.received.length;
  const outcome = await phone.ai
    .tap(phone.driver, CHECKOUT, { autoHeal: true, timeout: 60_000, ...options })
    .catch((error: unknown) => error);
  return { outcome, locates: locatesSince(before), checkout, taps: await phone.taps() };
}

test("learn stores the accessibility element whose bounds lie on the Checkout button, in screenshot pixels", async () => {
  await phone.open("cart", { seed: SEED });
  const box = await phone.box("checkout-button");
  expect(learned.element).toBeDefined();
  const bounds = learned.element!.bounds;
  // The stored bounds are the button's box (page source rounding: within 1 px), and the tap point lies in them.
  for (const key of ["x", "y", "width", "height"] as const)
    expect(Math.abs(bounds[key] - box[key])).toBeLessThanOrEqual(1);
  expect(inside(learned.point, bounds)).toBe(true);
  expect(learned.element!.attributes).toMatchObject({ "resource-id": "checkout-button" });
});

test("banner above Checkout: crop search and accessibility agree, healed with no locate call", async () => {
  const { outcome, locates, checkout, taps } = await healOn("banner");
  expect(outcome).toMatchObject({ outcome: "healed" });
  expect(locates).toHaveLength(0);
  const record = await readRecord();
  expect(record.model).toBe(AGREED_MODEL);
  expect(record.point.y).toBeGreaterThan(learned.point.y);
  expect(inside(record.point, checkout!)).toBe(true);
  expect(taps.map((t) => t.testid)).toEqual(["checkout-button"]);
}, 90_000);

test("banner, with verify and accessibility off: crop search alone heals, verify checked by the model, no locate call", async () => {
  const before = double.received.length;
  const { outcome, locates, checkout } = await healOn("banner", {
    verify: SUMMARY_SHOWN,
    heal: { accessibility: false },
  });
  expect(outcome).toMatchObject({ outcome: "healed" });
  expect(locates).toHaveLength(0);
  expect(double.received.slice(before).filter((r) => r.kind === "check")).toHaveLength(1);
  const record = await readRecord("verified");
  expect(record.model).toBe(CROP_SEARCH_MODEL);
  expect(inside(record.point, checkout!)).toBe(true);
  expect(await phone.currentScreen()).toBe("checkout");
}, 90_000);

test("list grew, Checkout pushed down: healed by the cheap rungs, no locate call", async () => {
  const { outcome, locates, checkout, taps } = await healOn("grown");
  expect(outcome).toMatchObject({ outcome: "healed" });
  expect(locates).toHaveLength(0);
  const record = await readRecord();
  expect(record.model).toBe(AGREED_MODEL);
  expect(inside(record.point, checkout!)).toBe(true);
  expect(taps.map((t) => t.testid)).toEqual(["checkout-button"]);
}, 90_000);

test("Checkout restyled in place: crop search finds nothing, so the model double is asked", async () => {
  const { outcome, locates, checkout, taps } = await healOn("restyled");
  expect(outcome).toMatchObject({ outcome: "healed" });
  expect(locates).toHaveLength(1);
  expect(locates[0]!.text).toContain("The stored crop matches nowhere on the screen");
  const record = await readRecord();
  expect(record.model).toMatch(/^double:gemini-wire\//);
  expect(inside(record.point, checkout!)).toBe(true);
  expect(taps.map((t) => t.testid)).toEqual(["checkout-button"]);
}, 90_000);

test("Checkout removed: nothing tapped, nothing healed, an error that says so", async () => {
  const { outcome, locates, taps } = await healOn("regression");
  expect(outcome).toMatchObject({ code: "not-found", message: expect.stringContaining("nothing was healed") });
  expect(locates).toHaveLength(1);
  expect(taps).toEqual([]);
  expect(await readRecord()).toEqual(learned);
}, 90_000);

test("two identical Checkout buttons: nothing cheap is tapped, the model is told both places", async () => {
  await phone.open("cart", { variant: "twins", seed: SEED });
  const buttons = (await phone.elements()).filter((e) => e.testid === "checkout-button" && e.visible);
  expect(buttons).toHaveLength(2);
  const { outcome, locates, taps } = await healOn("twins");
  expect(locates).toHaveLength(1);
  // One click, the model's, on one of the two buttons: no cheap rung tapped first.
  expect(taps.map((t) => t.testid)).toEqual(["checkout-button"]);
  const text = locates[0]!.text;
  expect(text).toContain("The stored crop now matches at 2 places");
  const a11y = /The accessibility tree has 2 elements with the same [^:]+: (.+)\./.exec(text);
  expect(a11y).not.toBeNull();
  // Each place named lies on one of the two buttons, and each button is named.
  const places = [...a11y![1]!.matchAll(/\((\d+), (\d+)\) (\d+)x(\d+)/g)].map((m) => ({
    x: Number(m[1]) + Number(m[3]) / 2,
    y: Number(m[2]) + Number(m[4]) / 2,
  }));
  expect(places).toHaveLength(2);
  for (const b of buttons) expect(places.filter((p) => inside(p, b.box))).toHaveLength(1);
  expect(outcome).toMatchObject({ outcome: "healed" });
  expect((await readRecord()).model).toMatch(/^double:gemini-wire\//);
}, 90_000);

test("heal: { search: false, accessibility: false } asks the model even for the banner", async () => {
  const { outcome, locates, checkout } = await healOn("banner", { heal: { search: false, accessibility: false } });
  expect(outcome).toMatchObject({ outcome: "healed" });
  expect(locates).toHaveLength(1);
  const record = await readRecord();
  expect(record.model).toMatch(/^double:gemini-wire\//);
  expect(inside(record.point, checkout!)).toBe(true);
}, 90_000);

describe("page source units", () => {
  const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" });
  type XmlNode = Record<string, unknown>;
  /** Every element with attribute `key` = `value`, in the parsed tree. */
  const findAll = (node: unknown, key: string, value: string, out: XmlNode[] = []): XmlNode[] => {
    if (Array.isArray(node)) node.forEach((n) => findAll(n, key, value, out));
    else if (node && typeof node === "object") {
      const n = node as XmlNode;
      if (n[key] === value) out.push(n);
      Object.values(n).forEach((v) => findAll(v, key, value, out));
    }
    return out;
  };

  test("UiAutomator2 bounds are in device pixels: the screenshot box of Checkout", async () => {
    await phone.open("cart", { seed: SEED });
    const box = await phone.box("checkout-button");
    const [node, ...more] = findAll(parser.parse(await phone.device.pageSource!()), "resource-id", "checkout-button");
    expect(more).toEqual([]);
    const [x1, y1, x2, y2] = /^\[(\d+),(\d+)\]\[(\d+),(\d+)\]$/.exec(String(node!.bounds))!.slice(1).map(Number);
    expect(pixel7.pixelRatio).toBeGreaterThan(2);
    for (const [got, want] of [
      [x1!, box.x],
      [y1!, box.y],
      [x2!, box.x + box.width],
      [y2!, box.y + box.height],
    ]) {
      expect(Math.abs(got! - want!)).toBeLessThanOrEqual(1);
    }
  });

  test("XCUITest x/y/width/height are in points: the CSS box of Checkout, a third of the screenshot box", async () => {
    const ios = await rig.session(iphone15);
    await ios.open("cart", { seed: SEED });
    await ios.describe();
    const box = await ios.box("checkout-button");
    const css = await ios.driver.execute(() => {
      const r = document.querySelector("[data-testid=checkout-button]")!.getBoundingClientRect();
      return { x: r.left, y: r.top, width: r.width, height: r.height };
    });
    const [node, ...more] = findAll(parser.parse(await ios.device.pageSource!()), "name", "checkout-button");
    expect(more).toEqual([]);
    for (const key of ["x", "y", "width", "height"] as const) {
      expect(Number(node![key])).toBe(Math.round(css[key]));
      expect(Math.abs(Number(node![key]) * iphone15.pixelRatio - box[key])).toBeLessThanOrEqual(iphone15.pixelRatio);
    }
    await ios.close();
  }, 120_000);
});
