/**
 * toMatchScreenshot: first baselines judged and stored, pixel comparisons, masks,
 * replay mode, parallel runs. Real PNG screens from FakeDevice, a scripted AI channel.
 */
import { createHash } from "node:crypto";
import { crc32 } from "node:zlib";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import type { Artifact } from "../../src/core/ground/artifacts.js";
import type { AiRequestOf } from "../../src/core/model/contract.js";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { NotStoredError, RejectedError, ScreenshotMismatchError } from "../../src/core/ground/errors.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { BaselineRecordSchema } from "../../src/core/store/baseline-record.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { FakeDevice, fakeAdapter, fakeDriver, render, type FakeScene } from "../support/fake-device.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

const BALANCE = { x: 16, y: 200, width: 160, height: 40 };

/** A cart screen with a balance that varies between runs and a checkout button. */
function cartScene(change: { balance?: string; item?: string; checkout?: string | null; clock?: number } = {}) {
  const scene: FakeScene = {
    background: "#ffffff",
    elements: [
      // A "clock" inside the 24-pixel status bar.
      { id: "clock", x: 8 + (change.clock ?? 0) * 6, y: 6, width: 30, height: 12, fill: "#ffffff" },
      { id: "header", x: 0, y: 24, width: 360, height: 56, fill: "#1e40af" },
      { id: "item-row", x: 16, y: 100, width: 328, height: 60, fill: change.item ?? "#e5e7eb", mark: "#9ca3af" },
      { id: "balance", ...BALANCE, fill: change.balance ?? "#fef3c7", mark: "#92400e" },
    ],
  };
  if (change.checkout !== null) {
    scene.elements.push({
      id: "checkout",
      x: 40,
      y: 520,
      width: 280,
      height: 56,
      fill: change.checkout ?? "#16a34a",
      mark: "#ffffff",
    });
  }
  return scene;
}

let storageDir: string;
let logs: LogEntry[];
let artifacts: Artifact[];
let channel: ScriptedChannel;
const api = createPlatformApi(fakeAdapter());

function judgeAccepting(varying = [BALANCE]) {
  return (r: AiRequestOf<"judge">) => ({
    accept: true,
    varying,
    reason: `scripted: accepts "${r.prompt}"`,
    model: SCRIPTED_MODEL,
  });
}

function setup(mode: "auto" | "replay" = "auto", judge: (r: AiRequestOf<"judge">) => unknown = judgeAccepting()) {
  channel = new ScriptedChannel({ judge });
  configureAi({
    channel,
    storageDir,
    mode,
    resultsDir: false,
    log: (e) => logs.push(e),
    reportArtifact: (a) => {
      artifacts.push(a);
      return `memory://${a.name}`;
    },
  });
}

const baselineDir = (name = "cart-page") => path.join(storageDir, "_ai_", "screenshots", "android", name);

async function readBaseline(device = "fake-phone-1_14", name = "cart-page") {
  const file = path.join(baselineDir(name), device);
  const record = BaselineRecordSchema.parse(JSON.parse(await fs.readFile(`${file}.json`, "utf8")));
  return { record, png: await fs.readFile(`${file}.png`) };
}

async function storedFiles(): Promise<string[]> {
  const dir = path.join(storageDir, "_ai_", "screenshots");
  const files = await fs.readdir(dir, { recursive: true }).catch(() => [] as string[]);
  return files.filter((f) => f.endsWith(".json") || f.endsWith(".png")).sort();
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the call to fail");
}

/** Store the first baseline of `cart-page` on a new Fake Phone 1 and return that device. */
async function storeFirst(scene = cartScene()) {
  const device = new FakeDevice(scene);
  await api.expect(fakeDriver(device)).toMatchScreenshot("cart-page", "the cart; the balance may differ");
  return device;
}

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-shot-"));
  logs = [];
  artifacts = [];
});
afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

