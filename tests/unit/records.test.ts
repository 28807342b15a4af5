import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { StoreError } from "../../src/core/ground/errors.js";
import { FileStore } from "../../src/core/store/file-store.js";
import { BaselineRecordSchema, type BaselineRecord } from "../../src/core/store/baseline-record.js";
import { FORMAT } from "../../src/core/store/record-format.js";
import { TapRecordSchema, type TapRecord } from "../../src/core/store/tap-record.js";
import { createRecord, readRecord, replaceRecord, restorePrevious, sha256 } from "../../src/core/store/record-io.js";
import { reviewOf } from "../../src/core/store/review-state.js";
import type { DeviceDescription } from "../../src/core/device/description.js";

let dir: string;
let store: FileStore;
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-records-"));
  store = new FileStore(dir);
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

const device: DeviceDescription = {
  platform: "android",
  model: "Google Pixel 7",
  osVersion: "14",
  screen: { width: 1080, height: 2400 },
  scale: 2.625,
  insets: { top: 118, bottom: 63, left: 0, right: 0 },
  orientation: "portrait",
};
const key = "taps/android/google-pixel-7_14/the-checkout-button-0123456789";

/** A crop-sized image: tapRecord's crop is 56x36. */
function png(color: string, width = 56, height = 36): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 4, background: color } })
    .png()
    .toBuffer();
}

function tapRecord(image: Buffer, x = 100): TapRecord {
  const now = new Date().toISOString();
  return {
    format: FORMAT,
    kind: "tap",
    prompt: "the checkout button",
    verify: null,
    device,
    point: { x, y: 200 },
    box: { x: x - 20, y: 190, width: 40, height: 20 },
    crop: { x: x - 28, y: 182, width: 56, height: 36 },
    model: "test-double:scripted",
    reason: "a green button labelled Checkout",
    imageSha256: sha256(image),
    storedAt: now,
    createdAt: now,
  };
}

describe("record schemas", () => {
  test("a tap record carries the format version, the device, the model and timestamps", async () => {
    const record = tapRecord(await png("#00ff00"));
    expect(TapRecordSchema.parse(record)).toEqual(record);
    expect(FORMAT).toBe(2);
  });

  test("a record of an unknown format version is refused", async () => {
    const record = { ...tapRecord(await png("#00ff00")), format: 3 };
    expect(TapRecordSchema.safeParse(record).success).toBe(false);
  });

  test("a format 1 record (before review states) still reads, as accepted with no rejections", async () => {
    // Exactly what version 1 wrote: no review, no rejected.
    const image = await png("#00ff00");
    const old = { ...tapRecord(image), format: 1 };
    await store.write(`${key}.png`, image);
    await store.write(`${key}.json`, Buffer.from(JSON.stringify(old, null, 2)));
    const stored = await readRecord(store, key, TapRecordSchema);
    expect(stored?.record.format).toBe(1);
    expect(reviewOf(stored!.record)).toEqual({ state: "accepted", by: null, at: null });
    expect(stored?.record.rejected).toBeUndefined();
  });

  test("review states: pending, or accepted with who and when; anything else is refused", async () => {
    const record = tapRecord(await png("#00ff00"));
    const accepted = { state: "accepted", by: "Ada <ada@example.com>", at: new Date().toISOString() } as const;
    expect(reviewOf(TapRecordSchema.parse({ ...record, review: { state: "pending" } }))).toEqual({ state: "pending" });
    expect(reviewOf(TapRecordSchema.parse({ ...record, review: accepted }))).toEqual(accepted);
    expect(TapRecordSchema.safeParse({ ...record, review: { state: "approved" } }).success).toBe(false);
  });

  test("a baseline record keeps its varying regions", async () => {
    const image = await png("#ffffff", 10, 10);
    const now = new Date().toISOString();
    const record: BaselineRecord = {
      format: FORMAT,
      kind: "baseline",
      name: "cart-page",
      device,
      prompt: "the cart with 2 items",
      varying: [{ x: 0, y: 0, width: 10, height: 2 }],
      model: "test-double:scripted",
      reason: "shows the cart",
      imageSha256: sha256(image),
      storedAt: now,
      createdAt: now,
    };
    expect(BaselineRecordSchema.parse(record)).toEqual(record);
    expect(BaselineRecordSchema.safeParse({ ...record, kind: "tap" }).success).toBe(false);
  });
});

