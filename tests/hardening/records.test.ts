/**
 * Promises about stored records (docs/guarantees.md): a record that does not fit itself or its
 * screen is refused with a StoreError naming it, and never tapped or compared.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { sha256 } from "../../src/core/store/record-io.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { checkoutScene, FakeDevice, fakeAdapter, fakeDriver } from "../support/fake-device.js";
import { locateOnDevice, ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

const api = createPlatformApi(fakeAdapter());

let storageDir: string;
let device: FakeDevice;
let channel: ScriptedChannel;

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-records-"));
  device = new FakeDevice(checkoutScene());
  channel = new ScriptedChannel({
    locate: locateOnDevice(device),
    judge: () => ({ accept: true, reason: "scripted accept", model: SCRIPTED_MODEL }),
  });
  configureAi({ channel, storageDir, resultsDir: false, log: () => undefined, reportArtifact: () => undefined });
});
afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

/** The one stored record under `kind`, as its JSON path and parsed fields. */
async function storedRecord(kind: "taps" | "screenshots") {
  const dir = path.join(storageDir, "_ai_", kind);
  const [file] = (await fs.readdir(dir, { recursive: true })).filter((f) => f.endsWith(".json"));
  const json = path.join(dir, file!);
  return { json, png: json.replace(/\.json$/, ".png"), record: JSON.parse(await fs.readFile(json, "utf8")) };
}

async function edit(json: string, change: (record: Record<string, unknown>) => void): Promise<void> {
  const record = JSON.parse(await fs.readFile(json, "utf8"));
  change(record);
  await fs.writeFile(json, JSON.stringify(record, null, 2));
}

/** Replace a record's image with `image`, and its SHA-256 with the new one, as an editor would. */
async function replaceImage(stored: { json: string; png: string }, image: Buffer): Promise<void> {
  await fs.writeFile(stored.png, image);
  await edit(stored.json, (r) => (r.imageSha256 = sha256(image)));
}

async function learnTap(): Promise<Awaited<ReturnType<typeof storedRecord>>> {
  expect((await api.tap(fakeDriver(device), "the checkout button")).outcome).toBe("learned");
  device.scene = checkoutScene();
  return storedRecord("taps");
}

/** Replay once more and return the error; taps on the device before and after are compared by the caller. */
async function replayError(): Promise<Error & { code: string }> {
  const outcome = await api
    .tap(fakeDriver(device), "the checkout button", { timeout: 20_000 })
    .catch((e: unknown) => e);
  return outcome as Error & { code: string };
}

describe("a stored point is never trusted blindly", () => {
  test("a point edited outside its box and screen is refused, never tapped", async () => {
    const stored = await learnTap();
    await edit(stored.json, (r) => (r.point = { x: -99999, y: 99999 }));
    const taps = device.taps.length;
    const error = await replayError();
    expect(error).toMatchObject({ code: "store", message: expect.stringContaining(stored.json) });
    expect(error.message).toMatch(/point: \(-99999, 99999\) is outside the box.*outside the 360x640 screen/);
    expect(device.taps).toHaveLength(taps);
  });

  test("a point inside the screen but outside its box is refused", async () => {
    const stored = await learnTap();
    await edit(stored.json, (r) => (r.point = { x: 5, y: 5 }));
    const error = await replayError();
    expect(error).toMatchObject({ code: "store", message: expect.stringContaining("(5, 5) is outside the box") });
  });

  test("a crop that cannot lie on the screen fails at once, not after the timeout", async () => {
    const stored = await learnTap();
    await edit(stored.json, (r) => (r.crop = { x: 200, y: 600, width: 288, height: 64 }));
    const screenshots = device.screenshots;
    const error = await replayError();
    expect(error).toMatchObject({ code: "store", message: expect.stringContaining("crop: does not lie on") });
    // Refused on read, before a single screenshot: a replay would watch the screen until its timeout.
    expect(device.screenshots).toBe(screenshots);
    expect(channel.count()).toBe(1);
  });
});

describe("a stored image must be the image its record says", () => {
  test("a crop image of another size is a StoreError naming the file and both sizes", async () => {
    const stored = await learnTap();
    const other = await sharp({ create: { width: 20, height: 20, channels: 4, background: "#16a34a" } })
      .png()
      .toBuffer();
    await replaceImage(stored, other);
    const error = await replayError();
    expect(error).toMatchObject({
      code: "store",
      message: expect.stringContaining(`${stored.png} is 20x20 but its record says 288x64`),
    });
  });

  test("a stored file that is not an image is a StoreError naming it", async () => {
    const stored = await learnTap();
    await replaceImage(stored, Buffer.from("this is not a PNG"));
    const error = await replayError();
    expect(error).toMatchObject({
      code: "store",
      message: expect.stringContaining(`${stored.png} is not an image its record can use`),
    });
  });

  test("a baseline image of another size than its screen is a StoreError, not a raw compare error", async () => {
    const matcher = api.expect(fakeDriver(device));
    expect((await matcher.toMatchScreenshot("cart", "the cart")).outcome).toBe("stored");
    const stored = await storedRecord("screenshots");
    const small = await sharp({ create: { width: 20, height: 20, channels: 4, background: "#ffffff" } })
      .png()
      .toBuffer();
    await replaceImage(stored, small);
    const error = await matcher.toMatchScreenshot("cart", "the cart").catch((e: unknown) => e as Error);
    expect(error).toMatchObject({
      code: "store",
      message: expect.stringContaining(`${stored.png} is 20x20 but its record says 360x640`),
    });
  });
});