describe("no baseline yet", () => {
  test("the first baseline is judged once and stored with the model's varying boxes and reason", async () => {
    setup();
    const device = new FakeDevice(cartScene());

    const result = await api
      .expect(fakeDriver(device))
      .toMatchScreenshot("cart-page", "the cart with 1 item; the balance may differ");

    expect(result).toEqual({ outcome: "stored", aiCalls: 1, diffPixels: 0 });
    expect(channel.count("judge")).toBe(1);
    const judge = channel.requests[0] as AiRequestOf<"judge">;
    expect(judge.prompt).toBe("the cart with 1 item; the balance may differ");
    expect(judge.references).toEqual([]);
    expect([judge.screen.width, judge.screen.height]).toEqual([360, 640]);

    const { record, png } = await readBaseline();
    expect(png.equals(await render(cartScene(), device.description))).toBe(true);
    expect(record).toMatchObject({
      kind: "baseline",
      name: "cart-page",
      prompt: "the cart with 1 item; the balance may differ",
      varying: [BALANCE],
      model: SCRIPTED_MODEL,
      reason: 'scripted: accepts "the cart with 1 item; the balance may differ"',
      device: { model: "Fake Phone 1", osVersion: "14", screen: { width: 360, height: 640 } },
    });
    expect(record.previous).toBeUndefined();
    expect(logs).toEqual([
      expect.objectContaining({ api: "toMatchScreenshot", name: "cart-page", outcome: "stored", aiCalls: 1 }),
    ]);
  });

  test("a rejected screen stores nothing and reports the screenshot", async () => {
    setup("auto", () => ({ accept: false, reason: "the cart is empty", model: SCRIPTED_MODEL }));
    const device = new FakeDevice(cartScene());

    const error = await failure(api.expect(fakeDriver(device)).toMatchScreenshot("cart-page", "the cart with 2 items"));

    expect(error).toBeInstanceOf(RejectedError);
    expect(error.message).toContain("the cart is empty");
    expect(error.message).toContain("Nothing was stored");
    expect(await storedFiles()).toEqual([]);
    expect(artifacts.map((a) => a.role)).toEqual(["screenshot"]);
    expect(artifacts[0]!.name).toBe("screenshot-cart-page__fake-phone-1_14__screenshot.png");
    expect(logs).toEqual([expect.objectContaining({ outcome: "failed", aiCalls: 1 })]);
  });

  test("a second device is judged with the first device's baseline as a reference", async () => {
    setup();
    await storeFirst();
    const first = await readBaseline();

    const other = new FakeDevice(cartScene({ balance: "#fde68a" }), { model: "Fake Phone 2", osVersion: "15" });
    const result = await api.expect(fakeDriver(other)).toMatchScreenshot("cart-page", "the cart");

    expect(result.outcome).toBe("stored");
    expect(channel.count("judge")).toBe(2);
    const judge = channel.requests[1] as AiRequestOf<"judge">;
    expect(judge.references).toHaveLength(1);
    expect(judge.references[0]!.device).toBe("fake-phone-1_14");
    expect(Buffer.from(judge.references[0]!.image.data, "base64").equals(first.png)).toBe(true);
    expect((await readBaseline("fake-phone-2_15")).record.prompt).toBe("the cart");
    expect(await storedFiles()).toEqual([
      "android/cart-page/fake-phone-1_14.json",
      "android/cart-page/fake-phone-1_14.png",
      "android/cart-page/fake-phone-2_15.json",
      "android/cart-page/fake-phone-2_15.png",
    ]);
  });

  test("at most three references are sent, the most recently stored first", async () => {
    setup();
    for (const n of [1, 2, 3, 4]) {
      const device = new FakeDevice(cartScene(), { model: `Fake Phone ${n}` });
      await api.expect(fakeDriver(device)).toMatchScreenshot("cart-page", "the cart");
    }
    const fifth = new FakeDevice(cartScene(), { model: "Fake Phone 5" });
    await api.expect(fakeDriver(fifth)).toMatchScreenshot("cart-page", "the cart");

    const judge = channel.requests[4] as AiRequestOf<"judge">;
    expect(judge.references.map((r) => r.device)).toEqual(["fake-phone-4_14", "fake-phone-3_14", "fake-phone-2_14"]);
  });

  test("the nearest device's baseline is the first reference (density and screen shape), then the most recent", async () => {
    setup();
    const sizes = [
      { model: "Fake Phone 1", width: 1080, height: 1920, scale: 3 },
      { model: "Fake Phone 2", width: 360, height: 640, scale: 1 },
      { model: "Fake Phone 3", width: 360, height: 760, scale: 1 },
    ];
    for (const size of sizes) {
      await api.expect(fakeDriver(new FakeDevice(cartScene(), size))).toMatchScreenshot("cart-page", "the cart");
    }
    const fourth = new FakeDevice(cartScene(), { model: "Fake Phone 4", width: 1080, height: 1920, scale: 3 });
    await api.expect(fakeDriver(fourth)).toMatchScreenshot("cart-page", "the cart");

    const judge = channel.requests[3] as AiRequestOf<"judge">;
    expect(judge.references.map((r) => r.device)).toEqual(["fake-phone-1_14", "fake-phone-3_14", "fake-phone-2_14"]);
  });

  test("a baseline belongs to its name only; other platforms' baselines are not references", async () => {
    setup();
    await storeFirst();
    const device = new FakeDevice(cartScene());
    await api.expect(fakeDriver(device)).toMatchScreenshot("cart-page-2", "the cart");
    const iosApi = createPlatformApi(fakeAdapter("ios"));
    const iphone = new FakeDevice(cartScene(), { platform: "ios", model: "iPhone 15", osVersion: "17.5" });
    await iosApi.expect(fakeDriver(iphone)).toMatchScreenshot("cart-page", "the cart");

    expect(channel.count("judge")).toBe(3);
    expect((channel.requests[1] as AiRequestOf<"judge">).references).toEqual([]);
    expect((channel.requests[2] as AiRequestOf<"judge">).references).toEqual([]);
    expect(await storedFiles()).toContain("ios/cart-page/iphone-15_17.5.json");
  });

  test("waits for a stable screen before judging", async () => {
    setup();
    const device = new FakeDevice(cartScene());
    device.loading = [
      { background: "#ffffff", elements: [{ id: "spinner", x: 150, y: 300, width: 60, height: 60, fill: "#999" }] },
      { background: "#ffffff", elements: [{ id: "spinner", x: 160, y: 300, width: 60, height: 60, fill: "#999" }] },
      cartScene({ checkout: null }),
    ];

    await api.expect(fakeDriver(device)).toMatchScreenshot("cart-page", "the cart");

    // Three loading frames, then two identical ones of the final screen.
    expect(device.screenshots).toBe(5);
    const finalPng = await render(cartScene(), device.description);
    const judge = channel.requests[0] as AiRequestOf<"judge">;
    expect(Buffer.from(judge.screen.data, "base64").equals(finalPng)).toBe(true);
    expect((await readBaseline()).png.equals(finalPng)).toBe(true);
  });

  test("a clock tick in the status bar is not motion while waiting for a stable screen", async () => {
    setup();
    const device = new FakeDevice(cartScene());
    device.loading = [cartScene({ clock: 1 })];

    await api.expect(fakeDriver(device)).toMatchScreenshot("cart-page", "the cart");

    expect(device.screenshots).toBe(2);
  });

  test("a blank screen is refused without asking the model", async () => {
    setup();
    const device = new FakeDevice({ background: "#000000", elements: [], statusBar: "#333", navBar: "#111" });

    const error = await failure(
      api.expect(fakeDriver(device)).toMatchScreenshot("cart-page", "the cart", { timeout: 20_000 }),
    );

    expect(error).toBeInstanceOf(RejectedError);
    expect(error.message).toContain("the screen is blank");
    expect(channel.count()).toBe(0);
    expect(await storedFiles()).toEqual([]);
  });

  test("varying boxes covering more than a quarter of the screen are refused", async () => {
    setup(
      "auto",
      judgeAccepting([
        { x: 0, y: 0, width: 360, height: 200 },
        { x: 0, y: 100, width: 360, height: 100 },
      ]),
    );
    const device = new FakeDevice(cartScene());

    const error = await failure(api.expect(fakeDriver(device)).toMatchScreenshot("cart-page", "the cart"));

    // The boxes overlap: their union is 200 rows, 31.3% of the screen.
    expect(error).toBeInstanceOf(RejectedError);
    expect(error.message).toContain("31.3% of the screen as varying");
    expect(await storedFiles()).toEqual([]);
  });

  test("parallel runs on one new device: one judges, the others compare against its baseline", async () => {
    setup();
    channel.delayMs = 300;
    const devices = [1, 2, 3].map(() => new FakeDevice(cartScene()));

    const results = await Promise.all(
      devices.map((d) => api.expect(fakeDriver(d)).toMatchScreenshot("cart-page", "the cart")),
    );

    expect(results.map((r) => r.outcome).sort()).toEqual(["matched", "matched", "stored"]);
    expect(channel.count("judge")).toBe(1);
    expect((await readBaseline()).record.model).toBe(SCRIPTED_MODEL);
  });
});

