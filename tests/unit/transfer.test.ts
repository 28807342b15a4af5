/**
 * Transfer (docs/transfer.md) on the device double: a tap learned on one device model is tapped
 * on another model of the platform, of another screen size, shape and pixel density, with no
 * locate request when the page source finds the stored element once with the same identity and
 * its pixels agree with the stored image resized to its bounds. Twins, a renamed control, a
 * covered or restyled element, a missing element, a place the prompt names that does not agree
 * and an unreviewed transferred source go to the model with nothing tapped before it, with or
 * without `verify`; mode replay writes nothing.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { TapRecordSchema, type TapRecord } from "../../src/core/store/tap-record.js";
import { notASource, TRANSFER_MODEL } from "../../src/core/flows/tap/transfer.js";
import { identityDifference } from "../../src/core/flows/tap/transfer-evidence.js";
import { placeDisagreement, promptPlaces } from "../../src/core/flows/tap/position-words.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { FakeDevice, fakeAdapter, fakeDriver, type FakeElement, type FakeScene } from "../support/fake-device.js";
import { locateOnDevice, ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";
import type { AiRequestOf } from "../../rig/scripted-channel.js";

const PROMPT = "the checkout button";
type Platform = "android" | "ios";
const A11Y: Record<Platform, Record<string, string>> = {
  android: { "resource-id": "com.shop:id/checkout", text: "Checkout", class: "android.widget.Button" },
  ios: { name: "checkout", label: "Checkout", type: "XCUIElementTypeButton" },
};
const SAVE_A11Y: Record<Platform, Record<string, string>> = {
  android: { "resource-id": "com.shop:id/save", text: "Save", class: "android.widget.Button" },
  ios: { name: "save", label: "Save", type: "XCUIElementTypeButton" },
};

/** A cart laid out in tap units on a 360x640-unit screen. */
function cart(platform: Platform, { checkoutY = 520, fill = "#16a34a", extra = [] as FakeElement[] } = {}): FakeScene {
  return {
    background: "#ffffff",
    elements: [
      { id: "header", x: 0, y: 24, width: 360, height: 56, fill: "#1e40af" },
      { id: "item-row", x: 16, y: 100, width: 328, height: 60, fill: "#e5e7eb", mark: "#9ca3af" },
      { id: "checkout", x: 40, y: checkoutY, width: 280, height: 56, fill, mark: "#ffffff", a11y: A11Y[platform] },
      ...extra,
    ],
  };
}

/** The same scene on a screen of `scale` pixels per unit. */
function scaled(scene: FakeScene, scale: number): FakeScene {
  const s = (v: number) => Math.round(v * scale);
  return {
    ...scene,
    elements: scene.elements.map((e) => ({
      ...e,
      x: s(e.x),
      y: s(e.y),
      width: s(e.width),
      height: s(e.height),
      ...(e.markSize ? { markSize: { width: s(e.markSize.width), height: s(e.markSize.height) } } : {}),
    })),
  };
}

/** A phone of `scale` pixels per unit (`widthUnits` x 640 units), serving its page source. */
function phone(platform: Platform, model: string, scale: number, scene: FakeScene, widthUnits = 360): FakeDevice {
  const device = new FakeDevice(scaled(scene, scale), {
    platform,
    model,
    osVersion: platform === "ios" ? "17.5" : "14",
    width: widthUnits * scale,
    height: 640 * scale,
    scale,
    insets: { top: 24 * scale, bottom: 32 * scale, left: 0, right: 0 },
  });
  device.pageSource = "scene";
  return device;
}

let storageDir: string;
let logs: LogEntry[];
let current: FakeDevice;
let channel: ScriptedChannel;
/** The taps the device had received when each locate request was sent: no cheap tap may come before the model. */
let tapsAtLocate: number[];

function setup(mode: "auto" | "replay" = "auto") {
  channel = new ScriptedChannel({
    locate: (r: AiRequestOf<"locate">) => {
      tapsAtLocate.push(current.taps.length);
      return locateOnDevice(current)(r);
    },
  });
  configureAi({
    channel,
    storageDir,
    mode,
    log: (e) => logs.push(e),
    reportArtifact: () => undefined,
    resultsDir: false,
  });
}

