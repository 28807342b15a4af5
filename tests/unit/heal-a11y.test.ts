/**
 * The accessibility rung of a tap's heal ladder (docs/heal.md) on the device double serving a
 * UiAutomator2-shaped page source: the element is stored on learn, found again by its stable
 * attributes, tapped alone only with verify, tapped without verify only when crop search agrees,
 * and a page source that fails, hangs or is too big is a logged skip.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { TapRecordSchema } from "../../src/core/store/tap-record.js";
import { A11Y_MODEL, AGREED_MODEL } from "../../src/core/flows/tap/heal-ladder.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { FakeDevice, fakeAdapter, fakeDriver, type FakeElement, type FakeScene } from "../support/fake-device.js";
import { locateOnDevice, ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

const PROMPT = "the checkout button";
const VERIFY = "the summary is shown";
const CHECKOUT_A11Y = { "resource-id": "com.shop:id/checkout", text: "Checkout", class: "android.widget.Button" };

function checkout(y: number, fill = "#16a34a", a11y: Record<string, string> | undefined = CHECKOUT_A11Y): FakeElement {
  return {
    id: "checkout",
    x: 40,
    y,
    width: 280,
    height: 56,
    fill,
    mark: "#ffffff",
    ...(a11y ? { a11y } : {}),
    onTap: (device: FakeDevice) => (device.scene = summaryScene()),
  };
}

function cart(...elements: FakeElement[]): FakeScene {
  return {
    background: "#ffffff",
    elements: [{ id: "header", x: 0, y: 24, width: 360, height: 56, fill: "#1e40af" }, ...elements],
  };
}

function summaryScene(): FakeScene {
  return {
    background: "#f8fafc",
    elements: [{ id: "summary", x: 16, y: 100, width: 328, height: 200, fill: "#fde68a" }],
  };
}

const banner: FakeElement = { id: "banner", x: 16, y: 170, width: 328, height: 60, fill: "#fca5a5", mark: "#7f1d1d" };

let storageDir: string;
let logs: LogEntry[];
let channel: ScriptedChannel;
const api = createPlatformApi(fakeAdapter());

function setup(device: FakeDevice) {
  channel = new ScriptedChannel({
    locate: locateOnDevice(device),
    check: (r) => ({
      pass: device.scene.elements.some((e) => r.statement.includes(e.id)),
      reason: "scripted from the fake scene",
      model: SCRIPTED_MODEL,
    }),
  });
  configureAi({
    channel,
    storageDir,
    mode: "auto",
    log: (e) => logs.push(e),
    reportArtifact: () => undefined,
    resultsDir: false,
  });
}

async function onlyTap() {
  const dir = path.join(storageDir, "_ai_", "taps");
  const [file] = (await fs.readdir(dir, { recursive: true })).filter((f) => f.endsWith(".json"));
  return TapRecordSchema.parse(JSON.parse(await fs.readFile(path.join(dir, file!), "utf8")));
}

/** A device serving its scene's page source, with the tap learned on the button at y 400, then showing `scene`. */
async function learnedThenShow(scene: FakeScene, verify?: string): Promise<FakeDevice> {
  const device = new FakeDevice(cart(checkout(400)));
  device.pageSource = "scene";
  setup(device);
  await api.tap(fakeDriver(device), PROMPT, verify ? { verify } : {});
  device.scene = scene;
  device.taps.length = 0;
  channel.requests.length = 0;
  logs = [];
  return device;
}

const healing = (verify?: string) => ({ autoHeal: true, timeout: 8_000, ...(verify ? { verify } : {}) });

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-a11y-"));
  logs = [];
});
afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

test("learn stores the innermost element at the tapped point, with its stable attributes and bounds", async () => {
  await learnedThenShow(cart(checkout(400)));
  expect((await onlyTap()).element).toEqual({
    attributes: CHECKOUT_A11Y,
    bounds: { x: 40, y: 400, width: 280, height: 56 },
  });
});

test("moved and restyled, with verify: the page source alone heals (local:a11y), naming the attributes matched", async () => {
  const device = await learnedThenShow(cart(banner, checkout(460, "#ea580c")), VERIFY);
  const result = await api.tap(fakeDriver(device), PROMPT, healing(VERIFY));
  expect(result).toMatchObject({ outcome: "healed", point: { x: 180, y: 488 } });
  expect(channel.count("locate")).toBe(0);
  expect(device.taps).toEqual([{ x: 180, y: 488 }]);
  const record = await onlyTap();
  expect(record).toMatchObject({ model: A11Y_MODEL, box: { x: 40, y: 460, width: 280, height: 56 } });
  expect(record.reason).toContain('resource-id="com.shop:id/checkout"');
  expect(logs[0]!.detail).toMatch(/accessibility found the stored element once by resource-id/);
});

test("two elements with the stored attributes: ambiguous, nothing cheap is tapped, the model decides", async () => {
  const twin = { ...checkout(300, "#ea580c"), id: "twin" };
  const device = await learnedThenShow(cart(twin, checkout(460, "#ea580c")), VERIFY);
  const result = await api.tap(fakeDriver(device), PROMPT, healing(VERIFY));
  expect(channel.count("locate")).toBe(1);
  expect(device.taps).toEqual([result.point]);
  expect((await onlyTap()).model).toBe(SCRIPTED_MODEL);
  expect(logs[0]!.detail).toMatch(/accessibility found 2 elements with .*: ambiguous/);
});

