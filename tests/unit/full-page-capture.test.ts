/**
 * Taking a whole page through the engine (docs/api.md "Whole-page baselines"), on a device
 * double that scrolls a tall list drawn by sharp behind a fixed status bar, app bar, total bar and
 * navigation bar: a swipe moves the list by the finger's travel, clamped at both ends, as a
 * scroll view that does not bounce. It shows the page stored exactly, the end of the page found
 * by a swipe that moves nothing, and the `maxScreens` and `maxHeight` cuts.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import type { DeviceAdapter, DeviceSession, Swipe } from "../../src/core/device/description.js";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { decode, type RawImage } from "../../src/core/pixels/image-decode.js";
import { encodePng } from "../../src/core/pixels/image-encode.js";
import { acceptFailure, failuresOf } from "../../src/cli/review/accept-failed.js";
import { lastRun, readRuns } from "../../src/cli/runs.js";
import { FileStore } from "../../src/core/store/file-store.js";
import { BaselineRecordSchema } from "../../src/core/store/baseline-record.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

const WIDTH = 120;
const HEIGHT = 400;
const STATUS = 12;
const APP_BAR = 30;
const TOTAL_BAR = 24;
const NAV = 8;
/** The list's visible rows on one screen. */
const BAND = HEIGHT - STATUS - APP_BAR - TOTAL_BAR - NAV;
const ROW = 20;
/** How far one swipe scrolls: half the content area between the system bars (src/core/device/swipe-geometry.ts). */
const SHIFT = (HEIGHT - STATUS - NAV) / 2;
/** The first swipe down moves a quarter of it (src/core/flows/screenshot/page-scroll.ts). */
const FIRST_SHIFT = (HEIGHT - STATUS - NAV) / 4;

/** A scroll view over `body`, between fixed bars; `offset` is how far it is scrolled. */
class ScrollingPage {
  offset = 0;
  swipes = 0;
  constructor(
    readonly body: RawImage,
    readonly bars: { status: RawImage; appBar: RawImage; totalBar: RawImage; nav: RawImage },
  ) {}
  get maxOffset() {
    return this.body.height - BAND;
  }
  /** The whole page as it should be stored: the bars once, the list whole. */
  whole(): RawImage {
    const { status, appBar, totalBar, nav } = this.bars;
    const data = Buffer.concat([status.data, appBar.data, this.body.data, totalBar.data, nav.data]);
    return { data, width: WIDTH, height: data.length / (WIDTH * 4) };
  }
  screen(): RawImage {
    const { status, appBar, totalBar, nav } = this.bars;
    const stride = WIDTH * 4;
    const list = this.body.data.subarray(this.offset * stride, (this.offset + BAND) * stride);
    return {
      data: Buffer.concat([status.data, appBar.data, list, totalBar.data, nav.data]),
      width: WIDTH,
      height: HEIGHT,
    };
  }
  /** Set to redraw the list on every swipe, as content that loads or animates while it scrolls. */
  changesOnSwipe = false;
  swipe({ from, to }: Swipe) {
    this.swipes++;
    if (this.changesOnSwipe) {
      for (let i = 0; i < this.body.data.length; i += 4) this.body.data[i] = 255 - this.body.data[i]!;
    }
    this.offset = Math.max(0, Math.min(this.maxOffset, this.offset + (from.y - to.y)));
  }
}

async function drawn(svg: string): Promise<RawImage> {
  return decode(await sharp(Buffer.from(svg)).png().toBuffer());
}

async function scrollingPage(rows: number): Promise<ScrollingPage> {
  const rects = Array.from(
    { length: rows },
    (_, i) =>
      `<rect x="4" y="${i * ROW + 3}" width="${20 + ((i * 29) % 90)}" height="${ROW - 6}" fill="hsl(${(i * 53) % 360},60%,45%)"/>`,
  ).join("");
  const body = await drawn(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${rows * ROW}"><rect width="100%" height="100%" fill="#fff"/>${rects}</svg>`,
  );
  const bar = (height: number, colour: string) =>
    drawn(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}"><rect width="100%" height="100%" fill="${colour}"/><rect x="8" y="${height / 3}" width="40" height="${height / 3}" fill="#fff"/></svg>`,
    );
  return new ScrollingPage(body, {
    status: await bar(STATUS, "#0f3d91"),
    appBar: await bar(APP_BAR, "#ffc83d"),
    totalBar: await bar(TOTAL_BAR, "#1c1f26"),
    nav: await bar(NAV, "#eeeeee"),
  });
}

