/**
 * The pixel rungs of a tap's heal ladder (docs/heal.md) on the device double: a nearby shift
 * replays, a unique crop-search match heals only with verify, and ambiguous, restyled or
 * removed elements never get a cheap tap.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { HEALED_MESSAGE, type LogEntry } from "../../src/core/ground/log.js";
import { TapRecordSchema } from "../../src/core/store/tap-record.js";
import { CROP_SEARCH_MODEL } from "../../src/core/flows/tap/heal-ladder.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { FakeDevice, fakeAdapter, fakeDriver, type FakeElement, type FakeScene } from "../support/fake-device.js";
import { locateOnDevice, ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

const PROMPT = "the checkout button";
const VERIFY = "the summary is shown";

/** A cart: header, an item row, the checkout button at `y`, and what else is given. */
function cartScene(y: number, { fill = "#16a34a", extra = [] as FakeElement[], checkout = true } = {}): FakeScene {
  return {
    background: "#ffffff",
    elements: [
      { id: "header", x: 0, y: 24, width: 360, height: 56, fill: "#1e40af" },
      { id: "item-row", x: 16, y: 100, width: 328, height: 60, fill: "#e5e7eb", mark: "#9ca3af" },
      ...extra,
      ...(checkout
        ? [
            {
              id: "checkout",
              x: 40,
              y,
              width: 280,
              height: 56,
              fill,
              mark: "#ffffff",
              onTap: (device: FakeDevice) => (device.scene = summaryScene()),
            },
          ]
        : []),
    ],
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
    reportArtifact: () => undefined,
    resultsDir: false,
  });
}

async function onlyTap() {
  const dir = path.join(storageDir, "_ai_", "taps");
  const [file] = (await fs.readdir(dir, { recursive: true })).filter((f) => f.endsWith(".json"));
  return TapRecordSchema.parse(JSON.parse(await fs.readFile(path.join(dir, file!), "utf8")));
}

/** Learn the tap on the cart with the button at `y`, then show `scene`. */
async function learnThenShow(device: FakeDevice, y: number, scene: FakeScene, verify?: string) {
  device.scene = cartScene(y);
  await api.tap(fakeDriver(device), PROMPT, verify ? { verify } : {});
  device.scene = scene;
  device.taps.length = 0;
  channel.requests.length = 0;
  logs = [];
}

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-heal-"));
  logs = [];
});
afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

test("a 1-pixel shift of the screen is a replay at the shifted point, logged, with the record unchanged", async () => {
  const device = new FakeDevice(cartScene(400));
  setup(device);
  await learnThenShow(device, 400, cartScene(401));
  const before = await onlyTap();

  const result = await api.tap(fakeDriver(device), PROMPT, { timeout: 5_000 });
  expect(result).toEqual({ outcome: "replayed", point: { x: 180, y: 429 }, aiCalls: 0 });
  expect(device.taps).toEqual([{ x: 180, y: 429 }]);
  expect(logs[0]!.detail).toMatch(/matched 0, 1 px off its place .* the stored value is unchanged/);
  expect(await onlyTap()).toEqual(before);
});

test("heal.nearby false: the same shift is a mismatch", async () => {
  const device = new FakeDevice(cartScene(400));
  setup(device);
  await learnThenShow(device, 400, cartScene(401));
  const error = await api
    .tap(fakeDriver(device), PROMPT, { timeout: 1_000, heal: { nearby: false } })
    .catch((e: unknown) => e);
  expect(error).toMatchObject({ code: "replay-mismatch" });
  expect(device.taps).toEqual([]);
});

test("moved by an inserted banner, with verify: healed by crop search without a model's locate", async () => {
  const device = new FakeDevice(cartScene(400));
  setup(device);
  await learnThenShow(device, 400, cartScene(460, { extra: [banner] }), VERIFY);

  const result = await api.tap(fakeDriver(device), PROMPT, { verify: VERIFY, autoHeal: true, timeout: 8_000 });
  expect(result).toMatchObject({ outcome: "healed", point: { x: 180, y: 488 } });
  expect(channel.count("locate")).toBe(0);
  expect(channel.count("check")).toBe(1);
  expect(device.taps).toEqual([{ x: 180, y: 488 }]);
  const record = await onlyTap();
  expect(record).toMatchObject({ model: CROP_SEARCH_MODEL, point: { x: 180, y: 488 }, review: { state: "pending" } });
  expect(record.crop).toEqual({ x: 36, y: 456, width: 288, height: 64 });
  expect(record.previous).toMatchObject({ point: { x: 180, y: 428 }, model: SCRIPTED_MODEL });
  expect(logs[0]!.detail).toMatch(new RegExp(`^${HEALED_MESSAGE}`));
  expect(logs[0]!.detail).toMatch(/heal ladder: crop search found the stored crop once, moved by 0, 60 px \(\d+ ms\)/);
});