test("moved, without verify: crop search and the page source agree, the heal is tapped with no model call", async () => {
  const device = await learnedThenShow(cart(banner, checkout(460)));
  const result = await api.tap(fakeDriver(device), PROMPT, healing());
  expect(result).toMatchObject({ outcome: "healed", point: { x: 180, y: 488 }, aiCalls: 0 });
  expect(channel.requests).toEqual([]);
  const record = await onlyTap();
  expect(record.model).toBe(AGREED_MODEL);
  expect(record.element?.bounds).toEqual({ x: 40, y: 460, width: 280, height: 56 });
});

test("crop search and the page source disagree: the model is asked", async () => {
  // The crop is at y 460, but the stored resource-id now belongs to an element at y 300.
  const decoy: FakeElement = {
    id: "decoy",
    x: 40,
    y: 300,
    width: 280,
    height: 56,
    fill: "#e5e7eb",
    a11y: CHECKOUT_A11Y,
  };
  const device = await learnedThenShow(cart(decoy, checkout(460, "#16a34a", { class: "android.widget.Button" })));
  await api.tap(fakeDriver(device), PROMPT, healing());
  expect(channel.count("locate")).toBe(1);
  expect((await onlyTap()).model).toBe(SCRIPTED_MODEL);
  expect(logs[0]!.detail).toMatch(/crop search and the accessibility element disagree; asking the model/);
  const [locate] = channel.requests.filter((r) => r.kind === "locate") as { evidence?: string }[];
  expect(locate!.evidence).toContain("pixels of the full 360x640 screenshot");
  expect(locate!.evidence).toContain('resource-id="com.shop:id/checkout"');
  expect(locate!.evidence).toContain("The stored crop now matches once, at (36, 456) 288x64.");
  expect(locate!.evidence).toContain("one element with the same resource-id, at (40, 300) 280x56.");
});

test.each([
  [
    "throws",
    () => Promise.reject(new Error("An unknown server-side error occurred")),
    /reading the page source failed: An unknown/,
  ],
  ["is too big", () => Promise.resolve(`<hierarchy>${" ".repeat(2_000_001)}</hierarchy>`), /over the 2000000 parsed/],
  ["is not XML", () => Promise.resolve("<hierarchy><node"), /the page source is not XML/],
])("a page source that %s is skipped and logged; the heal goes on to the model", async (_, serve, logged) => {
  const device = await learnedThenShow(cart(banner, checkout(460)));
  device.pageSource = serve;
  const result = await api.tap(fakeDriver(device), PROMPT, healing());
  expect(result.outcome).toBe("healed");
  expect(channel.count("locate")).toBe(1);
  expect(logs[0]!.detail).toMatch(/heal ladder: accessibility skipped: /);
  expect(logs[0]!.detail).toMatch(logged);
});

test("a page source that fails on learn: the tap is learned without an element, and the skip is logged", async () => {
  const device = new FakeDevice(cart(checkout(400)));
  device.pageSource = () => Promise.reject(new Error("socket hang up"));
  setup(device);
  const result = await api.tap(fakeDriver(device), PROMPT);
  expect(result.outcome).toBe("learned");
  expect((await onlyTap()).element).toBeUndefined();
  expect(logs[0]!.detail).toMatch(/accessibility element not stored: reading the page source failed: socket hang up/);
});

test("a heal reads the page source once per screen: a failed read is not retried, and the old element is not kept", async () => {
  const device = await learnedThenShow(cart(banner, checkout(460)));
  device.pageSource = () => Promise.reject(new Error("socket hang up"));
  device.pageSources = 0;
  const result = await api.tap(fakeDriver(device), PROMPT, healing());
  expect(result.outcome).toBe("healed");
  expect(channel.count("locate")).toBe(1);
  expect(device.pageSources).toBe(1);
  // The learned element (bounds at y 400) must not survive a model heal that could read none.
  expect((await onlyTap()).element).toBeUndefined();
  expect(logs[0]!.detail).toMatch(/heal ladder: accessibility skipped: reading the page source failed/);
  expect(logs[0]!.detail).toMatch(/accessibility element not stored: reading the page source failed/);
});

test("a model heal stores the element from the page source its ladder read on the same screenshot", async () => {
  // Restyled and moved: crop search finds nothing, the page source alone is not enough without verify.
  const device = await learnedThenShow(cart(banner, checkout(460, "#ea580c")));
  device.pageSources = 0;
  const result = await api.tap(fakeDriver(device), PROMPT, healing());
  expect(result).toMatchObject({ outcome: "healed", point: { x: 180, y: 488 } });
  expect(channel.count("locate")).toBe(1);
  expect(device.pageSources).toBe(1);
  const record = await onlyTap();
  expect(record.model).toBe(SCRIPTED_MODEL);
  expect(record.element).toEqual({ attributes: CHECKOUT_A11Y, bounds: { x: 40, y: 460, width: 280, height: 56 } });
  expect(logs[0]!.detail).toMatch(/accessibility element stored: .* \(page source of this screen read before\)/);
});