/** An adapter whose every driver is `page`, described as a small Android phone. */
function scrollingAdapter(page: ScrollingPage): DeviceAdapter {
  const session: DeviceSession = {
    describe: async () => ({
      platform: "android",
      model: "Scrolling Double",
      osVersion: "14",
      screen: { width: WIDTH, height: HEIGHT },
      scale: 1,
      insets: { top: STATUS, bottom: NAV, left: 0, right: 0 },
      orientation: "portrait",
    }),
    screenshot: () => encodePng(page.screen()),
    tap: async () => {},
    swipe: async (swipe) => page.swipe(swipe),
  };
  return { platform: "android", open: () => session };
}

let storageDir: string;
let logs: LogEntry[];
let channel: ScriptedChannel;

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-full-page-capture-"));
  logs = [];
  channel = new ScriptedChannel({
    judge: () => ({ accept: true, reason: "scripted: the list", model: SCRIPTED_MODEL }),
  });
});

afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

function configure(mode: "auto" | "replay" | "update") {
  configureAi({ channel, storageDir, mode, log: (e) => logs.push(e), resultsDir: false });
}

async function storedPage(name: string) {
  const file = path.join(storageDir, "_ai_", "screenshots", "android", name, "scrolling-double_14");
  const record = BaselineRecordSchema.parse(JSON.parse(await fs.readFile(`${file}.json`, "utf8")));
  return { record, image: await decode(await fs.readFile(`${file}.png`)) };
}

test("a page left scrolled is taken from its top to its end, stored exactly, and matches again with no model call", async () => {
  const page = await scrollingPage(40);
  page.offset = 300;
  configure("auto");
  const ai = createPlatformApi(scrollingAdapter(page));
  const stored = await ai.expect({}).toMatchScreenshot("list", "the list", { fullPage: true });
  expect(stored).toMatchObject({ outcome: "stored", aiCalls: 1 });
  // The judge saw the whole page.
  const judged = channel.requests.find((r) => r.kind === "judge");
  expect(judged && "screen" in judged ? [judged.screen.width, judged.screen.height] : []).toEqual([
    WIDTH,
    page.whole().height,
  ]);
  const { record, image } = await storedPage("list");
  expect(image.data.equals(page.whole().data)).toBe(true);
  expect(record.fullPage).toEqual({
    screens: Math.ceil((page.maxOffset - FIRST_SHIFT) / SHIFT) + 2,
    height: image.height,
  });
  expect(logs.at(-1)?.detail).toContain("to the end of the page");

  configure("replay");
  page.offset = 123;
  const swipesBefore = page.swipes;
  const again = await ai.expect({}).toMatchScreenshot("list", "the list", { fullPage: true });
  expect(again).toMatchObject({ outcome: "matched", aiCalls: 0, diffPixels: 0 });
  expect(channel.count()).toBe(1);
  expect(page.swipes).toBeGreaterThan(swipesBefore);
});

test("maxScreens and maxHeight cut a long page where they say, and the log says so", async () => {
  const page = await scrollingPage(200);
  configure("auto");
  const ai = createPlatformApi(scrollingAdapter(page));
  await ai.expect({}).toMatchScreenshot("first-three", "the list", { fullPage: { maxScreens: 3 } });
  const three = await storedPage("first-three");
  expect(three.record.fullPage?.screens).toBe(3);
  expect(three.image.height).toBe(HEIGHT + FIRST_SHIFT + SHIFT);
  expect(logs.at(-1)?.detail).toContain("cut at fullPage.maxScreens");

  await ai.expect({}).toMatchScreenshot("tall", "the list", { fullPage: { maxHeight: 1000 } });
  const tall = await storedPage("tall");
  expect(tall.image.height).toBeLessThanOrEqual(1000);
  expect(tall.image.height).toBeGreaterThan(1000 - SHIFT);
  expect(logs.at(-1)?.detail).toContain("cut at fullPage.maxHeight");
  // What it stored is the top of the page, as it is.
  const top = page.whole().data.subarray(0, (tall.image.height - TOTAL_BAR - NAV) * WIDTH * 4);
  expect(tall.image.data.subarray(0, top.length).equals(top)).toBe(true);
});