describe("baseline stored", () => {
  test("later runs compare pixels with no model call", async () => {
    setup();
    await storeFirst();

    for (let run = 0; run < 2; run++) {
      const device = new FakeDevice(cartScene());
      const result = await api.expect(fakeDriver(device)).toMatchScreenshot("cart-page", "the cart");
      expect(result).toEqual({ outcome: "matched", aiCalls: 0, diffPixels: 0 });
      expect(device.screenshots).toBe(1);
    }
    expect(channel.count()).toBe(1);
    expect(logs.map((e) => e.outcome)).toEqual(["stored", "matched", "matched"]);
  });

  test("a screenshot with the baseline's bytes matches before anything is decoded", async () => {
    setup();
    await storeFirst();
    // A whole PNG (signature, IHDR, one IDAT, IEND) whose pixel data is not deflated: a device could send it, but
    // its pixels cannot be decoded, so only a byte comparison can match it.
    const stored = await readBaseline();
    const chunk = (type: string, data: Buffer) => {
      const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
      const length = Buffer.alloc(4);
      length.writeUInt32BE(data.length);
      const crc = Buffer.alloc(4);
      crc.writeUInt32BE(crc32(body));
      return Buffer.concat([length, body, crc]);
    };
    const undecodable = Buffer.concat([
      stored.png.subarray(0, 33),
      chunk("IDAT", Buffer.from("not deflated pixel data")),
      chunk("IEND", Buffer.alloc(0)),
    ]);
    await expect(sharp(undecodable).raw().toBuffer()).rejects.toThrow();
    const file = path.join(baselineDir(), "fake-phone-1_14");
    await fs.writeFile(`${file}.png`, undecodable);
    const imageSha256 = createHash("sha256").update(undecodable).digest("hex");
    await fs.writeFile(`${file}.json`, JSON.stringify({ ...stored.record, imageSha256 }));
    const device = new FakeDevice(cartScene());
    device.screenshot = async () => Buffer.from(undecodable);

    const result = await api.expect(fakeDriver(device)).toMatchScreenshot("cart-page", "the cart");

    expect(result).toEqual({ outcome: "matched", aiCalls: 0, diffPixels: 0 });
  });

  test("the same screen asserted twice in a session passes twice; a changed one then fails", async () => {
    setup();
    await storeFirst();
    const device = new FakeDevice({ ...cartScene({ clock: 2 }), statusBar: "#555555" });
    const driver = fakeDriver(device);
    for (let run = 0; run < 2; run++) {
      expect(await api.expect(driver).toMatchScreenshot("cart-page", "the cart")).toMatchObject({ outcome: "matched" });
    }
    device.scene = cartScene({ checkout: null });
    const error = await failure(api.expect(driver).toMatchScreenshot("cart-page", "the cart", { timeout: 20_000 }));
    expect(error).toBeInstanceOf(ScreenshotMismatchError);
  });

  test("a changed prompt does not touch a stored baseline", async () => {
    setup();
    await storeFirst();
    const device = new FakeDevice(cartScene());

    const result = await api.expect(fakeDriver(device)).toMatchScreenshot("cart-page", "a reworded prompt");

    expect(result.outcome).toBe("matched");
    expect((await readBaseline()).record.prompt).toBe("the cart; the balance may differ");
  });

  test("a status bar clock change and a navigation bar change pass", async () => {
    setup();
    await storeFirst();
    const scene = { ...cartScene({ clock: 3 }), statusBar: "#555555", navBar: "#444444" };
    const device = new FakeDevice(scene);
    expect((await render(scene, device.description)).equals((await readBaseline()).png)).toBe(false);

    const result = await api.expect(fakeDriver(device)).toMatchScreenshot("cart-page", "the cart");

    expect(result).toEqual({ outcome: "matched", aiCalls: 0, diffPixels: 0 });
  });

  test("landscape system bars on the sides are masked", async () => {
    setup();
    const insets = { top: 20, bottom: 0, left: 0, right: 40 };
    const landscape = (bar: string): FakeScene => ({
      background: "#ffffff",
      elements: [
        { id: "content", x: 40, y: 60, width: 200, height: 100, fill: "#1e40af" },
        { id: "nav", x: 600, y: 0, width: 40, height: 360, fill: bar },
      ],
    });
    const options = { width: 640, height: 360, insets };
    await api.expect(fakeDriver(new FakeDevice(landscape("#000"), options))).toMatchScreenshot("land", "content");

    const result = await api
      .expect(fakeDriver(new FakeDevice(landscape("#777"), options)))
      .toMatchScreenshot("land", "content");

    expect(result.outcome).toBe("matched");
  });

  test("a change inside a stored varying region passes; a change outside it fails", async () => {
    setup();
    await storeFirst();

    const varied = new FakeDevice(cartScene({ balance: "#bbf7d0" }));
    expect(await api.expect(fakeDriver(varied)).toMatchScreenshot("cart-page", "the cart")).toEqual({
      outcome: "matched",
      aiCalls: 0,
      diffPixels: 0,
    });

    const changed = new FakeDevice(cartScene({ item: "#fca5a5" }));
    const error = await failure(
      api.expect(fakeDriver(changed)).toMatchScreenshot("cart-page", "the cart", { timeout: 20_000 }),
    );
    expect(error).toBeInstanceOf(ScreenshotMismatchError);
  });

  test("a real change fails with the mismatch figures and expected, actual, diff and composite artifacts", async () => {
    setup();
    await storeFirst();
    const device = new FakeDevice(cartScene({ checkout: null }));

    // No short timeout: a still screen fails once it has settled, with time to count and draw the diff.
    const error = await failure(api.expect(fakeDriver(device)).toMatchScreenshot("cart-page", "the cart"));

    expect(error).toBeInstanceOf(ScreenshotMismatchError);
    const mismatch = error as ScreenshotMismatchError;
    // The 280x56 button with rounded corners is gone; its white mark (140x19) on the white background is no change.
    expect(mismatch.diffPixels).toBeGreaterThan(12_000);
    expect(mismatch.diffPixels).toBeLessThanOrEqual(280 * 56 - 140 * 18);
    expect(mismatch.diffRatio).toBeCloseTo(mismatch.diffPixels / (360 * 640), 10);
    expect(error.message).toContain(`${mismatch.diffPixels} pixels differ from the baseline`);
    expect(error.message).toContain("allowed 230 (maxDiffPixelRatio 0.001)");
    expect(error.message).toContain("autoHeal: true");
    expect(channel.count()).toBe(1);

    expect(artifacts.map((a) => a.role)).toEqual(["expected", "actual", "diff", "composite"]);
    expect((error as ScreenshotMismatchError).artifacts).toEqual(artifacts.map((a) => `memory://${a.name}`));
    const diff = await sharp(artifacts[2]!.data).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => [...diff.data.subarray((y * 360 + x) * 4, (y * 360 + x) * 4 + 3)];
    expect(at(100, 530)).toEqual([255, 0, 0]);
    expect(at(100, 300)).not.toEqual([255, 0, 0]);
    const composite = await sharp(artifacts[3]!.data).metadata();
    expect([composite.width, composite.height]).toEqual([360 * 3 + 16, 640]);
    expect(logs.at(-1)).toMatchObject({ outcome: "failed", aiCalls: 0 });
  });

  test("content pushed down by an inserted banner fails as before, and the error and log line say how far it moved", async () => {
    setup();
    await storeFirst();
    const pushed = cartScene();
    pushed.elements = pushed.elements.map((e) => (e.y >= 180 ? { ...e, y: e.y + 60 } : e));
    pushed.elements.push({ id: "banner", x: 0, y: 180, width: 360, height: 60, fill: "#dc2626", mark: "#ffffff" });
    const before = await readBaseline();

    const error = await failure(
      api.expect(fakeDriver(new FakeDevice(pushed))).toMatchScreenshot("cart-page", "the cart"),
    );

    expect(error).toBeInstanceOf(ScreenshotMismatchError);
    // The balance (the first content below the banner, at y=200) and the checkout button moved 60 px down.
    expect(error.message).toContain(
      "allowed 230 (maxDiffPixelRatio 0.001); the content below y=200 moved down by 60 px",
    );
    expect(logs.at(-1)).toMatchObject({ outcome: "failed", aiCalls: 0 });
    expect(logs.at(-1)!.detail).toContain("the content below y=200 moved down by 60 px");
    expect((await readBaseline()).png.equals(before.png)).toBe(true);
  });

  test("a restyle or a removed element reports no content shift", async () => {
    setup();
    await storeFirst();
    for (const scene of [cartScene({ checkout: "#2563eb", item: "#fde68a" }), cartScene({ checkout: null })]) {
      const error = await failure(
        api.expect(fakeDriver(new FakeDevice(scene))).toMatchScreenshot("cart-page", "the cart", { timeout: 20_000 }),
      );
      expect(error).toBeInstanceOf(ScreenshotMismatchError);
      expect(error.message).not.toContain("moved");
    }
  });

  test("retries until the screen matches", async () => {
    setup();
    await storeFirst();
    const device = new FakeDevice(cartScene());
    device.loading = [cartScene({ checkout: null }), cartScene({ checkout: null })];

    const result = await api.expect(fakeDriver(device)).toMatchScreenshot("cart-page", "the cart");

    expect(result).toEqual({ outcome: "matched", aiCalls: 0, diffPixels: 0 });
    expect(device.screenshots).toBe(3);
  });

  test("threshold, maxDiffPixels and maxDiffPixelRatio decide what passes", async () => {
    setup();
    await storeFirst();
    const withDot = (fill = "#000000", item?: string): FakeScene => {
      const scene = cartScene({ item });
      scene.elements.push({ id: "dot", x: 200, y: 300, width: 12, height: 12, fill });
      return scene;
    };
    const run = (scene: FakeScene, options: object) =>
      api.expect(fakeDriver(new FakeDevice(scene))).toMatchScreenshot("cart-page", "the cart", {
        timeout: 20_000,
        ...options,
      });

    // The dot (12x12 with 6-pixel round corners: a disc) changes about 90 pixels: within the default
    // 0.1% of 230400 (230 pixels).
    const small = await run(withDot(), {});
    expect(small.outcome).toBe("matched");
    expect(small.diffPixels).toBeGreaterThan(60);
    expect(small.diffPixels).toBeLessThanOrEqual(144);

    expect(await failure(run(withDot(), { maxDiffPixels: 50 }))).toBeInstanceOf(ScreenshotMismatchError);
    expect((await run(withDot(), { maxDiffPixels: 200 })).outcome).toBe("matched");
    // Both set: the stricter applies (0.0001 of 230400 = 23 pixels).
    const both = await failure(run(withDot(), { maxDiffPixels: 500, maxDiffPixelRatio: 0.0001 }));
    expect(both.message).toContain("allowed 23 (the stricter of maxDiffPixels 500 and maxDiffPixelRatio 0.0001)");

    // A barely visible tint of the item row passes the default threshold, not threshold 0.
    const tint = cartScene({ item: "#e6e8ec" });
    expect((await run(tint, { maxDiffPixels: 0 })).outcome).toBe("matched");
    expect(await failure(run(tint, { maxDiffPixels: 0, threshold: 0 }))).toBeInstanceOf(ScreenshotMismatchError);
  });

  test("a screenshot in another encoding gets the verdict and count of the device's own encoding", async () => {
    setup();
    await storeFirst();
    const scene = cartScene();
    scene.elements.push({ id: "dot", x: 200, y: 300, width: 12, height: 12, fill: "#000000" });
    /** The device's screenshots re-encoded: compared row by row (same colour type) or decoded by libvips (RGB). */
    class ReencodingDevice extends FakeDevice {
      constructor(private readonly reencode: (png: Buffer) => Promise<Buffer>) {
        super(scene);
      }
      override async screenshot(): Promise<Buffer> {
        return this.reencode(await super.screenshot());
      }
    }
    const run = async (device: FakeDevice) =>
      (await api.expect(fakeDriver(device)).toMatchScreenshot("cart-page", "the cart", { timeout: 20_000 })).diffPixels;
    const own = await run(new FakeDevice(scene));
    expect(own).toBeGreaterThan(60);
    expect(await run(new ReencodingDevice((png) => sharp(png).png({ adaptiveFiltering: true }).toBuffer()))).toBe(own);
    expect(await run(new ReencodingDevice((png) => sharp(png).removeAlpha().png().toBuffer()))).toBe(own);
  });

  test("a mask option ignores its region", async () => {
    setup();
    await storeFirst();
    const device = new FakeDevice(cartScene({ checkout: "#dc2626" }));

    const result = await api
      .expect(fakeDriver(device))
      .toMatchScreenshot("cart-page", "the cart", { mask: [{ x: 30, y: 510, width: 300, height: 80 }] });

    expect(result).toEqual({ outcome: "matched", aiCalls: 0, diffPixels: 0 });
  });

  test("a baseline from another screen size is not compared: it is judged again and replaced", async () => {
    setup();
    await storeFirst();
    const old = await readBaseline();
    const taller = new FakeDevice(cartScene(), { height: 700 });

    const result = await api.expect(fakeDriver(taller)).toMatchScreenshot("cart-page", "the cart");

    expect(result.outcome).toBe("stored");
    expect(channel.count("judge")).toBe(2);
    const { record } = await readBaseline();
    expect(record.device.screen).toEqual({ width: 360, height: 700 });
    expect(record.previous?.imageSha256).toBe(old.record.imageSha256);
    expect((await fs.readFile(path.join(baselineDir(), "fake-phone-1_14.previous.png"))).equals(old.png)).toBe(true);
    expect(logs.at(-1)!.detail).toContain(
      "stored baseline was made on a 360x640 portrait screen, this one is 360x700 portrait: not used",
    );
  });
});

