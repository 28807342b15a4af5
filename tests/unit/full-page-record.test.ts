/**
 * Whole-page baselines below the device (docs/api.md "Whole-page baselines", docs/storage.md):
 * the `fullPage` option's checks, a stored page's tall PNG read against its record, and the
 * fingerprint a page's heal and its revert share.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import type { DeviceDescription } from "../../src/core/device/description.js";
import { checkScreenshotInput } from "../../src/core/flows/screenshot/input.js";
import { decode } from "../../src/core/pixels/image-decode.js";
import { FileStore } from "../../src/core/store/file-store.js";
import { BaselineRecordSchema, type BaselineRecord } from "../../src/core/store/baseline-record.js";
import { FORMAT } from "../../src/core/store/record-format.js";
import { createRecord, readRecord, sha256 } from "../../src/core/store/record-io.js";
import { baselineFingerprint } from "../../src/core/store/rejections.js";

const device: DeviceDescription = {
  platform: "android",
  model: "Google Pixel 7",
  osVersion: "14",
  screen: { width: 108, height: 240 },
  scale: 2.625,
  insets: { top: 12, bottom: 6, left: 0, right: 0 },
  orientation: "portrait",
};

describe("the fullPage option", () => {
  const check = (fullPage: unknown, extra: object = {}) =>
    checkScreenshotInput("orders", "the order history", { fullPage, ...extra }).params.fullPage;

  test("true takes 10 screens and 20000 px at most; an object sets either", () => {
    expect(check(true)).toEqual({ maxScreens: 10, maxHeight: 20_000 });
    expect(check({ maxScreens: 4 })).toEqual({ maxScreens: 4, maxHeight: 20_000 });
    expect(check({ maxHeight: 8000 })).toEqual({ maxScreens: 10, maxHeight: 8000 });
    expect(check(undefined)).toBeUndefined();
    expect(check(false)).toBeUndefined();
  });

  test.each([
    ["yes", /fullPage must be true or an object/],
    [{ maxscreens: 3 }, /unknown option "maxscreens"; known: maxScreens, maxHeight/],
    [{ maxScreens: 1 }, /maxScreens must be a whole number from 2 to 30, e\.g\. 10; got 1/],
    [{ maxScreens: 2.5 }, /maxScreens must be a whole number/],
    [{ maxHeight: 0 }, /maxHeight must be a whole number of pixels/],
  ])("%j is refused, saying what is expected", (value, message) => {
    expect(() => check(value)).toThrow(message);
  });

  test("selector and prompt masks name places on one screen and are refused with fullPage; boxes are kept", () => {
    expect(() => check(true, { mask: ["~price"] })).toThrow(/fullPage takes masks as boxes in page pixels only/);
    expect(() => check(true, { mask: [{ prompt: "the date" }] })).toThrow(/boxes in page pixels only/);
    const box = { x: 0, y: 3000, width: 100, height: 40 };
    expect(checkScreenshotInput("orders", "the order history", { fullPage: true, mask: [box] }).params.mask).toEqual([
      box,
    ]);
  });
});

describe("a stored page", () => {
  let dir: string;
  let store: FileStore;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-full-page-"));
    store = new FileStore(dir);
  });
  afterEach(async () => {
    await fs.rm(dir, { recursive: true, force: true });
  });

  const key = "screenshots/android/orders/google-pixel-7_14";
  const page = (height: number) =>
    sharp({ create: { width: 108, height, channels: 4, background: "#3366cc" } })
      .png()
      .toBuffer();
  const record = (image: Buffer, fullPage?: BaselineRecord["fullPage"]): BaselineRecord => {
    const now = new Date().toISOString();
    return {
      format: FORMAT,
      kind: "baseline",
      name: "orders",
      device,
      prompt: "the order history",
      varying: [],
      model: "test",
      reason: "test",
      imageSha256: sha256(image),
      storedAt: now,
      createdAt: now,
      ...(fullPage ? { fullPage } : {}),
    };
  };

  test("a page's tall PNG reads with its record, which keeps fullPage", async () => {
    const image = await page(700);
    await createRecord(store, key, record(image, { screens: 4, height: 700 }), image);
    const stored = await readRecord(store, key, BaselineRecordSchema);
    expect(stored?.record.fullPage).toEqual({ screens: 4, height: 700 });
    expect(stored?.image.equals(image)).toBe(true);
  });

  test("a tall PNG under a record without fullPage, or of another height, is refused, never compared", async () => {
    const image = await page(700);
    await createRecord(store, key, record(image), image);
    await expect(readRecord(store, key, BaselineRecordSchema)).rejects.toThrow(
      /is 108x700 but its record says 108x240/,
    );
    const other = "screenshots/android/other/google-pixel-7_14";
    await createRecord(store, other, record(image, { screens: 4, height: 680 }), image);
    await expect(readRecord(store, other, BaselineRecordSchema)).rejects.toThrow(/108x700 but its record says 108x680/);
  });
});

test("a page's fingerprint leaves out its status bar at the top and its navigation bar at the bottom", async () => {
  const rows = (colours: string[]) =>
    sharp({ create: { width: 108, height: 700, channels: 4, background: colours[0]! } })
      .composite(
        colours.slice(1).map((c, i) => ({
          input: { create: { width: 108, height: 6, channels: 4 as const, background: c } },
          top: [0, 694, 300][i]!,
          left: 0,
        })),
      )
      .png()
      .toBuffer()
      .then(decode);
  const a = await rows(["#ffffff", "#000000", "#000000"]);
  // The clock and the navigation bar differ: the same page.
  const b = await rows(["#ffffff", "#ff0000", "#00ff00"]);
  // A row in the middle of the page differs: another page.
  const c = await rows(["#ffffff", "#000000", "#000000", "#0000ff"]);
  expect(baselineFingerprint(a, device)).toBe(baselineFingerprint(b, device));
  expect(baselineFingerprint(a, device)).not.toBe(baselineFingerprint(c, device));
});