test("maxHeight below one screen is refused before anything is swiped", async () => {
  const page = await scrollingPage(40);
  configure("auto");
  const ai = createPlatformApi(scrollingAdapter(page));
  await expect(
    ai.expect({}).toMatchScreenshot("short", "the list", { fullPage: { maxHeight: HEIGHT - 1 } }),
  ).rejects.toThrow(/fullPage.maxHeight 399 is less than one 120x400 screen; give at least 400/);
  expect(page.swipes).toBe(0);
});

test("content that changes while it scrolls cannot be stitched: a device error naming the screens, nothing stored", async () => {
  const page = await scrollingPage(40);
  page.changesOnSwipe = true;
  configure("auto");
  const ai = createPlatformApi(scrollingAdapter(page));
  const error = await ai
    .expect({})
    .toMatchScreenshot("moving", "the list", { fullPage: true })
    .catch((e: unknown) => e);
  expect(error).toMatchObject({ code: "device" });
  expect((error as Error).message).toMatch(
    /the page could not be stitched: screen 2 does not continue screen 1: .*Whole-page baselines/,
  );
  expect(channel.count()).toBe(0);
  await expect(fs.readdir(path.join(storageDir, "_ai_", "screenshots", "android", "moving"))).rejects.toThrow();
});

test("a whole-page check on a single screen's name is a clear error, not a mismatch", async () => {
  const page = await scrollingPage(40);
  configure("auto");
  const ai = createPlatformApi(scrollingAdapter(page));
  expect(await ai.expect({}).toMatchScreenshot("screen", "the list")).toMatchObject({ outcome: "stored" });
  const error = await ai
    .expect({})
    .toMatchScreenshot("screen", "the list", { fullPage: true })
    .catch((e: unknown) => e);
  expect(error).toMatchObject({ code: "input" });
  expect((error as Error).message).toMatch(/is a single screen, so a whole page cannot be compared with it/);
});

test("mode update stores a changed page in place, a whole page still, pending review, with no model call", async () => {
  const page = await scrollingPage(40);
  configure("auto");
  const ai = createPlatformApi(scrollingAdapter(page));
  await ai.expect({}).toMatchScreenshot("orders", "the list", { fullPage: true });
  const before = await storedPage("orders");
  // 90 pixels of one row on the third screen change colour: list row 600, page row 642.
  const stride = WIDTH * 4;
  page.body.data.fill(0, 600 * stride + 40, 600 * stride + 400);

  configure("replay");
  const failed = await ai
    .expect({})
    .toMatchScreenshot("orders", "the list", { fullPage: true, maxDiffPixels: 10 })
    .catch((e: unknown) => e);
  expect(failed).toMatchObject({ code: "screenshot-mismatch" });
  const [, y0, y1] = /screen 3 of 4, y (\d+)-(\d+) of the page: 90 pixels differ/
    .exec((failed as Error).message)!
    .map(Number);
  expect(y0).toBeLessThanOrEqual(STATUS + APP_BAR + 600);
  expect(y1).toBeGreaterThanOrEqual(STATUS + APP_BAR + 600);
  expect(y1! - y0!).toBeLessThan(16);

  configure("update");
  const updated = await ai.expect({}).toMatchScreenshot("orders", "the list", { fullPage: true, maxDiffPixels: 10 });
  expect(updated).toMatchObject({ outcome: "updated", aiCalls: 0, diffPixels: 90 });
  const after = await storedPage("orders");
  expect(after.record.fullPage).toEqual(before.record.fullPage);
  expect(after.image.data.equals(page.whole().data)).toBe(true);
  expect(after.record).toMatchObject({ model: "tapshot mode update (no model)", review: { state: "pending" } });
  expect(after.record.previous?.imageSha256).toBe(before.record.imageSha256);
  expect(channel.count("judge")).toBe(1);
  expect(channel.count()).toBe(1);
});