describe("readRecord / createRecord / replaceRecord", () => {
  test("a created record reads back with its image; JSON and PNG sit side by side", async () => {
    const image = await png("#00ff00");
    const record = tapRecord(image);
    expect(await createRecord(store, key, record, image)).toBe(true);
    const stored = await readRecord(store, key, TapRecordSchema);
    expect(stored?.record).toEqual(record);
    expect(stored?.image.equals(image)).toBe(true);
    expect(await store.list("taps")).toEqual([`${key}.json`, `${key}.png`]);
    const json = await fs.readFile(path.join(dir, "_ai_", `${key}.json`), "utf8");
    expect(JSON.parse(json)).toEqual(record);
    expect(json.endsWith("\n")).toBe(true);
  });

  test("nothing stored reads as null", async () => {
    expect(await readRecord(store, key, TapRecordSchema)).toBeNull();
  });

  test("createRecord never overwrites a stored record, nor its image", async () => {
    const first = await png("#00ff00");
    const second = await png("#ff0000");
    expect(await createRecord(store, key, tapRecord(first, 100), first)).toBe(true);
    expect(await createRecord(store, key, tapRecord(second, 300), second)).toBe(false);
    const stored = await readRecord(store, key, TapRecordSchema);
    expect(stored?.record.point.x).toBe(100);
    expect(stored?.image.equals(first)).toBe(true);
  });

  test("replaceRecord keeps <key>.previous.png and the previous value in the record", async () => {
    const oldImage = await png("#00ff00");
    const newImage = await png("#0000ff");
    const old = tapRecord(oldImage, 100);
    await createRecord(store, key, old, oldImage);
    const { imageSha256, storedAt, point, box, crop, model, reason } = old;
    const healed = {
      ...tapRecord(newImage, 300),
      previous: { imageSha256, storedAt, point, box, crop, model, reason },
    };
    await replaceRecord(store, key, healed, newImage, oldImage);

    const stored = await readRecord(store, key, TapRecordSchema);
    expect(stored?.record.point.x).toBe(300);
    expect(stored?.record.previous?.point.x).toBe(100);
    expect(stored?.image.equals(newImage)).toBe(true);
    const previousPng = await store.read(`${key}.previous.png`);
    expect(previousPng?.equals(oldImage)).toBe(true);
    expect(sha256(previousPng!)).toBe(stored?.record.previous?.imageSha256);
  });

  test("a heal whose writer died before the JSON still reads as the old, consistent pair", async () => {
    const oldImage = await png("#00ff00");
    const newImage = await png("#0000ff");
    await createRecord(store, key, tapRecord(oldImage, 100), oldImage);
    // replaceRecord's first two writes, without the third (the JSON commit point).
    await store.write(`${key}.previous.png`, oldImage);
    await store.write(`${key}.png`, newImage);
    const stored = await readRecord(store, key, TapRecordSchema);
    expect(stored?.record.point.x).toBe(100);
    expect(stored?.image.equals(oldImage)).toBe(true);
  });

  test("restorePrevious (a revert) is never torn: every step reads as the old or the restored value", async () => {
    const oldImage = await png("#00ff00");
    const newImage = await png("#0000ff");
    const old = tapRecord(oldImage, 100);
    await createRecord(store, key, old, oldImage);
    const { imageSha256, storedAt, point, box, crop, model, reason } = old;
    await replaceRecord(
      store,
      key,
      { ...tapRecord(newImage, 300), previous: { imageSha256, storedAt, point, box, crop, model, reason } },
      newImage,
      oldImage,
    );
    // Each write of restorePrevious in turn, reading after each one.
    const seen: number[] = [];
    const spy = new Proxy(store, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (prop !== "write" && prop !== "remove") return typeof value === "function" ? value.bind(target) : value;
        return async (...args: unknown[]) => {
          const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          seen.push((await readRecord(target, key, TapRecordSchema))!.record.point.x);
          return result;
        };
      },
    });
    expect(await restorePrevious(spy, key, old, oldImage)).toEqual([
      `${key}.json`,
      `${key}.png`,
      `${key}.previous.png`,
    ]);
    expect(seen).toEqual([100, 100, 100]);
    const stored = await readRecord(store, key, TapRecordSchema);
    expect(stored?.image.equals(oldImage)).toBe(true);
    expect(await store.read(`${key}.previous.png`)).toBeNull();
  });

  test("a PNG that does not match its record's SHA-256 is a StoreError that says how to fix it", async () => {
    const image = await png("#00ff00");
    await createRecord(store, key, tapRecord(image), image);
    await store.write(`${key}.png`, await png("#ff00ff"));
    const error = await readRecord(store, key, TapRecordSchema).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as StoreError).code).toBe("store");
    expect((error as Error).message).toMatch(/does not match its record \(SHA-256 differs\)/);
    expect((error as Error).message).toMatch(/Restore both files from git, or delete .*\.json to learn it again/);
  });

  test("a missing PNG is a StoreError", async () => {
    const image = await png("#00ff00");
    await createRecord(store, key, tapRecord(image), image);
    await store.remove(`${key}.png`);
    await expect(readRecord(store, key, TapRecordSchema)).rejects.toThrow(/\.png is missing/);
  });

  test("a record that is not JSON is a StoreError naming the file", async () => {
    await store.write(`${key}.json`, Buffer.from("{ not json"));
    await expect(readRecord(store, key, TapRecordSchema)).rejects.toThrow(
      new RegExp(`${key}\\.json is not valid JSON`),
    );
  });

  test("a record that fails the schema is a StoreError naming the field", async () => {
    const image = await png("#00ff00");
    const record = { ...tapRecord(image), format: 99 };
    await store.write(`${key}.png`, image);
    await store.write(`${key}.json`, Buffer.from(JSON.stringify(record)));
    const error = await readRecord(store, key, TapRecordSchema).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    expect((error as Error).message).toMatch(/is not a valid record: format:/);
    expect((error as Error).message).toMatch(/delete it to learn it again/);
  });
});
