/**
 * toMatchScreenshot with autoHeal: a restyle the model finds harmless becomes the new
 * baseline (keeping the previous one); a regression fails with the model's reason.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import type { Artifact } from "../../src/core/ground/artifacts.js";
import type { AiRequestOf } from "../../src/core/model/contract.js";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { RejectedError, ScreenshotMismatchError } from "../../src/core/ground/errors.js";
import { HEALED_MESSAGE, type LogEntry } from "../../src/core/ground/log.js";
import { BaselineRecordSchema } from "../../src/core/store/baseline-record.js";
import { sha256 } from "../../src/core/store/record-io.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { FakeDevice, fakeAdapter, fakeDriver, render, type FakeScene } from "../support/fake-device.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

const BALANCE = { x: 16, y: 200, width: 160, height: 40 };
const PROMO = { x: 200, y: 200, width: 144, height: 40 };

/** A cart screen; `checkout` restyles the button (`null` removes it: a regression). */
function cartScene(checkout: string | null = "#16a34a", promo = "#e0e7ff"): FakeScene {
  const elements: FakeScene["elements"] = [
    { id: "header", x: 0, y: 24, width: 360, height: 56, fill: "#1e40af" },
    { id: "balance", ...BALANCE, fill: "#fef3c7", mark: "#92400e" },
    { id: "promo", ...PROMO, fill: promo },
  ];
  if (checkout) elements.push({ id: "checkout", x: 40, y: 520, width: 280, height: 56, fill: checkout, mark: "#fff" });
  return { background: "#ffffff", elements };
}

let storageDir: string;
let logs: LogEntry[];
let artifacts: Artifact[];
let channel: ScriptedChannel;
const api = createPlatformApi(fakeAdapter());
const file = () => path.join(storageDir, "_ai_", "screenshots", "android", "cart-page", "fake-phone-1_14");

/** The scripted model: the checkout button must be there; its colour does not matter. */
function setup() {
  channel = new ScriptedChannel({
    judge: () => ({ accept: true, varying: [BALANCE], reason: "shows the cart", model: SCRIPTED_MODEL }),
    compare: async (r) =>
      (await pixelAt(r.screen.data, 60, 530)) === "255,255,255"
        ? { realChange: true, reason: "the checkout button is missing", model: SCRIPTED_MODEL }
        : { realChange: false, reason: "the checkout button was restyled", model: SCRIPTED_MODEL },
  });
  configureAi({
    channel,
    storageDir,
    resultsDir: false,
    log: (e) => logs.push(e),
    reportArtifact: (a) => {
      artifacts.push(a);
      return `memory://${a.name}`;
    },
  });
}

/** The scripted model looks at the image it was sent. */
async function pixelAt(base64: string, x: number, y: number): Promise<string> {
  const { data, info } = await sharp(Buffer.from(base64, "base64")).raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [...data.subarray(at, at + 3)].join(",");
}

async function readBaseline() {
  const record = BaselineRecordSchema.parse(JSON.parse(await fs.readFile(`${file()}.json`, "utf8")));
  return { record, png: await fs.readFile(`${file()}.png`) };
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected the call to fail");
}

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-heal-"));
  logs = [];
  artifacts = [];
  setup();
  const device = new FakeDevice(cartScene());
  await api.expect(fakeDriver(device)).toMatchScreenshot("cart-page", "the cart with a checkout button");
});
afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