test("accept --failed turns a page's failure into the stored page, and the next run matches with no model call", async () => {
  const page = await scrollingPage(40);
  const resultsDir = path.join(storageDir, "results");
  const withResults = (mode: "auto" | "replay") => configureAi({ channel, storageDir, mode, log: false, resultsDir });
  const options = { fullPage: true, maxDiffPixels: 10 };
  withResults("auto");
  const ai = createPlatformApi(scrollingAdapter(page));
  await ai.expect({}).toMatchScreenshot("orders", "the list", options);
  const before = await storedPage("orders");
  const stride = WIDTH * 4;
  page.body.data.fill(0, 600 * stride + 40, 600 * stride + 400);
  withResults("replay");
  await expect(ai.expect({}).toMatchScreenshot("orders", "the list", options)).rejects.toMatchObject({
    code: "screenshot-mismatch",
  });

  const { baselines } = failuresOf(lastRun(await readRuns(resultsDir)));
  expect(baselines).toHaveLength(1);
  const { run, entry } = baselines[0]!;
  const by = { name: "Tess Reviewer", at: new Date().toISOString() };
  expect(await acceptFailure(new FileStore(storageDir), run, entry, by)).toMatchObject({ action: "accepted" });
  const after = await storedPage("orders");
  expect(after.record.fullPage).toEqual(before.record.fullPage);
  expect(after.image.data.equals(page.whole().data)).toBe(true);
  expect(after.record.previous?.imageSha256).toBe(before.record.imageSha256);

  const calls = channel.count();
  const again = await ai.expect({}).toMatchScreenshot("orders", "the list", options);
  expect(again).toMatchObject({ outcome: "matched", aiCalls: 0, diffPixels: 0 });
  expect(channel.count()).toBe(calls);
});

test("autoHeal: the model compares the pages; a restyle becomes the baseline, a real change fails and keeps it", async () => {
  const page = await scrollingPage(40);
  configure("auto");
  const ai = createPlatformApi(scrollingAdapter(page));
  await ai.expect({}).toMatchScreenshot("healed", "the list", { fullPage: true });
  const before = await storedPage("healed");
  const stride = WIDTH * 4;
  page.body.data.fill(0, 600 * stride + 40, 600 * stride + 400);

  let realChange = true;
  channel.script.compare = (request) => {
    // The model sees both whole pages and their diff.
    expect([request.screen.height, request.baseline.height, request.diff.height]).toEqual([
      before.image.height,
      before.image.height,
      before.image.height,
    ]);
    return {
      realChange,
      reason: realChange ? "scripted: a row went black" : "scripted: restyled",
      model: SCRIPTED_MODEL,
    };
  };
  const rejected = await ai
    .expect({})
    .toMatchScreenshot("healed", "the list", { fullPage: true, maxDiffPixels: 10, autoHeal: true })
    .catch((e: unknown) => e);
  expect(rejected).toMatchObject({ code: "rejected" });
  expect((rejected as Error).message).toMatch(/screen 3 of 4, .*found it a real change: scripted: a row went black/);
  expect((await storedPage("healed")).record.imageSha256).toBe(before.record.imageSha256);

  realChange = false;
  const healed = await ai
    .expect({})
    .toMatchScreenshot("healed", "the list", { fullPage: true, maxDiffPixels: 10, autoHeal: true });
  expect(healed).toMatchObject({ outcome: "healed", aiCalls: 1, diffPixels: 90 });
  const after = await storedPage("healed");
  expect(after.image.data.equals(page.whole().data)).toBe(true);
  expect(after.record).toMatchObject({
    fullPage: before.record.fullPage,
    model: SCRIPTED_MODEL,
    review: { state: "pending" },
  });
  expect(channel.count("compare")).toBe(2);
});