/** Learn the tap on a Pixel-like source phone (scale 1) with the model. */
async function learnOnSource(platform: Platform) {
  const api = createPlatformApi(fakeAdapter(platform));
  current = phone(platform, "Source Phone", 1, cart(platform));
  await expect(api.tap(fakeDriver(current), PROMPT)).resolves.toMatchObject({ outcome: "learned", aiCalls: 1 });
  return api;
}

async function storedFor(model: string) {
  const files = (await fs.readdir(path.join(storageDir, "_ai_", "taps"), { recursive: true })) as string[];
  const file = files.find((f) => f.includes(model) && f.endsWith(".json"));
  if (!file) return undefined;
  return TapRecordSchema.parse(JSON.parse(await fs.readFile(path.join(storageDir, "_ai_", "taps", file), "utf8")));
}

function hit(device: FakeDevice, id: string): boolean {
  const e = device.element(id);
  return device.taps.some((p) => p.x >= e.x && p.x < e.x + e.width && p.y >= e.y && p.y < e.y + e.height);
}

/** The model was asked on `device` before anything was tapped there, and its one tap is the only one. */
function modelAskedBeforeAnyTap(device: FakeDevice) {
  expect(tapsAtLocate.at(-1)).toBe(0);
  expect(device.taps).toHaveLength(1);
}

async function storedFile(model: string) {
  const files = (await fs.readdir(path.join(storageDir, "_ai_", "taps"), { recursive: true })) as string[];
  return path.join(
    storageDir,
    "_ai_",
    "taps",
    files.find((f) => f.includes(model) && f.endsWith(".json"))!,
  );
}

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-transfer-"));
  logs = [];
  tapsAtLocate = [];
  setup();
});
afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

describe.each(["android", "ios"] as const)("on %s", (platform) => {
  test.each([1.5, 3])("a tap learned at scale 1 is transferred at scale %s with no locate request", async (scale) => {
    const api = await learnOnSource(platform);
    current = phone(platform, "Target Phone", scale, cart(platform));
    const result = await api.tap(fakeDriver(current), PROMPT);
    expect(result).toMatchObject({ outcome: "learned", aiCalls: 0 });
    expect(channel.count("locate")).toBe(1);
    expect(hit(current, "checkout")).toBe(true);

    const record = (await storedFor("target-phone"))!;
    expect(record.model).toBe(TRANSFER_MODEL);
    expect(record.reason).toMatch(
      /^transferred from taps\/.*source-phone.*\.json \(learned on Source Phone by test-double:scripted\)/,
    );
    expect(record.reason).toMatch(/found once by .*its identity equal; the stored image resized to its bounds matched/);
    expect(record.review).toEqual({ state: "pending" });
    expect(record.device.scale).toBe(scale);
    expect(record.element?.attributes).toEqual(A11Y[platform]);
    expect(logs.at(-1)).toMatchObject({ outcome: "learned", aiCalls: 0, models: [TRANSFER_MODEL] });

    // The transferred value replays like any learned one.
    current.scene = scaled(cart(platform), scale);
    await expect(api.tap(fakeDriver(current), PROMPT)).resolves.toMatchObject({ outcome: "replayed", aiCalls: 0 });
  });
});