test("moved, without verify: one rung is not enough, the model is asked", async () => {
  const device = new FakeDevice(cartScene(400));
  setup(device);
  await learnThenShow(device, 400, cartScene(460, { extra: [banner] }));

  const result = await api.tap(fakeDriver(device), PROMPT, { autoHeal: true, timeout: 8_000 });
  expect(result).toMatchObject({ outcome: "healed", point: { x: 180, y: 488 } });
  expect(channel.count("locate")).toBe(1);
  expect((await onlyTap()).model).toBe(SCRIPTED_MODEL);
  expect(logs[0]!.detail).toMatch(/without verify a cheap heal needs a second agreeing rung/);
});

test("heal.search false: a moved element goes to the model even with verify", async () => {
  const device = new FakeDevice(cartScene(400));
  setup(device);
  await learnThenShow(device, 400, cartScene(460, { extra: [banner] }), VERIFY);
  const result = await api.tap(fakeDriver(device), PROMPT, {
    verify: VERIFY,
    autoHeal: true,
    timeout: 8_000,
    heal: { search: false },
  });
  expect(result.outcome).toBe("healed");
  expect(channel.count("locate")).toBe(1);
  expect((await onlyTap()).model).toBe(SCRIPTED_MODEL);
});

test("ambiguous duplicates: nothing cheap is tapped, the model decides", async () => {
  const device = new FakeDevice(cartScene(400));
  setup(device);
  const twin: FakeElement = { id: "twin", x: 40, y: 300, width: 280, height: 56, fill: "#16a34a", mark: "#ffffff" };
  await learnThenShow(device, 400, cartScene(460, { extra: [twin] }), VERIFY);

  const result = await api.tap(fakeDriver(device), PROMPT, { verify: VERIFY, autoHeal: true, timeout: 8_000 });
  expect(channel.count("locate")).toBe(1);
  expect(device.taps).toEqual([result.point]);
  expect(logs[0]!.detail).toMatch(/crop search found 2 similar places .*: ambiguous/);
});

test("restyled (new colour): crop search fails and the model is asked", async () => {
  const device = new FakeDevice(cartScene(400));
  setup(device);
  await learnThenShow(device, 400, cartScene(460, { fill: "#ea580c" }), VERIFY);

  const result = await api.tap(fakeDriver(device), PROMPT, { verify: VERIFY, autoHeal: true, timeout: 8_000 });
  expect(result.outcome).toBe("healed");
  expect(channel.count("locate")).toBe(1);
  expect(logs[0]!.detail).toMatch(/crop search did not find the stored crop/);
});

test("removed: nothing is tapped and nothing healed", async () => {
  const device = new FakeDevice(cartScene(400));
  setup(device);
  await learnThenShow(device, 400, cartScene(400, { checkout: false }), VERIFY);
  const before = await onlyTap();

  const error = await api
    .tap(fakeDriver(device), PROMPT, { verify: VERIFY, autoHeal: true, timeout: 8_000 })
    .catch((e: unknown) => e);
  expect(error).toMatchObject({ code: "not-found" });
  expect(device.taps).toEqual([]);
  expect(await onlyTap()).toEqual(before);
});

test("without autoHeal the mismatch says where crop search sees the element, and nothing is tapped", async () => {
  const device = new FakeDevice(cartScene(400));
  setup(device);
  await learnThenShow(device, 400, cartScene(460, { extra: [banner] }));
  const before = await onlyTap();

  const error = await api.tap(fakeDriver(device), PROMPT, { timeout: 1_000 }).catch((e: unknown) => e);
  expect(error).toMatchObject({ code: "replay-mismatch" });
  expect((error as Error).message).toContain(
    "Crop search (nothing tapped): found the stored crop once, moved by 0, 60 px",
  );
  expect(device.taps).toEqual([]);
  expect(await onlyTap()).toEqual(before);
});

test("mode replay with autoHeal and verify: the ladder only reports, nothing is tapped or stored", async () => {
  const device = new FakeDevice(cartScene(400));
  setup(device);
  await learnThenShow(device, 400, cartScene(460, { extra: [banner] }), VERIFY);
  const before = await onlyTap();
  setup(device, "replay");

  const error = await api
    .tap(fakeDriver(device), PROMPT, { verify: VERIFY, autoHeal: true, timeout: 1_000 })
    .catch((e: unknown) => e);
  expect(error).toMatchObject({ code: "replay-mismatch" });
  expect((error as Error).message).toContain(
    "Crop search (nothing tapped): found the stored crop once, moved by 0, 60 px",
  );
  expect(channel.count()).toBe(0);
  expect(device.taps).toEqual([]);
  expect(await onlyTap()).toEqual(before);
});

test("a misspelt heal rung is refused before any work", async () => {
  const device = new FakeDevice(cartScene(400));
  setup(device);
  const error = await api.tap(fakeDriver(device), PROMPT, { heal: { serch: false } } as never).catch((e: unknown) => e);
  expect(error).toMatchObject({ code: "input", message: expect.stringContaining('unknown option "serch"') });
  expect(device.taps).toEqual([]);
});
