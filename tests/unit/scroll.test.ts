/**
 * Scroll taps below the engine (docs/api.md "Scrolling to find"): the swipe geometry per
 * platform and orientation, the W3C payload the Appium adapters send, the scroll option's
 * checks, the crop search along the scroll axis, a session that cannot swipe, and a `within`
 * prompt the model does not find or locates too small.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { androidAdapter } from "../../src/android/adapter.js";
import { iosAdapter } from "../../src/ios/adapter.js";
import type { AiAnswers } from "../../src/core/model/contract.js";
import type { DeviceDescription } from "../../src/core/device/description.js";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { decode } from "../../src/core/pixels/image-decode.js";
import { findAlong } from "../../src/core/pixels/crop-along.js";
import { scrollRegion, swipeFor } from "../../src/core/device/swipe-geometry.js";
import { checkScroll } from "../../src/core/flows/tap/scroll/options.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { AppiumDriverDouble, uiautomator2Script, xcuitestScript } from "../support/appium-driver-double.js";
import { engineSessions } from "../support/engine-sessions.js";
import { checkoutScene, FakeDevice, fakeAdapter, fakeDriver } from "../support/fake-device.js";
import { ScriptedChannel } from "../support/scripted-channel.js";

const pixel7: Pick<DeviceDescription, "screen" | "insets"> = {
  screen: { width: 1080, height: 2400 },
  insets: { top: 118, bottom: 63, left: 0, right: 0 },
};
const iphone15Pro: Pick<DeviceDescription, "screen" | "insets"> = {
  screen: { width: 1179, height: 2556 },
  insets: { top: 162, bottom: 102, left: 0, right: 0 },
};
const iphoneLandscape: Pick<DeviceDescription, "screen" | "insets"> = {
  screen: { width: 2556, height: 1179 },
  insets: { top: 0, bottom: 63, left: 0, right: 0 },
};

describe("swipe geometry", () => {
  test("scrolling down on a Pixel 7 moves the finger up the middle, over half the screen between the bars", () => {
    const region = scrollRegion(pixel7);
    expect(region).toEqual({ x: 0, y: 118, width: 1080, height: 2219 });
    expect(swipeFor(region, "down")).toEqual({ from: { x: 540, y: 1782 }, to: { x: 540, y: 673 }, durationMs: 800 });
    expect(swipeFor(region, "up")).toEqual({ from: { x: 540, y: 673 }, to: { x: 540, y: 1782 }, durationMs: 800 });
  });

  test("on an iPhone the swipe ends a quarter of the content away from the home indicator", () => {
    const { from, to } = swipeFor(scrollRegion(iphone15Pro), "down");
    const contentBottom = 2556 - 102;
    expect(from.y).toBe(Math.round(162 + (contentBottom - 162) * 0.75));
    expect(contentBottom - from.y).toBeGreaterThan(500);
    expect(to.y).toBe(Math.round(162 + (contentBottom - 162) * 0.25));
  });

  test("sideways swipes in landscape keep a quarter of the width from each edge (Android's back gestures)", () => {
    const region = scrollRegion(iphoneLandscape);
    const right = swipeFor(region, "right");
    expect(right).toEqual({ from: { x: 1917, y: 558 }, to: { x: 639, y: 558 }, durationMs: 800 });
    expect(swipeFor(region, "left")).toEqual({ from: right.to, to: right.from, durationMs: 800 });
  });

  test("within names the region, clipped to the screen outside the bars", () => {
    expect(scrollRegion(pixel7, { x: 40, y: 0, width: 1000, height: 600 })).toEqual({
      x: 40,
      y: 118,
      width: 1000,
      height: 482,
    });
    expect(swipeFor(scrollRegion(pixel7, { x: 40, y: 300, width: 1000, height: 600 }), "right")).toEqual({
      from: { x: 790, y: 600 },
      to: { x: 290, y: 600 },
      durationMs: 800,
    });
  });
});

describe("swipes through the Appium adapters", () => {
  const swipeMoves = (driver: AppiumDriverDouble) => {
    const [pointer] = driver.actions.at(-1) as [{ actions: Record<string, unknown>[] }];
    return pointer.actions;
  };

  test("Android: press, hold, move over 800 ms, hold, release, in pixels; then releaseActions", async () => {
    const android = engineSessions(androidAdapter);
    const driver = new AppiumDriverDouble(uiautomator2Script());
    await android.describe(driver, () => {});
    await android.swipe(driver, { from: { x: 540, y: 1782 }, to: { x: 540, y: 673 }, durationMs: 800 });
    expect(swipeMoves(driver)).toEqual([
      { type: "pointerMove", duration: 0, origin: "viewport", x: 540, y: 1782 },
      { type: "pointerDown", button: 0 },
      { type: "pause", duration: 200 },
      { type: "pointerMove", duration: 800, origin: "viewport", x: 540, y: 673 },
      { type: "pause", duration: 200 },
      { type: "pointerUp", button: 0 },
    ]);
    expect(driver.calls.slice(-2)).toEqual(["performActions", "releaseActions"]);
  });

  test("iOS: the same swipe in points, portrait and landscape", async () => {
    const ios = engineSessions(iosAdapter);
    const portrait = new AppiumDriverDouble(xcuitestScript());
    await ios.describe(portrait, () => {});
    await ios.swipe(portrait, swipeFor(scrollRegion(iphone15Pro), "down"));
    const moves = swipeMoves(portrait);
    expect([moves[0]!.x, moves[0]!.y, moves[3]!.x, moves[3]!.y]).toEqual([197, 627, 197, 245]);

    const landscape = new AppiumDriverDouble(xcuitestScript({ orientation: "landscape" }));
    await ios.describe(landscape, () => {});
    await ios.swipe(landscape, swipeFor(scrollRegion(iphoneLandscape), "right"));
    const sideways = swipeMoves(landscape);
    expect([sideways[0]!.x, sideways[0]!.y, sideways[3]!.x, sideways[3]!.y]).toEqual([639, 186, 213, 186]);
  });
});

describe("the scroll option", () => {
  test("true scrolls down up to 5 times from where the list is", () => {
    expect(checkScroll(true)).toEqual({ direction: "down", maxSwipes: 5, within: undefined, fromStart: false });
    expect(checkScroll(undefined)).toBeUndefined();
  });

  test("within may be a prompt naming the region, kept as given for the model to locate", () => {
    expect(checkScroll({ direction: "right", within: "the product list" })).toEqual({
      direction: "right",
      maxSwipes: 5,
      within: "the product list",
      fromStart: false,
    });
  });

  test.each([
    [{ direction: "sideways" }, /scroll.direction must be one of down, up, left, right/],
    [{ maxSwipes: 0 }, /scroll.maxSwipes must be a whole number from 1 to 50/],
    [{ maxSwipes: 2.5 }, /scroll.maxSwipes/],
    [{ within: { x: 0, y: 0, width: 0, height: 10 } }, /scroll.within must be a box in screenshot pixels/],
    [{ within: "" }, /scroll.within must be a box or a prompt naming the scrollable region.*got an empty string/],
    [{ within: "   " }, /scroll.within must be a box or a prompt/],
    [{ within: 42 }, /or a prompt naming the region, e.g. "the product list"; got 42/],
    [{ fromStart: "yes" }, /scroll.fromStart must be true or false/],
    [{ maxswipes: 3 }, /unknown option "maxswipes"; known: direction, maxSwipes, within, fromStart/],
    ["down", /scroll must be true or an object/],
  ])("%j is refused: %p", (value, message) => {
    expect(() => checkScroll(value)).toThrow(message);
  });
});

describe("finding the stored crop along the scroll axis", () => {
  /** A 200x600 screen of grey stripes with a red bar (the element) at `y`. */
  async function screen(y: number) {
    const bar = await sharp({ create: { width: 160, height: 40, channels: 4, background: "#d22" } })
      .png()
      .toBuffer();
    const stripe = await sharp({ create: { width: 200, height: 8, channels: 4, background: "#888" } })
      .png()
      .toBuffer();
    const stripes = Array.from({ length: 20 }, (_, i) => ({ input: stripe, left: 0, top: i * 30 }));
    return decode(
      await sharp({ create: { width: 200, height: 600, channels: 4, background: "#fff" } })
        .composite([...stripes, { input: bar, left: 20, top: y }])
        .png()
        .toBuffer(),
    );
  }
  const rule = { threshold: 0.1, maxDiffRatio: 0.01 };
  const crop = { x: 16, y: 306, width: 168, height: 48 };
  const region = { x: 0, y: 0, width: 200, height: 600 };

  async function storedCrop() {
    const learned = await screen(310);
    const data = Buffer.alloc(crop.width * crop.height * 4);
    for (let row = 0; row < crop.height; row++) {
      const start = ((crop.y + row) * learned.width + crop.x) * 4;
      learned.data.copy(data, row * crop.width * 4, start, start + crop.width * 4);
    }
    return { data, width: crop.width, height: crop.height };
  }

  test("at its stored place, then 30 px lower and 60 px higher (a row more or fewer)", async () => {
    const expected = await storedCrop();
    expect(await findAlong({ expected, crop, screen: await screen(310), axis: "y", region, verdict: rule })).toEqual({
      shift: 0,
      diffRatio: 0,
    });
    expect(
      await findAlong({ expected, crop, screen: await screen(340), axis: "y", region, verdict: rule }),
    ).toMatchObject({ shift: 30 });
    expect(
      await findAlong({ expected, crop, screen: await screen(250), axis: "y", region, verdict: rule }),
    ).toMatchObject({ shift: -60 });
  });

  test("not at all when the element is not on the screen", async () => {
    const expected = await storedCrop();
    expect(
      await findAlong({ expected, crop, screen: await screen(700), axis: "y", region, verdict: rule }),
    ).toBeUndefined();
  });
});