test("an element stretched by a wider screen, its label the same size, is transferred", async () => {
  const label = { width: 120, height: 20 };
  const source = cart("android");
  source.elements[2] = { ...source.elements[2]!, markSize: label };
  const api = createPlatformApi(fakeAdapter("android"));
  current = phone("android", "Source Phone", 1, source);
  await api.tap(fakeDriver(current), PROMPT);
  // 412 units wide: the header and the checkout button stretch, the button's label keeps its size.
  const wide = cart("android");
  wide.elements[0] = { ...wide.elements[0]!, width: 412 };
  wide.elements[2] = { ...wide.elements[2]!, width: 332, markSize: label };
  current = phone("android", "Target Phone", 2, wide, 412);
  await expect(api.tap(fakeDriver(current), PROMPT)).resolves.toMatchObject({ outcome: "learned", aiCalls: 0 });
  expect(hit(current, "checkout")).toBe(true);
  // The button's centre is (412, 1096): the stored point, at the same relative place in the button.
  expect(Math.abs(current.taps[0]!.x - 412)).toBeLessThanOrEqual(2);
  expect(Math.abs(current.taps[0]!.y - 1096)).toBeLessThanOrEqual(2);
  expect(channel.count("locate")).toBe(1);
});

describe("a button of another shape: an iPhone 15 Pro-like record on an iPhone SE-like screen", () => {
  /** A 393x852-point screen at 3x with Checkout 173x51 points, or a 375x667-point one at 2x with it 165x40. */
  function iphone(model: string, big: boolean, extra: FakeElement[] = []): FakeDevice {
    const [width, height, scale] = big ? [393, 852, 3] : [375, 667, 2];
    const button = big ? { width: 173, height: 51 } : { width: 165, height: 40 };
    const scene: FakeScene = {
      background: "#f3f4f7",
      elements: [
        { id: "header", x: 0, y: 47, width, height: 56, fill: "#1450c8" },
        {
          id: "checkout",
          x: Math.round((width - button.width) / 2),
          y: big ? 477 : 450,
          ...button,
          fill: "#1450c8",
          mark: "#ffffff",
          // The label keeps its size in points; the button's shape changes with the screen's.
          markSize: { width: 75, height: 20 },
          a11y: A11Y.ios,
        },
        ...extra,
      ],
    };
    const device = new FakeDevice(scaled(scene, scale), {
      platform: "ios",
      model,
      osVersion: "17.5",
      width: width * scale,
      height: height * scale,
      scale,
      insets: { top: (big ? 47 : 20) * scale, bottom: (big ? 34 : 0) * scale, left: 0, right: 0 },
    });
    device.pageSource = "scene";
    return device;
  }

  async function learnOnBig() {
    const api = createPlatformApi(fakeAdapter("ios"));
    current = iphone("iPhone 15 Pro", true);
    await expect(api.tap(fakeDriver(current), PROMPT)).resolves.toMatchObject({ aiCalls: 1 });
    // 519x153 px at 3x.
    expect(current.element("checkout")).toMatchObject({ width: 519, height: 153 });
    return api;
  }

  test("stretched to 330x80 px at 2x, it is transferred with no model call", async () => {
    const api = await learnOnBig();
    current = iphone("iPhone SE", false);
    expect(current.element("checkout")).toMatchObject({ width: 330, height: 80 });
    await expect(api.tap(fakeDriver(current), PROMPT)).resolves.toMatchObject({ outcome: "learned", aiCalls: 0 });
    expect(channel.count("locate")).toBe(1);
    expect(hit(current, "checkout")).toBe(true);
    expect((await storedFor("iphone-se"))!.reason).toMatch(/the stored image resized to its bounds matched/);
  });

  test.each([undefined, "the order summary is shown"])(
    "a dialog drawn over it (still in the page source) goes to the model before any tap (verify: %s)",
    async (verify) => {
      const api = await learnOnBig();
      if (verify) {
        channel.script.check = () => ({ pass: true, reason: "scripted", model: SCRIPTED_MODEL });
        current = iphone("iPhone 15 Pro", true);
        await api.tap(fakeDriver(current), PROMPT, { verify });
      }
      const dialog: FakeElement = {
        id: "dialog",
        x: 0,
        y: 380,
        width: 375,
        height: 200,
        fill: "#ffffff",
        mark: "#111827",
      };
      current = iphone("iPhone SE", false, [dialog]);
      const locates = channel.count("locate");
      const result = await api.tap(fakeDriver(current), PROMPT, { verify });
      expect(result).toMatchObject({ outcome: "learned", aiCalls: verify ? 2 : 1 });
      expect(channel.count("locate")).toBe(locates + 1);
      modelAskedBeforeAnyTap(current);
      expect(channel.requests.filter((r) => r.kind === "locate").at(-1)).toMatchObject({
        evidence: expect.stringMatching(
          /found once by name.*its pixels contradict the stored image.*covered or restyled/,
        ),
      });
      expect((await storedFor("iphone-se"))!.model).toBe(SCRIPTED_MODEL);
    },
  );
});

