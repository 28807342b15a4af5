import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { TapRecordSchema } from "../../src/core/store/tap-record.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { FakeDevice, fakeAdapter, fakeDriver, render, type FakeScene } from "../support/fake-device.js";
import { locateOnDevice, ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

/** A cart screen: a list, and a green checkout button that opens the summary. */
function cartScene(checkout: Partial<{ x: number; y: number; fill: string }> = {}): FakeScene {
  return {
    background: "#ffffff",
    elements: [
      { id: "header", x: 0, y: 24, width: 360, height: 56, fill: "#1e40af" },
      { id: "item-row", x: 16, y: 100, width: 328, height: 60, fill: "#e5e7eb", mark: "#9ca3af" },
      {
        id: "checkout",
        x: checkout.x ?? 40,
        y: checkout.y ?? 520,
        width: 280,
        height: 56,
        fill: checkout.fill ?? "#16a34a",
        mark: "#ffffff",
        onTap: (device) => (device.scene = summaryScene()),
      },
    ],
  };
}

function summaryScene(): FakeScene {
  return {
    background: "#f8fafc",
    elements: [{ id: "summary", x: 16, y: 100, width: 328, height: 200, fill: "#fde68a" }],
  };
}

let storageDir: string;
let logs: LogEntry[];
let channel: ScriptedChannel;
const api = createPlatformApi(fakeAdapter());

function setup(device: FakeDevice, mode: "auto" | "replay" = "auto") {
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
    mode,
    log: (e) => logs.push(e),
    reportArtifact: (a) => `memory://${a.name}`,
    resultsDir: false,
  });
}

async function storedTaps(): Promise<string[]> {
  const dir = path.join(storageDir, "_ai_", "taps");
  const files = await fs.readdir(dir, { recursive: true }).catch(() => []);
  return files.filter((f) => f.endsWith(".json")).sort();
}

async function readTap(file: string) {
  return TapRecordSchema.parse(JSON.parse(await fs.readFile(path.join(storageDir, "_ai_", "taps", file), "utf8")));
}

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-tap-"));
  logs = [];
});
afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

test("learns once, then replays with no model call", async () => {
  const device = new FakeDevice(cartScene());
  setup(device);

  const first = await api.tap(fakeDriver(device), "the checkout button");
  expect(first).toEqual({ outcome: "learned", point: { x: 180, y: 548 }, aiCalls: 1 });
  expect(device.scene.elements[0]!.id).toBe("summary");

  const files = await storedTaps();
  expect(files).toEqual([expect.stringMatching(/^android\/fake-phone-1_14\/the-checkout-button-[0-9a-f]{10}\.json$/)]);
  const record = await readTap(files[0]!);
  expect(record).toMatchObject({ format: 2, prompt: "the checkout button", verify: null, model: SCRIPTED_MODEL });
  expect(record.device.screen).toEqual({ width: 360, height: 640 });
  // The crop is the element's box padded by 4 tap units, clamped to the screen.
  expect(record.crop).toEqual({ x: 36, y: 516, width: 288, height: 64 });

  device.scene = cartScene();
  const second = await api.tap(fakeDriver(device), "the checkout button");
  expect(second).toEqual({ outcome: "replayed", point: { x: 180, y: 548 }, aiCalls: 0 });
  expect(channel.count()).toBe(1);
  expect(device.taps).toHaveLength(2);
  expect(device.scene.elements[0]!.id).toBe("summary");
  expect(logs.map((l) => l.key)).toEqual(Array(2).fill(`taps/${files[0]!.replace(/\.json$/, "")}`));
  expect(logs.map((l) => [l.outcome, l.aiCalls, l.models])).toEqual([
    ["learned", 1, [SCRIPTED_MODEL]],
    ["replayed", 0, []],
  ]);
});

test("a replay waits for a screen that is still loading", async () => {
  const device = new FakeDevice(cartScene());
  setup(device);
  await api.tap(fakeDriver(device), "the checkout button");

  device.scene = cartScene();
  device.loading = [summaryScene(), { background: "#ffffff", elements: [] }, summaryScene()];
  device.screenshots = 0;
  const result = await api.tap(fakeDriver(device), "the checkout button");
  expect(result.outcome).toBe("replayed");
  expect(device.screenshots).toBe(4);
  expect(device.taps).toHaveLength(2);
  expect(channel.count()).toBe(1);
});

test("learning waits for the screen to settle before asking the model", async () => {
  const device = new FakeDevice(cartScene());
  setup(device);
  device.loading = [summaryScene(), { background: "#ffffff", elements: [] }];
  await api.tap(fakeDriver(device), "the checkout button");
  const settled = await render(cartScene(), device.description);
  const locate = channel.requests.find((r) => r.kind === "locate")!;
  expect(Buffer.from(locate.screen.data, "base64").equals(settled)).toBe(true);
  expect(device.screenshots).toBeGreaterThanOrEqual(4);
});

