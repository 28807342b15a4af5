/**
 * Fast verdicts (docs/api.md "When a call fails"): a screen that has stopped changing and does not
 * match fails then, not at the timeout; only a screen that keeps changing waits for the timeout,
 * and its failure is thrown by then. Real PNG screens from FakeDevice, a scripted channel.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { ScreenshotMismatchError } from "../../src/core/ground/errors.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { FakeDevice, fakeAdapter, fakeDriver, type FakeScene } from "../support/fake-device.js";
import { locateOnDevice, ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

/** Longer than jest's 60 s test timeout: a call that waited for it would fail the test. */
const LONG = 300_000;

/** A screen with a list, a checkout button, and a clock in the status bar that ticks with `clock`. */
function shopScene(change: { checkout?: string; spinner?: number; clock?: number } = {}): FakeScene {
  const elements: FakeScene["elements"] = [
    { id: "clock", x: 8 + (change.clock ?? 0) * 4, y: 6, width: 30, height: 12, fill: "#ffffff" },
    { id: "header", x: 0, y: 24, width: 360, height: 56, fill: "#1e40af" },
    { id: "item-row", x: 16, y: 100, width: 328, height: 60, fill: "#e5e7eb", mark: "#9ca3af" },
    { id: "checkout", x: 40, y: 520, width: 280, height: 56, fill: change.checkout ?? "#16a34a", mark: "#ffffff" },
  ];
  if (change.spinner !== undefined) {
    elements.push({
      id: "spinner",
      x: 60 + (change.spinner % 20) * 10,
      y: 300,
      width: 20,
      height: 20,
      fill: "#000000",
    });
  }
  return { background: "#ffffff", elements };
}

/** A device whose every screenshot shows the next frame of `frame` (a clock ticking, a spinner turning). */
function animated(frame: (n: number) => FakeScene, options = {}): FakeDevice {
  const device = new FakeDevice(frame(0), options);
  const shoot = device.screenshot.bind(device);
  let n = 0;
  device.screenshot = () => {
    device.scene = frame(++n);
    return shoot();
  };
  return device;
}

let storageDir: string;
let logs: LogEntry[];
let channel: ScriptedChannel;
const api = createPlatformApi(fakeAdapter());

function setup(device: FakeDevice) {
  channel = new ScriptedChannel({
    locate: locateOnDevice(device),
    judge: () => ({ accept: true, varying: [], reason: "scripted: accepts the screen", model: SCRIPTED_MODEL }),
  });
  configureAi({ channel, storageDir, resultsDir: false, log: (e) => logs.push(e), reportArtifact: () => undefined });
}

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-fail-fast-"));
  logs = [];
});
afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