test("autoHeal stores a restyle the model finds harmless, keeping the previous baseline", async () => {
  const before = await readBaseline();
  const device = new FakeDevice(cartScene("#2563eb"));

  const result = await api
    .expect(fakeDriver(device))
    .toMatchScreenshot("cart-page", "the cart with a blue checkout button", { autoHeal: true, timeout: 2500 });

  expect(result.outcome).toBe("healed");
  expect(result.aiCalls).toBe(1);
  expect(result.diffPixels).toBeGreaterThan(10_000);
  const compare = channel.requests.at(-1) as AiRequestOf<"compare">;
  expect(compare.kind).toBe("compare");
  expect(compare.prompt).toBe("the cart with a blue checkout button");
  expect(Buffer.from(compare.baseline.data, "base64").equals(before.png)).toBe(true);
  expect([compare.diff.width, compare.diff.height]).toEqual([360, 640]);

  const after = await readBaseline();
  expect(after.png.equals(await render(device.scene, device.description))).toBe(true);
  expect(after.record).toMatchObject({
    prompt: "the cart with a blue checkout button",
    reason: "the checkout button was restyled",
    varying: [BALANCE],
    imageSha256: sha256(after.png),
    createdAt: before.record.createdAt,
    previous: {
      prompt: "the cart with a checkout button",
      imageSha256: before.record.imageSha256,
      reason: "shows the cart",
    },
  });
  expect((await fs.readFile(`${file()}.previous.png`)).equals(before.png)).toBe(true);
  expect(logs.at(-1)).toMatchObject({ outcome: "healed", aiCalls: 1 });
  expect(logs.at(-1)!.detail).toContain(`${HEALED_MESSAGE}: screenshots/android/cart-page/fake-phone-1_14.json`);

  // The healed baseline is what later runs compare with, without a model.
  const next = await api.expect(fakeDriver(new FakeDevice(cartScene("#2563eb")))).toMatchScreenshot("cart-page", "x");
  expect(next).toEqual({ outcome: "matched", aiCalls: 0, diffPixels: 0 });
});

test("autoHeal refuses a regression: the model's reason fails the step and the baseline is kept", async () => {
  const before = await readBaseline();
  const device = new FakeDevice(cartScene(null));

  const error = await failure(
    api.expect(fakeDriver(device)).toMatchScreenshot("cart-page", "the cart", { autoHeal: true, timeout: 2500 }),
  );

  expect(error).toBeInstanceOf(RejectedError);
  expect(error.message).toContain("the checkout button is missing");
  expect(error.message).toMatch(/\d+ pixels differ from the baseline/);
  expect(error.message).toContain("The baseline was kept");
  expect(channel.count("compare")).toBe(1);
  const after = await readBaseline();
  expect(after.png.equals(before.png)).toBe(true);
  expect(after.record).toEqual(before.record);
  await expect(fs.access(`${file()}.previous.png`)).rejects.toThrow();
  expect(artifacts.map((a) => a.role)).toEqual(["expected", "actual", "diff", "composite"]);
  expect(logs.at(-1)).toMatchObject({ outcome: "failed", aiCalls: 1 });
});

test("the model's varying boxes replace the stored ones when it gives some", async () => {
  channel.script.compare = () => ({
    realChange: false,
    varying: [PROMO],
    reason: "the promo banner rotates",
    model: SCRIPTED_MODEL,
  });
  const device = new FakeDevice(cartScene("#16a34a", "#f59e0b"));

  const result = await api
    .expect(fakeDriver(device))
    .toMatchScreenshot("cart-page", "the cart", { autoHeal: true, timeout: 2500 });

  expect(result.outcome).toBe("healed");
  const { record } = await readBaseline();
  expect(record.varying).toEqual([PROMO]);
  expect(record.previous?.varying).toEqual([BALANCE]);
  // Now the promo may change and the balance is compared again.
  const promo = await api
    .expect(fakeDriver(new FakeDevice(cartScene("#16a34a", "#16a34a"))))
    .toMatchScreenshot("cart-page", "the cart");
  expect(promo.outcome).toBe("matched");
});

test("without autoHeal a mismatch never asks the model", async () => {
  const device = new FakeDevice(cartScene("#2563eb"));

  const error = await failure(
    api.expect(fakeDriver(device)).toMatchScreenshot("cart-page", "the cart", { timeout: 20_000 }),
  );

  expect(error).toBeInstanceOf(ScreenshotMismatchError);
  expect(channel.count("compare")).toBe(0);
});