describe("a session without swipe", () => {
  let storageDir: string;
  beforeEach(async () => {
    storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-scroll-"));
  });
  afterEach(async () => {
    resetAi();
    await fs.rm(storageDir, { recursive: true, force: true });
  });

  test("gets a clear error when scroll is used, and no tap is made", async () => {
    const device = new FakeDevice(checkoutScene());
    const channel = new ScriptedChannel({
      locate: () => ({ found: false, reason: "scripted: not on this screen", model: "test-double:scripted" }),
    });
    configureAi({ channel, storageDir, mode: "auto", log: () => {}, resultsDir: false });
    const ai = createPlatformApi(fakeAdapter());
    await expect(ai.tap(fakeDriver(device), "the checkout button", { scroll: true })).rejects.toThrow(
      /scroll option and whole-page baselines \(fullPage\) need a device session that can swipe.*Add swipe\(swipe\) to the adapter's DeviceSession/,
    );
    expect(device.taps).toEqual([]);
  });
});

describe("within as a prompt the model cannot use", () => {
  let storageDir: string;
  beforeEach(async () => {
    storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-scroll-within-"));
  });
  afterEach(async () => {
    resetAi();
    await fs.rm(storageDir, { recursive: true, force: true });
  });

  async function tapWithin(region: AiAnswers["locate"]) {
    const device = new FakeDevice(checkoutScene());
    const prompts: string[] = [];
    const channel = new ScriptedChannel({
      locate: (request) => {
        prompts.push(request.prompt);
        return region;
      },
    });
    configureAi({ channel, storageDir, mode: "auto", log: () => {}, resultsDir: false });
    const base = fakeAdapter();
    // A session that can swipe; the region fails before any swipe is made.
    const adapter = { ...base, open: (driver: unknown) => ({ ...base.open(driver), swipe: async () => {} }) };
    const ai = createPlatformApi(adapter);
    const error = await ai
      .tap(fakeDriver(device), "the checkout button", { scroll: { within: "the product list" } })
      .catch((e: unknown) => e);
    return { error, prompts, taps: device.taps };
  }

  test("a region not found is a not-found naming the prompt, and nothing is tapped", async () => {
    const { error, prompts, taps } = await tapWithin({
      found: false,
      reason: "scripted: no list here",
      model: "test-double:scripted",
    });
    expect(error).toMatchObject({ code: "not-found" });
    expect((error as Error).message).toMatch(
      /scroll.within "the product list".*did not find the region: scripted: no list/,
    );
    expect(prompts).toEqual(["the product list"]);
    expect(taps).toEqual([]);
  });

  test("a region too short to swipe in is an input error naming the prompt and the box", async () => {
    const box = { x: 0, y: 600, width: 400, height: 40 };
    const { error, prompts, taps } = await tapWithin({
      found: true,
      box,
      reason: "scripted",
      model: "test-double:scripted",
    });
    expect(error).toMatchObject({ code: "input" });
    expect((error as Error).message).toMatch(
      /scroll.within "the product list".*located \{"x":0,"y":600,"width":400,"height":40\}, \d+ px tall.*too small to swipe down in/,
    );
    expect(prompts).toEqual(["the product list"]);
    expect(taps).toEqual([]);
  });
});