describe("a settled screen that does not match fails then", () => {
  test("a baseline: a restyled, still screen fails after the settle rule, not at the timeout", async () => {
    const first = new FakeDevice(shopScene());
    setup(first);
    await api.expect(fakeDriver(first)).toMatchScreenshot("shop", "the shop");

    // Only the status bar's clock moves: that is not motion, so the screen settles.
    const device = animated((n) => shopScene({ checkout: "#dc2626", clock: n }));
    const error = await api
      .expect(fakeDriver(device))
      .toMatchScreenshot("shop", "the shop", { timeout: LONG })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ScreenshotMismatchError);
    expect((error as Error).message).toContain(
      "on a screen that had stopped changing (2 identical screenshots in a row)",
    );
    // Two screenshots settle it, the 1000 ms grace at one look each 200 ms adds at most six.
    expect(device.screenshots).toBeLessThanOrEqual(8);
    expect(channel.count()).toBe(1);
  });

  test("a tap: a crop absent from a settled screen fails after the grace period", async () => {
    const device = new FakeDevice(shopScene());
    setup(device);
    await api.tap(fakeDriver(device), "the checkout button");

    device.scene = shopScene({ checkout: "#7c3aed" });
    device.screenshots = 0;
    const error = await api.tap(fakeDriver(device), "the checkout button", { timeout: LONG }).catch((e) => e);

    expect(error).toMatchObject({ code: "replay-mismatch" });
    expect(error.message).toContain("on a screen that had stopped changing");
    expect(device.screenshots).toBeLessThanOrEqual(8);
    expect(device.taps).toHaveLength(1);
  });

  test("with autoHeal, a settled screen goes to the heal at once instead of at half the timeout", async () => {
    const device = new FakeDevice(shopScene());
    setup(device);
    await api.tap(fakeDriver(device), "the checkout button");

    device.scene = shopScene({ checkout: "#7c3aed" });
    const healed = await api.tap(fakeDriver(device), "the checkout button", {
      autoHeal: true,
      timeout: LONG,
      heal: { nearby: false, search: false, accessibility: false },
    });

    expect(healed.outcome).toBe("healed");
    expect(channel.count("locate")).toBe(2);
  });

  test("settle options: more shots and no grace", async () => {
    const first = new FakeDevice(shopScene());
    setup(first);
    await api.expect(fakeDriver(first)).toMatchScreenshot("shop", "the shop");

    const device = new FakeDevice(shopScene({ checkout: "#dc2626" }));
    const error = await api
      .expect(fakeDriver(device))
      .toMatchScreenshot("shop", "the shop", { timeout: LONG, settle: { shots: 4, graceMs: 0 } })
      .catch((e: unknown) => e);

    expect((error as Error).message).toContain("(4 identical screenshots in a row)");
    expect(device.screenshots).toBe(4);
  });

  test("bad settle options are refused before the device is touched", async () => {
    const device = new FakeDevice(shopScene());
    setup(device);
    for (const settle of [{ shots: 1 }, { graceMs: -5 }, { graceMs: "1s" }, { after: 3 }] as object[]) {
      await expect(
        api.expect(fakeDriver(device)).toMatchScreenshot("shop", "the shop", { settle }),
      ).rejects.toMatchObject({ code: "input", message: expect.stringMatching(/settle/) });
    }
    expect(device.screenshots).toBe(0);
  });
});

describe("a screen that keeps changing fails at its timeout", () => {
  // The one timed assertion of this file: the promise of docs/guarantees.md that no call outlives its timeout
  // by more than ~250 ms. It allows twice that, so a busy machine's scheduling alone does not fail it; the old
  // failure path (a full count, diff and composite after the deadline) overran by seconds.
  const LATE_MS = 500;
  const phone = { width: 1179, height: 2556, scale: 3, insets: { top: 150, bottom: 100, left: 0, right: 0 } };

  test("a baseline on a large screen with a spinner: the failure comes by the timeout", async () => {
    const first = new FakeDevice(shopScene(), phone);
    setup(first);
    await api.expect(fakeDriver(first)).toMatchScreenshot("shop", "the shop");

    const device = animated((n) => shopScene({ checkout: "#dc2626", spinner: n }), phone);
    const artifacts: string[] = [];
    configureAi({ reportArtifact: (a) => void artifacts.push(a.role) });
    const error = await api
      .expect(fakeDriver(device))
      .toMatchScreenshot("shop", "the shop", { timeout: 3000 })
      .catch((e: unknown) => e);

    expect(error).toBeInstanceOf(ScreenshotMismatchError);
    expect((error as Error).message).toContain("the screen was still changing at the timeout");
    // The call's own duration, from its log entry: from the start of its deadline to the failure.
    expect(logs.at(-1)).toMatchObject({ outcome: "failed" });
    expect(logs.at(-1)!.durationMs).toBeLessThanOrEqual(3000 + LATE_MS);
    expect(artifacts).toContain("actual");
  });

  test("a tap whose crop never shows on a changing screen fails by its timeout", async () => {
    const first = new FakeDevice(shopScene(), phone);
    setup(first);
    await api.tap(fakeDriver(first), "the checkout button");

    const device = animated((n) => shopScene({ checkout: "#7c3aed", spinner: n }), phone);
    const error = await api.tap(fakeDriver(device), "the checkout button", { timeout: 2000 }).catch((e) => e);

    expect(error).toMatchObject({ code: "replay-mismatch" });
    expect(error.message).toContain("the screen was still changing at the timeout");
    expect(logs.at(-1)!.durationMs).toBeLessThanOrEqual(2000 + LATE_MS);
  });
});