test("with verify, a certain transfer taps and asks no check; an uncertain one asks the model before any tap", async () => {
  const verify = "the summary is shown";
  const api = await learnOnSource("android");
  channel.script.check = () => ({ pass: true, reason: "scripted", model: SCRIPTED_MODEL });
  current = phone("android", "Source Phone", 1, cart("android"));
  await api.tap(fakeDriver(current), PROMPT, { verify });
  const asked = channel.count();

  current = phone("android", "Target Phone", 2, cart("android"));
  await expect(api.tap(fakeDriver(current), PROMPT, { verify })).resolves.toMatchObject({
    outcome: "learned",
    aiCalls: 0,
  });
  expect(channel.count()).toBe(asked);
  expect(hit(current, "checkout")).toBe(true);
  expect((await storedFor("target-phone"))!.reason).toMatch(/"the summary is shown" was not asked after the tap/);

  // Restyled: once the page source alone may have tapped with verify; now the model locates first.
  current = phone("android", "Third Phone", 3, cart("android", { fill: "#dc2626" }));
  const result = await api.tap(fakeDriver(current), PROMPT, { verify });
  expect(result).toMatchObject({ outcome: "learned", aiCalls: 2 });
  expect(channel.requests.slice(asked).map((r) => r.kind)).toEqual(["locate", "check"]);
  modelAskedBeforeAnyTap(current);
});

describe.each(["android", "ios"] as const)("a renamed control on %s (the stored id, another text)", (platform) => {
  const text = platform === "android" ? "text" : "label";
  test.each([undefined, "the summary is shown"])("goes to the model before any tap (verify: %s)", async (verify) => {
    const api = createPlatformApi(fakeAdapter(platform));
    channel.script.check = () => ({ pass: true, reason: "scripted", model: SCRIPTED_MODEL });
    current = phone(platform, "Source Phone", 1, cart(platform));
    await api.tap(fakeDriver(current), PROMPT, { verify });
    const renamed = cart(platform);
    // The same pixels, the same id, but it says "Sign in": findElement finds it by its id alone.
    renamed.elements[2] = { ...renamed.elements[2]!, a11y: { ...A11Y[platform], [text]: "Sign in" } };
    current = phone(platform, "Target Phone", 2, renamed);
    const result = await api.tap(fakeDriver(current), PROMPT, { verify });
    expect(result.aiCalls).toBe(verify ? 2 : 1);
    modelAskedBeforeAnyTap(current);
    expect(channel.requests.filter((r) => r.kind === "locate").at(-1)).toMatchObject({
      evidence: expect.stringContaining(
        `has ${text}="Sign in" where the stored element has "Checkout": another element`,
      ),
    });
  });
});

test("twins (two elements with the stored attributes) go to the model, with the evidence", async () => {
  const api = await learnOnSource("android");
  const twin: FakeElement = { ...cart("android").elements[2]!, id: "checkout-twin", y: 420 };
  current = phone("android", "Target Phone", 2, cart("android", { extra: [twin] }));
  const result = await api.tap(fakeDriver(current), PROMPT);
  expect(result).toMatchObject({ outcome: "learned", aiCalls: 1 });
  expect(channel.count("locate")).toBe(2);
  modelAskedBeforeAnyTap(current);
  expect(channel.requests.at(-1)).toMatchObject({
    kind: "locate",
    evidence: expect.stringMatching(/2 elements .*twins/),
  });
  expect((await storedFor("target-phone"))!.model).toBe(SCRIPTED_MODEL);
});