describe("mode replay", () => {
  test("a missing baseline fails clearly and the model is never called", async () => {
    setup("replay");
    const device = new FakeDevice(cartScene());

    const error = await failure(api.expect(fakeDriver(device)).toMatchScreenshot("cart-page", "the cart"));

    expect(error).toBeInstanceOf(NotStoredError);
    expect(error.message).toContain('No baseline "cart-page" is stored for fake-phone-1_14');
    expect(error.message).toContain("screenshots/android/cart-page/fake-phone-1_14.json");
    expect(error.message).toContain('mode is "replay"');
    expect(channel.count()).toBe(0);
    expect(device.screenshots).toBe(0);
  });

  test("a stored baseline is compared; a mismatch fails without asking the model even with autoHeal", async () => {
    setup();
    await storeFirst();
    setup("replay");

    const same = await api.expect(fakeDriver(new FakeDevice(cartScene()))).toMatchScreenshot("cart-page", "the cart");
    expect(same).toEqual({ outcome: "matched", aiCalls: 0, diffPixels: 0 });

    const error = await failure(
      api
        .expect(fakeDriver(new FakeDevice(cartScene({ checkout: "#2563eb" }))))
        .toMatchScreenshot("cart-page", "the cart", { autoHeal: true, timeout: 20_000 }),
    );
    expect(error).toBeInstanceOf(ScreenshotMismatchError);
    expect(error.message).toContain('autoHeal is off in mode "replay"');
    expect(channel.count()).toBe(0);
  });

  test("a baseline from another screen size fails clearly", async () => {
    setup();
    await storeFirst();
    setup("replay");

    const error = await failure(
      api.expect(fakeDriver(new FakeDevice(cartScene(), { height: 700 }))).toMatchScreenshot("cart-page", "the cart"),
    );

    expect(error).toBeInstanceOf(NotStoredError);
    expect(error.message).toContain("was stored on a 360x640 portrait screen and this one is 360x700 portrait");
    expect(channel.count()).toBe(0);
  });
});