test("verify passes: stored with the verify text as part of the key", async () => {
  const device = new FakeDevice(cartScene());
  setup(device);
  const result = await api.tap(fakeDriver(device), "the checkout button", { verify: "the summary is shown" });
  expect(result.outcome).toBe("learned");
  expect(channel.count("check")).toBe(1);
  const [file] = await storedTaps();
  expect((await readTap(file!)).verify).toBe("the summary is shown");

  // Same prompt, no verify: another key, so it is learned separately.
  device.scene = cartScene();
  expect((await api.tap(fakeDriver(device), "the checkout button")).outcome).toBe("learned");
  expect(await storedTaps()).toHaveLength(2);

  // Replays never run the check.
  device.scene = cartScene();
  await api.tap(fakeDriver(device), "the checkout button", { verify: "the summary is shown" });
  expect(channel.count("check")).toBe(1);
});

test("verify fails: the step fails and nothing is stored", async () => {
  const device = new FakeDevice(cartScene());
  setup(device);
  await expect(
    api.tap(fakeDriver(device), "the checkout button", { verify: "the payment page is shown", timeout: 2500 }),
  ).rejects.toMatchObject({ code: "verify-failed", message: expect.stringContaining("Nothing was stored") });
  expect(channel.count("check")).toBeGreaterThanOrEqual(1);
  expect(await storedTaps()).toEqual([]);
  expect(logs.at(-1)).toMatchObject({ outcome: "failed", aiCalls: channel.count() });
});

test("verify fails even when the budget runs out during a retried check", async () => {
  const device = new FakeDevice(cartScene());
  setup(device);
  channel.delayMs = 600;
  await expect(
    api.tap(fakeDriver(device), "the checkout button", { verify: "the payment page is shown", timeout: 3000 }),
  ).rejects.toMatchObject({ code: "verify-failed", message: expect.stringContaining("scripted from the fake scene") });
  expect(await storedTaps()).toEqual([]);
});

test("the model finding nothing fails with its reason", async () => {
  const device = new FakeDevice(cartScene());
  setup(device);
  await expect(api.tap(fakeDriver(device), "the coupon field")).rejects.toMatchObject({
    code: "not-found",
    message: expect.stringContaining('no element named in "the coupon field"'),
  });
  expect(await storedTaps()).toEqual([]);
});

test("a moved element fails the replay without autoHeal, with artifacts", async () => {
  const device = new FakeDevice(cartScene());
  setup(device);
  await api.tap(fakeDriver(device), "the checkout button");

  device.scene = cartScene({ y: 420, fill: "#7c3aed" });
  const error = await api.tap(fakeDriver(device), "the checkout button", { timeout: 20_000 }).catch((e) => e);
  expect(error).toMatchObject({ code: "replay-mismatch" });
  expect(error.message).toMatch(/never matched the screen/);
  expect(error.message).toMatch(/autoHeal/);
  expect(error.artifacts).toEqual([
    expect.stringMatching(/^memory:\/\/tap-the-checkout-button__fake-phone-1_14__expected-crop\.png$/),
    expect.stringMatching(/__actual-crop\.png$/),
    expect.stringMatching(/__screenshot\.png$/),
  ]);
  expect(channel.count()).toBe(1);
  expect(device.taps).toHaveLength(1);
});

test("the mismatch message gives the crop's full differing share, not where counting stopped", async () => {
  const device = new FakeDevice(cartScene());
  setup(device);
  await api.tap(fakeDriver(device), "the checkout button");

  device.scene = cartScene({ fill: "#7c3aed" });
  const error = await api.tap(fakeDriver(device), "the checkout button", { timeout: 20_000 }).catch((e) => e);
  const share = Number(/([\d.]+)% of its pixels differed/.exec(error.message)?.[1]);
  // The purple button fills the crop but for its white mark and the padding: far more than the 1% allowed.
  expect(share).toBeGreaterThan(50);
});

test("replays in one session on an unchanged screen tap every time; a changed screen is compared again", async () => {
  const device = new FakeDevice(cartScene());
  setup(device);
  const driver = fakeDriver(device);
  await api.tap(driver, "the checkout button");
  for (let run = 0; run < 3; run++) {
    device.scene = cartScene();
    expect(await api.tap(driver, "the checkout button")).toMatchObject({ outcome: "replayed" });
  }
  expect(device.taps).toHaveLength(4);

  device.scene = cartScene({ fill: "#7c3aed" });
  const error = await api.tap(driver, "the checkout button", { timeout: 20_000 }).catch((e) => e);
  expect(error).toMatchObject({ code: "replay-mismatch" });
  expect(device.taps).toHaveLength(4);
});