test("a restyled element (same attributes and place, other pixels) goes to the model before any tap", async () => {
  const api = await learnOnSource("android");
  current = phone("android", "Target Phone", 2, cart("android", { fill: "#dc2626" }));
  const result = await api.tap(fakeDriver(current), PROMPT);
  expect(result.aiCalls).toBe(1);
  modelAskedBeforeAnyTap(current);
  expect(channel.requests.at(-1)).toMatchObject({
    evidence: expect.stringMatching(/its pixels contradict the stored image.*\(covered or restyled\)/),
  });
  expect((await storedFor("target-phone"))!.model).toBe(SCRIPTED_MODEL);
});

test("a missing element is never tapped on cheap evidence", async () => {
  const api = await learnOnSource("android");
  const scene = cart("android");
  scene.elements = scene.elements.filter((e) => e.id !== "checkout");
  current = phone("android", "Target Phone", 2, scene);
  await expect(api.tap(fakeDriver(current), PROMPT)).rejects.toMatchObject({ code: "not-found" });
  expect(current.taps).toEqual([]);
  expect(channel.count("locate")).toBe(2);
  expect(await storedFor("target-phone")).toBeUndefined();
});

test("the element found by its identity at another place, with a lookalike where it was, is transferred", async () => {
  const api = await learnOnSource("android");
  // Checkout moved up by 340 of 640 units; a save button that looks exactly like it is where it was.
  const save: FakeElement = { ...cart("android").elements[2]!, id: "save", y: 520, a11y: SAVE_A11Y.android };
  current = phone("android", "Target Phone", 2, cart("android", { checkoutY: 180, extra: [save] }));
  await expect(api.tap(fakeDriver(current), PROMPT)).resolves.toMatchObject({ outcome: "learned", aiCalls: 0 });
  expect(hit(current, "checkout")).toBe(true);
  expect(hit(current, "save")).toBe(false);
});

describe("sources: only a model's answer or a value a person accepted", () => {
  test("which records are sources", () => {
    const record = (model: string, review?: TapRecord["review"]) => ({ model, review }) as TapRecord;
    const accepted = { state: "accepted" as const, by: null, at: null };
    expect(notASource(record(SCRIPTED_MODEL, { state: "pending" }))).toBeUndefined();
    expect(notASource(record(TRANSFER_MODEL, accepted))).toBeUndefined();
    // A record from before review states was accepted by being committed.
    expect(notASource(record("local:crop-search"))).toBeUndefined();
    expect(notASource(record(TRANSFER_MODEL, { state: "pending" }))).toMatch(/without a model \(local:transfer\)/);
    expect(notASource(record("local:a11y", { state: "pending" }))).toMatch(/not accepted in review/);
  });

  test("a pending transferred record is no source: the model is asked before any tap, until it is accepted", async () => {
    const api = await learnOnSource("android");
    current = phone("android", "Second Phone", 2, cart("android"));
    await expect(api.tap(fakeDriver(current), PROMPT)).resolves.toMatchObject({ aiCalls: 0 });
    expect((await storedFor("second-phone"))!.model).toBe(TRANSFER_MODEL);
    // The model's record is gone (reverted, or never committed): only the pending transfer is left.
    await fs.rm(await storedFile("source-phone"));

    current = phone("android", "Third Phone", 3, cart("android"));
    await expect(api.tap(fakeDriver(current), PROMPT)).resolves.toMatchObject({ outcome: "learned", aiCalls: 1 });
    modelAskedBeforeAnyTap(current);
    expect(logs.at(-1)!.detail).toMatch(
      /second-phone.*not used: found without a model \(local:transfer\) and not accepted in review/,
    );

    // Accepted by a person, the transferred record is a source.
    const file = await storedFile("second-phone");
    const record = JSON.parse(await fs.readFile(file, "utf8"));
    record.review = { state: "accepted", by: "Ada <ada@example.com>", at: new Date().toISOString() };
    await fs.writeFile(file, JSON.stringify(record));
    current = phone("android", "Fourth Phone", 1.5, cart("android"));
    await expect(api.tap(fakeDriver(current), PROMPT)).resolves.toMatchObject({ outcome: "learned", aiCalls: 0 });
    expect((await storedFor("fourth-phone"))!.reason).toMatch(/^transferred from taps\/android\/second-phone/);
  });
});

