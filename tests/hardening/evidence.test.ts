/**
 * Promises about the device's evidence (docs/guarantees.md): what the device sends (a page source,
 * a screenshot) is checked before anything is tapped or compared on it. A page source with absurd
 * numbers, a PNG whose pixels only libvips decodes right, a screenshot that is not one: never a tap,
 * never a verdict from it.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { crc32 } from "node:zlib";
import sharp from "sharp";
import { elementAt, findElement } from "../../src/core/device/element-queries.js";
import { readPageSource } from "../../src/core/device/page-source.js";
import type { PageSourceDevice } from "../../src/core/device/page-source-parse.js";
import type { AiChannel } from "../../src/core/model/contract.js";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { InputError } from "../../src/core/ground/errors.js";
import { comparePng } from "../../src/core/pixels/image-compare.js";
import { decode, decodeRegion, imageSize } from "../../src/core/pixels/image-decode.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { checkoutScene, FakeDevice, fakeAdapter, fakeDriver } from "../support/fake-device.js";
import { locateOnDevice, ScriptedChannel } from "../support/scripted-channel.js";

const api = createPlatformApi(fakeAdapter());

const PIXEL_8: PageSourceDevice = { platform: "android", scale: 2.625, screen: { width: 1080, height: 2400 } };
const IPHONE_15: PageSourceDevice = { platform: "ios", scale: 3, screen: { width: 1179, height: 2556 } };
const HUGE = "9".repeat(400);

describe("page source bounds", () => {
  test.each([
    ["a right edge past a double's range (Infinity)", `[40,2000][${HUGE},2156]`],
    ["both edges past a double's range (NaN width)", `[-${HUGE},2000][${HUGE},2156]`],
  ])("UiAutomator2 bounds with %s drop the element, never give a tap point", async (_, bounds) => {
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">' +
      `<node class="android.widget.Button" resource-id="com.shop:id/checkout" text="Checkout" displayed="true" bounds="${bounds}"/>` +
      `<node class="android.widget.TextView" resource-id="com.shop:id/total" text="Total" displayed="true" bounds="[40,400][1040,500]"/>` +
      "</hierarchy>";
    const reading = await readPageSource(async () => xml, PIXEL_8);
    if (!("elements" in reading)) throw new Error(`skipped: ${reading.skipped}`);
    expect(reading.elements.map((e) => e.attributes["resource-id"])).toEqual(["com.shop:id/total"]);
    expect(findElement(reading.elements, { attributes: { "resource-id": "com.shop:id/checkout" } }, "android")).toEqual(
      { kind: "none" },
    );
  });

  test('a view Espresso marks hidden (visible="false", its only visibility flag) is dropped', async () => {
    // appium-espresso-driver's SourceDocument.kt: one tag per view named after its class, `visible` from
    // ViewElement.isVisible (ViewMatchers.isDisplayed()), `bounds` from Rect.toShortString(), no `displayed`.
    const view = (id: string, visible: boolean, bounds: string) =>
      `<android.widget.Button index="0" package="com.shop" class="android.widget.Button" content-desc="" ` +
      `checkable="false" clickable="true" enabled="true" focusable="true" visible="${visible}" bounds="${bounds}" ` +
      `text="Checkout" hint="false" resource-id="com.shop:id/${id}" view-index="1"/>`;
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?><android.widget.FrameLayout index="0" package="com.shop" ' +
      'class="android.widget.FrameLayout" visible="true" bounds="[0,0][1080,2400]" view-index="0">' +
      view("checkout_hidden", false, "[40,2000][1040,2156]") +
      view("checkout", true, "[40,1800][1040,1956]") +
      "</android.widget.FrameLayout>";
    const reading = await readPageSource(async () => xml, PIXEL_8);
    if (!("elements" in reading)) throw new Error(`skipped: ${reading.skipped}`);
    const ids = reading.elements.map((e) => e.attributes["resource-id"]).filter(Boolean);
    expect(ids).toEqual(["com.shop:id/checkout"]);
  });

  test("on iOS a name that is only the label (no accessibility identifier) does not count as an id", async () => {
    // WebDriverAgent's name is the identifier when set, else the label (XCUIElement+FBWebDriverAttributes.m).
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?><AppiumAUT><XCUIElementTypeApplication type="XCUIElementTypeApplication" ' +
      'name="Shop" label="Shop" x="0" y="0" width="393" height="852" visible="true">' +
      '<XCUIElementTypeButton type="XCUIElementTypeButton" name="pay_button" label="Pay" visible="true" x="20" y="700" width="353" height="60">' +
      '<XCUIElementTypeStaticText type="XCUIElementTypeStaticText" name="Pay" label="Pay" visible="true" x="40" y="710" width="200" height="40"/>' +
      "</XCUIElementTypeButton></XCUIElementTypeApplication></AppiumAUT>";
    const reading = await readPageSource(async () => xml, IPHONE_15);
    if (!("elements" in reading)) throw new Error(`skipped: ${reading.skipped}`);
    const text = reading.elements.find((e) => e.attributes.type === "XCUIElementTypeStaticText");
    expect(text?.attributes).toEqual({ label: "Pay", type: "XCUIElementTypeStaticText" });
    // The user tapped the text inside the button: the button, which has a real identifier, is what is stored.
    const tapped = elementAt(reading.elements, { x: 300, y: 2200 }, "ios", IPHONE_15.screen);
    expect(tapped?.attributes.name).toBe("pay_button");
  });

  test("XCUITest sizes that overflow once scaled to pixels drop the element", async () => {
    const xml =
      '<?xml version="1.0" encoding="UTF-8"?><AppiumAUT><XCUIElementTypeApplication type="XCUIElementTypeApplication" ' +
      'name="Shop" x="0" y="0" width="393" height="852" visible="true">' +
      '<XCUIElementTypeButton type="XCUIElementTypeButton" name="checkout" label="Checkout" visible="true" ' +
      'x="-1e308" y="700" width="1.5e308" height="52"/>' +
      "</XCUIElementTypeApplication></AppiumAUT>";
    const reading = await readPageSource(async () => xml, IPHONE_15);
    if (!("elements" in reading)) throw new Error(`skipped: ${reading.skipped}`);
    expect(reading.elements.map((e) => e.attributes.name)).toEqual(["Shop"]);
    for (const { bounds } of reading.elements) expect(Object.values(bounds).every(Number.isFinite)).toBe(true);
  });
});

/** A PNG chunk: length, type, data, CRC (https://www.w3.org/TR/png-3/#5Chunk-layout). */
function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** The IDAT chunks' data of `png`, joined: its zlib stream. */
function zlibStream(png: Buffer): Buffer {
  const parts: Buffer[] = [];
  for (let at = 8; at < png.length; at += 12 + png.readUInt32BE(at)) {
    if (png.toString("latin1", at + 4, at + 8) === "IDAT")
      parts.push(png.subarray(at + 8, at + 8 + png.readUInt32BE(at)));
  }
  return Buffer.concat(parts);
}