test("autoHeal re-locates a moved element, keeps the previous value, then replays the healed one", async () => {
  const device = new FakeDevice(cartScene());
  setup(device);
  await api.tap(fakeDriver(device), "the checkout button");
  const [file] = await storedTaps();
  const before = await readTap(file!);

  device.scene = cartScene({ y: 420, fill: "#7c3aed" });
  const healed = await api.tap(fakeDriver(device), "the checkout button", { autoHeal: true, timeout: 2000 });
  expect(healed).toEqual({ outcome: "healed", point: { x: 180, y: 448 }, aiCalls: 1 });
  expect(device.scene.elements[0]!.id).toBe("summary");
  expect(logs.at(-1)!.detail).toMatch(/^tapshot healed a stored value/);
  // The heal sent the old crop as the reference.
  expect(channel.requests.at(-1)).toMatchObject({ kind: "locate", reference: { mimeType: "image/png" } });

  const after = await readTap(file!);
  expect(after.point).toEqual({ x: 180, y: 448 });
  expect(after.previous).toMatchObject({ point: before.point, crop: before.crop, imageSha256: before.imageSha256 });
  const previousPng = await fs.readFile(
    path.join(storageDir, "_ai_", "taps", file!.replace(/\.json$/, ".previous.png")),
  );
  expect(previousPng.length).toBeGreaterThan(0);

  device.scene = cartScene({ y: 420, fill: "#7c3aed" });
  expect((await api.tap(fakeDriver(device), "the checkout button")).outcome).toBe("replayed");
  expect(channel.count()).toBe(2);
});

test("autoHeal does not wait out half a long budget once the screen has stopped changing", async () => {
  const device = new FakeDevice(cartScene());
  setup(device);
  await api.tap(fakeDriver(device), "the checkout button");

  device.scene = cartScene({ y: 420 });
  device.screenshots = 0;
  const healed = await api.tap(fakeDriver(device), "the checkout button", { autoHeal: true, timeout: 120_000 });
  expect(healed.outcome).toBe("healed");
  // Polling every 200 ms for half of 120 s would take about 300 screenshots; an unchanged screen is healed after 3 s.
  expect(device.screenshots).toBeLessThan(40);
});

test("two runs healing one moved element at once make one locate call; the second replays the heal", async () => {
  const a = new FakeDevice(cartScene());
  setup(a);
  await api.tap(fakeDriver(a), "the checkout button");

  a.scene = cartScene({ y: 420 });
  const b = new FakeDevice(cartScene({ y: 420 }));
  channel.delayMs = 300;
  const results = await Promise.all([
    api.tap(fakeDriver(a), "the checkout button", { autoHeal: true, timeout: 20_000 }),
    api.tap(fakeDriver(b), "the checkout button", { autoHeal: true, timeout: 20_000 }),
  ]);
  expect(results.map((r) => r.outcome).sort()).toEqual(["healed", "replayed"]);
  expect(channel.count("locate")).toBe(2);
  expect(logs.find((l) => l.outcome === "replayed")!.detail).toMatch(/healed by a parallel run/);
  const [file] = await storedTaps();
  // The history still shows the original value as the previous one.
  expect((await readTap(file!)).previous?.point).toEqual({ x: 180, y: 548 });
});

test("autoHeal never heals away a removed element", async () => {
  const device = new FakeDevice(cartScene());
  setup(device);
  await api.tap(fakeDriver(device), "the checkout button");
  const [file] = await storedTaps();
  const before = await fs.readFile(path.join(storageDir, "_ai_", "taps", file!));

  device.scene = { ...cartScene(), elements: cartScene().elements.filter((e) => e.id !== "checkout") };
  await expect(
    api.tap(fakeDriver(device), "the checkout button", { autoHeal: true, timeout: 1000 }),
  ).rejects.toMatchObject({ code: "not-found", message: expect.stringContaining("nothing was healed") });
  expect(await fs.readFile(path.join(storageDir, "_ai_", "taps", file!))).toEqual(before);
  expect(device.taps).toHaveLength(1);
});

test("replay mode never calls the model and names what is missing", async () => {
  const device = new FakeDevice(cartScene());
  setup(device, "replay");
  const error = await api.tap(fakeDriver(device), "the checkout button").catch((e) => e);
  expect(error).toMatchObject({ code: "not-stored" });
  expect(error.message).toContain("fake-phone-1_14");
  expect(error.message).toContain('"the checkout button"');
  expect(error.message).toContain('mode "auto"');
  expect(channel.count()).toBe(0);
  expect(device.taps).toHaveLength(0);

  // Once learned in auto mode, replay mode replays.
  configureAi({ mode: "auto" });
  await api.tap(fakeDriver(device), "the checkout button");
  configureAi({ mode: "replay" });
  device.scene = cartScene();
  expect((await api.tap(fakeDriver(device), "the checkout button", { autoHeal: true })).outcome).toBe("replayed");
  expect(channel.count()).toBe(1);
});