describe("position words in the prompt need the element's place to agree", () => {
  const FIRST = "the first product";
  const row = (id: string, name: string, y: number, fill: string): FakeElement => ({
    id,
    x: 16,
    y,
    width: 328,
    height: 60,
    fill,
    mark: "#111827",
    a11y: { "resource-id": "com.shop:id/product", text: name, class: "android.widget.TextView" },
  });
  const list = (order: "shoes-first" | "socks-first"): FakeScene => {
    const [a, b] = order === "shoes-first" ? [100, 180] : [180, 100];
    return {
      background: "#ffffff",
      elements: [row("shoes", "Shoes", a, "#fee2e2"), row("socks", "Socks", b, "#dcfce7")],
    };
  };

  async function learnFirst() {
    const api = createPlatformApi(fakeAdapter("android"));
    // The model taps the topmost row.
    channel.script.locate = () => {
      tapsAtLocate.push(current.taps.length);
      const top = [...current.scene.elements].sort((a, b) => a.y - b.y)[0]!;
      return {
        found: true,
        box: { x: top.x, y: top.y, width: top.width, height: top.height },
        reason: "top row",
        model: SCRIPTED_MODEL,
      };
    };
    current = phone("android", "Source Phone", 1, list("shoes-first"));
    await expect(api.tap(fakeDriver(current), FIRST)).resolves.toMatchObject({ aiCalls: 1 });
    return api;
  }

  test("the stored row is still first: transferred", async () => {
    const api = await learnFirst();
    current = phone("android", "Target Phone", 2, list("shoes-first"));
    await expect(api.tap(fakeDriver(current), FIRST)).resolves.toMatchObject({ aiCalls: 0 });
    expect(hit(current, "shoes")).toBe(true);
  });

  test("the stored row is second now: the model, before any tap", async () => {
    const api = await learnFirst();
    current = phone("android", "Target Phone", 2, list("socks-first"));
    await expect(api.tap(fakeDriver(current), FIRST)).resolves.toMatchObject({ aiCalls: 1 });
    modelAskedBeforeAnyTap(current);
    expect(hit(current, "socks")).toBe(true);
    expect(channel.requests.at(-1)).toMatchObject({
      evidence: expect.stringContaining(
        'among the elements with its id here, "first" names another of these 2: this one is number 2 from the start',
      ),
    });
  });

  test("which words name which place", () => {
    expect(promptPlaces("The FIRST product").places).toEqual([
      { word: "first", order: "reading", fromEnd: false, index: 0 },
    ]);
    expect(promptPlaces("the 3rd row").places).toEqual([{ word: "3rd", order: "reading", fromEnd: false, index: 2 }]);
    expect(promptPlaces("the last item").places).toEqual([{ word: "last", order: "reading", fromEnd: true, index: 0 }]);
    expect(promptPlaces("the second to last item").places).toEqual([
      { word: "second to last", order: "reading", fromEnd: true, index: 1 },
    ]);
    expect(promptPlaces("the bottom right tab").places.map((p) => [p.order, p.fromEnd])).toEqual([
      ["y", true],
      ["x", true],
    ]);
    expect(promptPlaces("the checkout button")).toEqual({ places: [], unchecked: [] });
    expect(promptPlaces("the icon next to the price").unchecked).toEqual(["next to"]);

    const a = { x: 0, y: 0, width: 100, height: 40 };
    const b = { x: 120, y: 0, width: 100, height: 40 };
    const c = { x: 0, y: 60, width: 100, height: 40 };
    const first = promptPlaces("first").places[0]!;
    expect(placeDisagreement(first, a, [c, b, a])).toBeUndefined();
    expect(placeDisagreement(first, b, [c, b, a])).toMatch(
      /another of these 3: this one is number 2 from the start in reading order/,
    );
    expect(placeDisagreement(promptPlaces("right").places[0]!, b, [a, b, c])).toBeUndefined();
    expect(placeDisagreement(promptPlaces("bottom").places[0]!, c, [a, b, c])).toBeUndefined();
    expect(placeDisagreement(promptPlaces("top").places[0]!, c, [a, b, c])).toMatch(
      /number 3 from the start top to bottom/,
    );
  });

  test("a relation (next to, above) goes to the model", async () => {
    const api = await learnOnSource("android");
    channel.script.locate = (r) => {
      tapsAtLocate.push(current.taps.length);
      return locateOnDevice(current)({ ...r, prompt: PROMPT });
    };
    current = phone("android", "Source Phone", 1, cart("android"));
    await api.tap(fakeDriver(current), "the checkout button below the items");
    current = phone("android", "Target Phone", 2, cart("android"));
    await expect(api.tap(fakeDriver(current), "the checkout button below the items")).resolves.toMatchObject({
      aiCalls: 1,
    });
    modelAskedBeforeAnyTap(current);
  });
});