/**
 * `png` with its zlib stream cut at `fraction` of its length, in one IDAT chunk with a right CRC and an IEND
 * after it: every chunk is whole, so only inflating finds the cut.
 */
function zlibCutAt(png: Buffer, fraction: number): Buffer {
  const stream = zlibStream(png);
  return Buffer.concat([
    png.subarray(0, 33),
    chunk("IDAT", stream.subarray(0, Math.floor(stream.length * fraction))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** `png` with its IHDR saying `width` x `height` (and its CRC made right again, so only the size is wrong). */
function withDeclaredSize(png: Buffer, width: number, height: number): Buffer {
  const forged = Buffer.from(png);
  forged.writeUInt32BE(width, 16);
  forged.writeUInt32BE(height, 20);
  forged.writeUInt32BE(crc32(forged.subarray(12, 29)), 29);
  return forged;
}

/** `png` with `extra` right after its IHDR chunk (the signature and IHDR take 33 bytes). */
const afterHeader = (png: Buffer, extra: Buffer) => Buffer.concat([png.subarray(0, 33), extra, png.subarray(33)]);

describe("PNG chunks that change decoded pixels", () => {
  /** The checkout screen sent as an RGB PNG whose tRNS chunk makes its white background transparent. */
  class TransparentWhiteDevice extends FakeDevice {
    override async screenshot(): Promise<Buffer> {
      const rgb = await sharp(await super.screenshot())
        .removeAlpha()
        .png()
        .toBuffer();
      return afterHeader(rgb, chunk("tRNS", Buffer.from([0, 255, 0, 255, 0, 255])));
    }
  }

  afterEach(() => resetAi());

  test("a tap learned on a screen sent with a tRNS chunk replays on the identical screen", async () => {
    const storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-evidence-"));
    try {
      const device = new TransparentWhiteDevice(checkoutScene());
      const configure = (channel: AiChannel) =>
        configureAi({ channel, storageDir, resultsDir: false, log: () => undefined, reportArtifact: () => undefined });
      configure(new ScriptedChannel({ locate: locateOnDevice(device) }));
      expect((await api.tap(fakeDriver(device), "the checkout button")).outcome).toBe("learned");
      configure({ request: () => Promise.reject(new Error("a replay on the identical screen asks no model")) });
      const replay = await api.tap(fakeDriver(device), "the checkout button", { autoHeal: false, timeout: 5000 });
      expect(replay.outcome).toBe("replayed");
    } finally {
      await fs.rm(storageDir, { recursive: true, force: true });
    }
  });

  test.each([
    ["tRNS", Buffer.from([0, 10, 0, 20, 0, 30])],
    ["gAMA", Buffer.from([0, 1, 0x86, 0xa0])],
    ["sRGB", Buffer.from([0])],
    ["cHRM", Buffer.alloc(32, 1)],
    ["sBIT", Buffer.from([5, 6, 5])],
    ["bKGD", Buffer.from([0, 255, 0, 0, 0, 0])],
    ["cICP", Buffer.from([12, 13, 0, 1])],
    ["eXIf", Buffer.from("4d4d002a00000008000101120003000000010006000000000000", "hex")],
  ])("an RGB PNG with a %s chunk decodes to the pixels libvips gives", async (type, data) => {
    const width = 16;
    const height = 8;
    const raw = Buffer.alloc(width * height * 3, 0);
    for (let i = 0; i < raw.length; i++) raw[i] = (i * 37) % 256;
    raw.set([10, 20, 30], 0);
    const plain = await sharp(raw, { raw: { width, height, channels: 3 } })
      .png()
      .toBuffer();
    const png = afterHeader(plain, chunk(type, data));
    const libvips = await sharp(png).ensureAlpha().raw().toBuffer();
    expect(Buffer.compare((await decode(png)).data, libvips)).toBe(0);
    const rect = { x: 2, y: 3, width: 5, height: 4 };
    const region = await sharp(png).extract({ left: 2, top: 3, width: 5, height: 4 }).ensureAlpha().raw().toBuffer();
    expect(Buffer.compare((await decodeRegion(png, rect)).data, region)).toBe(0);
  });
});

describe("a screenshot that is not one", () => {
  /** The checkout screen, spoiled by `spoil` on its way from the device. */
  class SpoiledDevice extends FakeDevice {
    constructor(private readonly spoil: (png: Buffer) => Buffer) {
      super(checkoutScene());
    }
    override async screenshot(): Promise<Buffer> {
      return this.spoil(await super.screenshot());
    }
  }
  const withHeaderSize = (png: Buffer) => withDeclaredSize(png, 60000, 60000);
  const cutInHalf = (png: Buffer) => png.subarray(0, Math.floor(png.length / 2));
  let storageDir: string;

  beforeEach(async () => {
    storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-evidence-"));
  });
  afterEach(async () => {
    resetAi();
    await fs.rm(storageDir, { recursive: true, force: true });
  });

  test.each([
    ["a header claiming 60000x60000 pixels", withHeaderSize, /its header says 60000x60000 pixels/],
    ["a file cut off inside its pixel data", cutInHalf, /it is cut off after \d+ bytes, inside its "IDAT" chunk/],
    // Whole chunks, so the structural check passes: found while inflating.
    [
      "a zlib stream cut at 40%",
      (png: Buffer) => zlibCutAt(png, 0.4),
      /its compressed pixel data is cut off or corrupt/,
    ],
  ])("%s is a DeviceError saying the device sent a bad screenshot", async (_, spoil, problem) => {
    const device = new SpoiledDevice(spoil);
    configureAi({
      channel: new ScriptedChannel({ locate: locateOnDevice(device) }),
      storageDir,
      resultsDir: false,
      log: () => undefined,
      reportArtifact: () => undefined,
    });
    const error = (await api.tap(fakeDriver(device), "the checkout button").catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ code: "device", message: expect.stringMatching(problem) });
    expect(error.message).toMatch(/^The device sent a bad screenshot: /);
    expect(device.taps).toEqual([]);
  });
});

describe("an image passed to tapshot/images that cannot be decoded", () => {
  let screen: Buffer;
  beforeAll(async () => {
    // A whole phone screen whose rows do not compress to nothing, so 40% of its stream ends well above its last row.
    const [width, height] = [1179, 2556];
    const raw = Buffer.alloc(width * height * 3);
    for (let i = 0; i < raw.length; i++) raw[i] = (i * 37 + (i >> 12)) % 256;
    screen = await sharp(raw, { raw: { width, height, channels: 3 } })
      .png()
      .toBuffer();
  });
  const bottomRows = { x: 0, y: 2400, width: 100, height: 100 };

  test.each([
    [
      "a header declaring 60000x60000 pixels",
      () => withDeclaredSize(screen, 60000, 60000),
      /its header says 60000x60000 pixels/,
    ],
    [
      "a zlib stream cut at 40%",
      () => zlibCutAt(screen, 0.4),
      /its compressed pixel data is cut off or corrupt \(libvips: /,
    ],
  ])("%s is an InputError saying what is wrong and how to fix it, from every entry", async (_, spoiled, problem) => {
    const png = spoiled();
    const entries: [string, () => Promise<unknown>][] = [
      ["decode", () => decode(png)],
      ["decodeRegion", () => decodeRegion(png, bottomRows)],
      ["comparePng", () => comparePng(png, screen)],
    ];
    for (const [name, run] of entries) {
      const error = (await run().catch((e: unknown) => e)) as Error;
      expect([name, error]).toEqual([name, expect.any(InputError)]);
      expect(error).toMatchObject({ code: "input", message: expect.stringMatching(problem) });
      expect(error.message).toMatch(/^The 1179x2556 PNG|^The 60000x60000 PNG/);
      expect(error.message).toMatch(/Pass a whole PNG: a device's screenshot taken again/);
    }
  });

  test("the declared size is refused from the header: libvips is never asked to decode it", async () => {
    const png = withDeclaredSize(screen, 60000, 60000);
    const error = (await imageSize(png).catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(InputError);
    // libvips' own refusal says "Input image exceeds pixel limit"; this one comes before it is called.
    expect(error.cause).toBeUndefined();
  });
});