test("a record made on another screen size is not replayed, and is replaced keeping the previous", async () => {
  const small = new FakeDevice(cartScene());
  setup(small);
  await api.tap(fakeDriver(small), "the checkout button");

  const tall = new FakeDevice(cartScene({ y: 600 }), { height: 720 });
  setup(tall);
  const result = await api.tap(fakeDriver(tall), "the checkout button");
  expect(result.outcome).toBe("learned");
  expect(logs.at(-1)!.detail).toMatch(
    /made on a 360x640 portrait screen, this one is 360x720 portrait: not used; replaced the 360x640 portrait tap, keeping it as previous/,
  );
  const files = await storedTaps();
  expect(files).toHaveLength(1);
  const record = await readTap(files[0]!);
  expect(record.device.screen.height).toBe(720);
  expect(record.previous?.point).toEqual({ x: 180, y: 548 });
});

test("portrait and landscape of one model are stored apart and both replay", async () => {
  const portrait = new FakeDevice(cartScene());
  setup(portrait);
  await api.tap(fakeDriver(portrait), "the checkout button");

  const landscape = new FakeDevice(cartScene({ x: 300, y: 250 }), { width: 640, height: 360 });
  setup(landscape);
  expect((await api.tap(fakeDriver(landscape), "the checkout button")).outcome).toBe("learned");
  expect((await storedTaps()).map((f) => f.split("/")[1])).toEqual(["fake-phone-1_14", "fake-phone-1_14_landscape"]);

  portrait.scene = cartScene();
  landscape.scene = cartScene({ x: 300, y: 250 });
  expect((await api.tap(fakeDriver(portrait), "the checkout button")).outcome).toBe("replayed");
  expect((await api.tap(fakeDriver(landscape), "the checkout button")).outcome).toBe("replayed");
});

test("two concurrent learners on one device model make one locate call", async () => {
  const a = new FakeDevice(cartScene());
  const b = new FakeDevice(cartScene());
  setup(a);
  channel.delayMs = 300;
  const results = await Promise.all([
    api.tap(fakeDriver(a), "the checkout button"),
    api.tap(fakeDriver(b), "the checkout button"),
  ]);
  expect(results.map((r) => r.outcome).sort()).toEqual(["learned", "replayed"]);
  expect(channel.count("locate")).toBe(1);
  expect(a.taps).toHaveLength(1);
  expect(b.taps).toHaveLength(1);
  expect(logs.find((l) => l.outcome === "replayed")!.detail).toMatch(/tap stored by a parallel run/);
});

test("a timeout during a model call fails with a timeout error", async () => {
  const device = new FakeDevice(cartScene());
  setup(device);
  channel.delayMs = 5_000;
  await expect(api.tap(fakeDriver(device), "the checkout button", { timeout: 300 })).rejects.toMatchObject({
    code: "timeout",
  });
  expect(await storedTaps()).toEqual([]);
  expect(device.taps).toHaveLength(0);
});

test("the caller's signal aborts the call", async () => {
  const device = new FakeDevice(cartScene());
  setup(device);
  channel.delayMs = 5_000;
  const controller = new AbortController();
  const pending = api.tap(fakeDriver(device), "the checkout button", { signal: controller.signal });
  setTimeout(() => controller.abort(), 100);
  await expect(pending).rejects.toMatchObject({ code: "aborted" });
  expect(device.taps).toHaveLength(0);
});

test("bad input fails before any device or model call", async () => {
  const device = new FakeDevice(cartScene());
  setup(device);
  const driver = fakeDriver(device);
  await expect(api.tap(driver, "  ")).rejects.toMatchObject({ code: "input", message: /non-empty string/ });
  await expect(api.tap(driver, "x", { timeout: -1 })).rejects.toMatchObject({ code: "input", message: /timeout/ });
  await expect(api.tap(driver, "x", { verify: "" })).rejects.toMatchObject({ code: "input", message: /verify/ });
  await expect(api.tap(driver, "x", { autoheal: true } as never)).rejects.toMatchObject({
    code: "input",
    message: /unknown option "autoheal"/,
  });
  await expect(api.tap({}, "x")).rejects.toMatchObject({ code: "device" });
  expect(device.screenshots).toBe(0);
  expect(channel.count()).toBe(0);
});

test("no channel configured: the error says how to configure one", async () => {
  const device = new FakeDevice(cartScene());
  configureAi({ storageDir, log: false, resultsDir: false });
  await expect(api.tap(fakeDriver(device), "the checkout button")).rejects.toMatchObject({
    code: "config",
    message: expect.stringContaining("configureAi({ channel"),
  });
});