test("identity: every stored attribute, and a text or label where none was stored, must be equal", () => {
  const stored = { "resource-id": "com.shop:id/checkout", text: "Checkout", class: "android.widget.Button" };
  expect(identityDifference(stored, { ...stored }, "android")).toBeUndefined();
  expect(identityDifference(stored, { ...stored, text: "Sign in" }, "android")).toMatch(/text="Sign in"/);
  expect(identityDifference(stored, { ...stored, "content-desc": "Pay" }, "android")).toMatch(
    /content-desc="Pay" where the stored element has none/,
  );
  expect(identityDifference(stored, { ...stored, class: "android.view.View" }, "android")).toMatch(/class=/);
  // An iOS value is what a field holds, not what it is.
  const field = { name: "search", label: "Search", value: "shoes", type: "XCUIElementTypeSearchField" };
  expect(identityDifference(field, { ...field, value: "socks" }, "ios")).toBeUndefined();
  expect(identityDifference(field, { ...field, label: "Find" }, "ios")).toMatch(/label="Find"/);
});

test("transfer: false asks the model", async () => {
  const api = await learnOnSource("android");
  current = phone("android", "Target Phone", 2, cart("android"));
  await expect(api.tap(fakeDriver(current), PROMPT, { transfer: false })).resolves.toMatchObject({ aiCalls: 1 });
  expect((await storedFor("target-phone"))!.model).toBe(SCRIPTED_MODEL);
  await expect(api.tap(fakeDriver(current), PROMPT, { transfer: "no" as never })).rejects.toThrow(/transfer/);
});

test("mode replay writes nothing, and says a transfer would have been possible", async () => {
  const api = await learnOnSource("android");
  setup("replay");
  current = phone("android", "Target Phone", 2, cart("android"));
  const error = await api.tap(fakeDriver(current), PROMPT).catch((e: unknown) => e);
  expect(error).toMatchObject({ code: "not-stored" });
  expect((error as Error).message).toMatch(
    /A transfer from taps\/android\/source-phone_14\/the-checkout-button-[0-9a-f]{10}\.json would have been possible .*mode "replay" writes nothing/,
  );
  expect(current.taps).toEqual([]);
  expect(channel.count()).toBe(0);
  expect(await storedFor("target-phone")).toBeUndefined();
});

test("mode replay says why a transfer was not possible when the evidence is not enough", async () => {
  const api = await learnOnSource("android");
  setup("replay");
  current = phone("android", "Target Phone", 2, cart("android", { fill: "#dc2626" }));
  const error = await api.tap(fakeDriver(current), PROMPT).catch((e: unknown) => e);
  expect((error as Error).message).toMatch(
    /The tap is stored on other devices, but a transfer was not possible here: From the tap stored on Source Phone .*its pixels contradict the stored image/,
  );
  expect(current.taps).toEqual([]);
  expect(channel.count()).toBe(0);
});
