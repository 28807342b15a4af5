/**
 * Transfer (docs/transfer.md) on the device double: a tap learned on one device model is tapped
 * on another model of the platform, of another screen size and pixel density, with no locate
 * request when the page source and the scaled crop agree; twins, a restyled element, a missing
 * element and an element far from its place go to the model; mode replay writes nothing.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { TapRecordSchema } from "../../src/core/store/records.js";
import { TRANSFER_MODEL } from "../../src/core/flows/tap/transfer.js";
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

function setup(mode: "auto" | "replay" = "auto") {
  channel = new ScriptedChannel({ locate: (r: AiRequestOf<"locate">) => locateOnDevice(current)(r) });
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

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-transfer-"));
  logs = [];
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
    expect(record.reason).toMatch(/found once by .* the crop was found once/);
    expect(record.review).toEqual({ state: "pending" });
    expect(record.device.scale).toBe(scale);
    expect(record.element?.attributes).toEqual(A11Y[platform]);
    expect(logs.at(-1)).toMatchObject({ outcome: "learned", aiCalls: 0, models: [TRANSFER_MODEL] });

    // The transferred value replays like any learned one.
    current.scene = scaled(cart(platform), scale);
    await expect(api.tap(fakeDriver(current), PROMPT)).resolves.toMatchObject({ outcome: "replayed", aiCalls: 0 });
  });
});

test("an element stretched by a wider screen is transferred by its centre part", async () => {
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
  // The button's centre is (412, 1096); the crop found at scale 2 puts the point within a pixel or two of it.
  expect(Math.abs(current.taps[0]!.x - 412)).toBeLessThanOrEqual(2);
  expect(Math.abs(current.taps[0]!.y - 1096)).toBeLessThanOrEqual(2);
  expect(channel.count("locate")).toBe(1);
});

test("with verify, the page source alone may transfer a restyled element, and the check must pass", async () => {
  const checkOn = (pass: boolean) => () => ({ pass, reason: "scripted", model: SCRIPTED_MODEL });
  const api = await learnOnSource("android");
  channel.script.check = checkOn(true);
  // The source record has verify in its key: learn it there first.
  current = phone("android", "Source Phone", 1, cart("android"));
  await api.tap(fakeDriver(current), PROMPT, { verify: "the summary is shown" });
  current = phone("android", "Target Phone", 2, cart("android", { fill: "#dc2626" }));
  const result = await api.tap(fakeDriver(current), PROMPT, { verify: "the summary is shown" });
  expect(result).toMatchObject({ outcome: "learned", aiCalls: 1 });
  expect(channel.requests.at(-1)!.kind).toBe("check");
  expect(channel.count("locate")).toBe(2);

  channel.script.check = checkOn(false);
  const other = phone("android", "Third Phone", 3, cart("android", { fill: "#dc2626" }));
  current = other;
  await expect(
    api.tap(fakeDriver(other), PROMPT, { verify: "the summary is shown", timeout: 3_000 }),
  ).rejects.toMatchObject({
    code: "verify-failed",
  });
  expect(await storedFor("third-phone")).toBeUndefined();
});

test("twins (two elements with the stored attributes) go to the model, with the evidence", async () => {
  const api = await learnOnSource("android");
  const twin: FakeElement = { ...cart("android").elements[2]!, id: "checkout-twin", y: 420 };
  current = phone("android", "Target Phone", 2, cart("android", { extra: [twin] }));
  const result = await api.tap(fakeDriver(current), PROMPT);
  expect(result).toMatchObject({ outcome: "learned", aiCalls: 1 });
  expect(channel.count("locate")).toBe(2);
  expect(channel.requests.at(-1)).toMatchObject({
    kind: "locate",
    evidence: expect.stringMatching(/2 elements .*twins/),
  });
  expect((await storedFor("target-phone"))!.model).toBe(SCRIPTED_MODEL);
});

test("a restyled element (same attributes and place, other pixels) is never tapped on cheap evidence", async () => {
  const api = await learnOnSource("android");
  current = phone("android", "Target Phone", 2, cart("android", { fill: "#dc2626" }));
  const result = await api.tap(fakeDriver(current), PROMPT);
  expect(result.aiCalls).toBe(1);
  expect(channel.requests.at(-1)).toMatchObject({
    evidence: expect.stringMatching(/matched nowhere \(restyled or covered\)/),
  });
  expect((await storedFor("target-phone"))!.model).toBe(SCRIPTED_MODEL);
});

test("a covered screen (a dialog over the element, still in the page source) is never tapped on cheap evidence", async () => {
  const api = await learnOnSource("android");
  const dialog: FakeElement = { id: "dialog", x: 0, y: 300, width: 360, height: 340, fill: "#111827", mark: "#f9fafb" };
  current = phone("android", "Target Phone", 2, cart("android", { extra: [dialog] }));
  await api.tap(fakeDriver(current), PROMPT);
  expect(channel.count("locate")).toBe(2);
  expect(channel.requests.at(-1)).toMatchObject({
    evidence: expect.stringMatching(/found once by resource-id.*matched nowhere \(restyled or covered\)/),
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

describe("pixels alike elsewhere: the page source decides only with every attribute equal and the place close", () => {
  /** A save button that looks exactly like checkout, so the crop matches twice. */
  const lookalike = (y: number): FakeElement => ({
    ...cart("android").elements[2]!,
    id: "save",
    y,
    a11y: SAVE_A11Y.android,
  });

  test("checkout where it was: transferred", async () => {
    const api = await learnOnSource("android");
    current = phone("android", "Target Phone", 2, cart("android", { extra: [lookalike(420)] }));
    await expect(api.tap(fakeDriver(current), PROMPT)).resolves.toMatchObject({ outcome: "learned", aiCalls: 0 });
    expect(hit(current, "checkout")).toBe(true);
    expect(hit(current, "save")).toBe(false);
    expect((await storedFor("target-phone"))!.reason).toMatch(
      /every stored attribute equal, its place within 0% of the screen; the crop matched at 2 places/,
    );
  });

  test("checkout moved by more than 10% of the screen: the model is asked", async () => {
    const api = await learnOnSource("android");
    // Checkout moved up by 340 of 640 units (53%); its lookalike is where checkout was.
    current = phone("android", "Target Phone", 2, cart("android", { checkoutY: 180, extra: [lookalike(520)] }));
    const result = await api.tap(fakeDriver(current), PROMPT);
    expect(result.aiCalls).toBe(1);
    expect(channel.requests.at(-1)).toMatchObject({
      evidence: expect.stringMatching(/53% of the screen from its stored place/),
    });
    expect(hit(current, "save")).toBe(false);
  });

  test("checkout moved by 8% of the screen: still transferred", async () => {
    const api = await learnOnSource("android");
    current = phone("android", "Target Phone", 2, cart("android", { checkoutY: 469, extra: [lookalike(380)] }));
    await expect(api.tap(fakeDriver(current), PROMPT)).resolves.toMatchObject({ outcome: "learned", aiCalls: 0 });
    expect(hit(current, "checkout")).toBe(true);
  });
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
    /The tap is stored on other devices, but a transfer was not possible here: From the tap stored on Source Phone .*matched nowhere/,
  );
  expect(current.taps).toEqual([]);
  expect(channel.count()).toBe(0);
});
