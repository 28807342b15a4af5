/**
 * Whole pages as real apps show them (docs/api.md "Whole-page baselines"), on a device double that
 * scrolls a list drawn by sharp between a status bar, an app bar, a footer and a navigation bar:
 * - lossy frames: every screenshot goes through sharp's JPEG at a quality that changes from frame to
 *   frame, as an MJPEG stream (UiAutomator2 `appium:mjpegScreenshotUrl`) or WDA's `screenshotQuality`;
 * - pull to refresh: a drag down at the top past SwipeRefreshLayout's threshold (64 dp of pull at
 *   drag rate 0.5: 128 px of finger travel at density 1) refreshes the list, which then shows other rows;
 * - a collapsing header: the app bar is tall and clear at the top and, once scrolled, short and tinted
 *   (an iOS large title collapsing, a Material 3 app bar lifting);
 * - touches that start on the app bar or footer scroll nothing (they go to the bar, not the list);
 * - optionally the driver's own scroll with its answer (UiAutomator2 `mobile: scrollGesture`, which
 *   returns whether more can scroll in that direction: androidx UiObject2.scroll).
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import type { DeviceAdapter, DeviceSession, DriverScroll, Swipe } from "../../src/core/device/description.js";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { decode, type RawImage } from "../../src/core/pixels/image-decode.js";
import { encodePng } from "../../src/core/pixels/image-encode.js";
import { BaselineRecordSchema } from "../../src/core/store/baseline-record.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

const WIDTH = 120;
const ROW = 20;

interface Layout {
  width: number;
  height: number;
  status: number;
  nav: number;
  /** The app bar at the top of the list, and once scrolled (equal: a bar that does not change). */
  header: { top: number; scrolled: number };
  footer: number;
}

const PORTRAIT: Layout = {
  width: WIDTH,
  height: 400,
  status: 12,
  nav: 8,
  header: { top: 30, scrolled: 30 },
  footer: 24,
};

async function drawn(svg: string): Promise<RawImage> {
  return decode(await sharp(Buffer.from(svg)).png().toBuffer());
}

/** `rows` list rows of their own colour and length; `seed` changes them all (a refresh). */
async function listBody(rows: number, seed = 0): Promise<RawImage> {
  const rects = Array.from(
    { length: rows },
    (_, i) =>
      `<rect x="4" y="${i * ROW + 3}" width="${20 + (((i + seed) * 29) % 90)}" height="${ROW - 6}" ` +
      `fill="hsl(${((i + seed) * 53) % 360},60%,45%)"/>`,
  ).join("");
  return drawn(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${rows * ROW}"><rect width="100%" height="100%" fill="#fff"/>${rects}</svg>`,
  );
}

async function bar(height: number, colour: string): Promise<RawImage> {
  if (height === 0) return { data: Buffer.alloc(0), width: WIDTH, height: 0 };
  return drawn(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}"><rect width="100%" height="100%" fill="${colour}"/>` +
      `<rect x="8" y="${Math.floor(height / 3)}" width="40" height="${Math.max(1, Math.floor(height / 3))}" fill="#445"/></svg>`,
  );
}

function rows(image: RawImage, y0: number, y1: number): Buffer {
  return image.data.subarray(y0 * image.width * 4, y1 * image.width * 4);
}

/** A list app as the double shows it. */
class ListApp {
  offset = 0;
  swipes: Swipe[] = [];
  scrolls: { scroll: DriverScroll; more: boolean }[] = [];
  refreshes = 0;
  screenshots = 0;
  /** JPEG qualities the screenshots cycle through; empty: lossless. */
  jpeg: number[] = [];
  pullToRefresh = false;

  private constructor(
    readonly layout: Layout,
    public body: RawImage,
    readonly parts: { status: RawImage; top: RawImage; scrolled: RawImage; footer: RawImage; nav: RawImage },
  ) {}

  static async create(layout: Layout, listRows: number): Promise<ListApp> {
    return new ListApp(layout, await listBody(listRows), {
      status: await bar(layout.status, "#0f3d91"),
      top: await bar(layout.header.top, "#f4f4f8"),
      scrolled: await bar(layout.header.scrolled, "#ffc83d"),
      footer: await bar(layout.footer, "#1c1f26"),
      nav: await bar(layout.nav, "#eeeeee"),
    });
  }

  private headerHeight() {
    return this.offset > 0 ? this.layout.header.scrolled : this.layout.header.top;
  }
  private band() {
    const { height, status, nav, footer } = this.layout;
    return height - status - nav - footer - this.headerHeight();
  }
  get maxOffset() {
    const { height, status, nav, footer, header } = this.layout;
    return this.body.height - (height - status - nav - footer - header.scrolled);
  }

  screen(): RawImage {
    const header = this.offset > 0 ? this.parts.scrolled : this.parts.top;
    const { status, footer, nav } = this.parts;
    const list = rows(this.body, this.offset, this.offset + this.band());
    const data = Buffer.concat([status.data, header.data, list, footer.data, nav.data]);
    return { data, width: WIDTH, height: this.layout.height };
  }

  /** The page as it should be stored: the bars once, the header as the top shows it, the list whole. */
  whole(): RawImage {
    const { status, top, footer, nav } = this.parts;
    const data = Buffer.concat([status.data, top.data, this.body.data, footer.data, nav.data]);
    return { data, width: WIDTH, height: data.length / (WIDTH * 4) };
  }

  async screenshot(): Promise<Buffer> {
    const quality = this.jpeg[this.screenshots++ % Math.max(1, this.jpeg.length)];
    const raw = this.screen();
    if (quality === undefined) return encodePng(raw);
    const jpeg = await sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: 4 } })
      .jpeg({ quality })
      .toBuffer();
    return sharp(jpeg).png().toBuffer();
  }

  /** A finger from `from` to `to`: the list follows it unless the touch starts on a bar. */
  async swipe(swipe: Swipe) {
    this.swipes.push(swipe);
    await this.drag(swipe.from.y, swipe.to.y);
  }

  private async drag(fromY: number, toY: number) {
    const { status, height, nav, footer } = this.layout;
    const listTop = status + this.headerHeight();
    if (fromY < listTop || fromY >= height - nav - footer) return;
    const wanted = this.offset + (fromY - toY);
    // SwipeRefreshLayout: the drag past the top pulls the spinner at half the finger's speed; 64 px refreshes.
    if (this.pullToRefresh && wanted < 0 && -wanted * 0.5 >= 64) {
      this.refreshes++;
      this.body = await listBody(this.body.height / ROW, 7 * this.refreshes);
    }
    this.offset = Math.max(0, Math.min(this.maxOffset, wanted));
  }

  /** `mobile: scrollGesture`: a drag of `share` of the area, answering whether more can scroll that way. */
  async scrollGesture(scroll: DriverScroll) {
    const travel = scroll.share * scroll.area.height;
    const centre = scroll.area.y + scroll.area.height / 2;
    const [fromY, toY] =
      scroll.direction === "down"
        ? [centre + travel / 2, centre - travel / 2]
        : [centre - travel / 2, centre + travel / 2];
    await this.drag(fromY, toY);
    const more = scroll.direction === "down" ? this.offset < this.maxOffset : this.offset > 0;
    this.scrolls.push({ scroll, more });
    return { more };
  }
}

function adapterOf(app: ListApp, { landscape = false, right = 0, scrollSignal = false } = {}): DeviceAdapter {
  const { width, height, status, nav } = app.layout;
  const session: DeviceSession = {
    describe: async () => ({
      platform: "android",
      model: "List Double",
      osVersion: "14",
      screen: { width, height },
      scale: 1,
      insets: { top: status, bottom: nav, left: 0, right },
      orientation: landscape ? "landscape" : "portrait",
    }),
    screenshot: () => app.screenshot(),
    tap: async () => {},
    swipe: (swipe) => app.swipe(swipe),
    ...(scrollSignal ? { scrollAndTell: (scroll: DriverScroll) => app.scrollGesture(scroll) } : {}),
  };
  return { platform: "android", open: () => session };
}

let storageDir: string;
let logs: LogEntry[];
let channel: ScriptedChannel;

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-full-page-apps-"));
  logs = [];
  channel = new ScriptedChannel({
    judge: () => ({ accept: true, reason: "scripted: the list", model: SCRIPTED_MODEL }),
  });
  configureAi({ channel, storageDir, mode: "auto", log: (e) => logs.push(e), resultsDir: false });
});

afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

async function storedPage(name: string): Promise<RawImage> {
  const dir = path.join(storageDir, "_ai_", "screenshots", "android", name);
  // One key: list-double_14, with the orientation when landscape.
  const [json] = (await fs.readdir(dir)).filter((f) => f.endsWith(".json"));
  const file = path.join(dir, json!.replace(/\.json$/, ""));
  BaselineRecordSchema.parse(JSON.parse(await fs.readFile(`${file}.json`, "utf8")));
  return decode(await fs.readFile(`${file}.png`));
}

/** The largest mean channel difference of one row between two images of one size. */
function worstRowDifference(a: RawImage, b: RawImage): number {
  let worst = 0;
  const stride = a.width * 4;
  for (let y = 0; y < a.height; y++) {
    let sum = 0;
    for (let i = y * stride; i < (y + 1) * stride; i++) if (i % 4 !== 3) sum += Math.abs(a.data[i]! - b.data[i]!);
    worst = Math.max(worst, sum / (a.width * 3));
  }
  return worst;
}

test("JPEG frames of changing quality settle and stitch: the page is as tall as the real one and row for row close to it", async () => {
  const app = await ListApp.create(PORTRAIT, 40);
  app.jpeg = [50, 80, 65];
  app.offset = 300;
  const ai = createPlatformApi(adapterOf(app));
  expect(await ai.expect({}).toMatchScreenshot("jpeg", "the list", { fullPage: true })).toMatchObject({
    outcome: "stored",
  });
  const page = await storedPage("jpeg");
  const whole = app.whole();
  expect([page.width, page.height]).toEqual([whole.width, whole.height]);
  // The page is as close to the real one as one JPEG frame of it at the lowest quality: no row from a wrong offset.
  const jpeg = await sharp(await encodePng(whole))
    .jpeg({ quality: 50 })
    .toBuffer();
  const noise = worstRowDifference(await decode(await sharp(jpeg).png().toBuffer()), whole);
  expect(worstRowDifference(page, whole)).toBeLessThanOrEqual(noise * 1.25);
  expect(logs.map((e) => e.detail ?? "").join("\n")).not.toMatch(/did not settle/);
  expect(app.offset).toBe(app.maxOffset);
});

test("a pull-to-refresh list at its top is taken without refreshing: one short probe, no swipe back", async () => {
  const app = await ListApp.create(PORTRAIT, 40);
  app.pullToRefresh = true;
  const ai = createPlatformApi(adapterOf(app));
  await ai.expect({}).toMatchScreenshot("feed", "the list", { fullPage: true });
  expect(app.refreshes).toBe(0);
  expect((await storedPage("feed")).data.equals(app.whole().data)).toBe(true);
  // The only swipe towards the top is the probe, under the 128 px that refreshes.
  const back = app.swipes.filter((s) => s.to.y > s.from.y);
  expect(back).toHaveLength(1);
  expect(back[0]!.to.y - back[0]!.from.y).toBeLessThan(128);
  expect(logs.map((e) => e.detail ?? "").join("\n")).not.toMatch(/scrolled to the top/);

  // Compared again from the top: the first screen shows the stored page's top, so not even the probe is made.
  configureAi({ channel, storageDir, mode: "replay", log: (e) => logs.push(e), resultsDir: false });
  app.offset = 0;
  const swipesBefore = app.swipes.length;
  expect(await ai.expect({}).toMatchScreenshot("feed", "the list", { fullPage: true })).toMatchObject({
    outcome: "matched",
    aiCalls: 0,
  });
  expect(app.swipes.slice(swipesBefore).filter((s) => s.to.y > s.from.y)).toEqual([]);
  expect(app.refreshes).toBe(0);

  // The scroll tap's swipe back (half the content area) at the top would have refreshed this list.
  app.offset = 0;
  await app.swipe({ from: { x: 60, y: 107 }, to: { x: 60, y: 297 }, durationMs: 800 });
  expect(app.refreshes).toBe(1);
});

test("a header that turns tinted and shorter once scrolled is a header of its own: the page keeps the top's", async () => {
  const app = await ListApp.create({ ...PORTRAIT, header: { top: 56, scrolled: 30 } }, 40);
  app.offset = 200;
  const ai = createPlatformApi(adapterOf(app));
  await ai.expect({}).toMatchScreenshot("collapsing", "the list", { fullPage: true });
  const page = await storedPage("collapsing");
  expect(page.height).toBe(app.whole().height);
  expect(page.data.equals(app.whole().data)).toBe(true);
});

test("a landscape screen with 40% of its content area in bars stitches, its swipes inside the band", async () => {
  // Content area 232 px high; app bar 50 + footer 43 = 40% of it. Half the area per swipe would leave
  // 16% of the 139 px band overlapping, under the stitcher's 20%.
  const layout: Layout = {
    width: WIDTH,
    height: 240,
    status: 8,
    nav: 0,
    header: { top: 50, scrolled: 50 },
    footer: 43,
  };
  const app = await ListApp.create(layout, 30);
  app.offset = 150;
  const ai = createPlatformApi(adapterOf(app, { landscape: true, right: 0 }));
  await ai.expect({}).toMatchScreenshot("landscape", "the list", { fullPage: true });
  const page = await storedPage("landscape");
  expect(page.data.equals(app.whole().data)).toBe(true);
  const band = { y0: layout.status + 50, y1: layout.height - layout.footer };
  const down = app.swipes.filter((s) => s.to.y < s.from.y);
  for (const s of down.slice(1)) {
    expect(s.from.y).toBeLessThan(band.y1);
    expect(s.to.y).toBeGreaterThanOrEqual(band.y0);
    expect(s.from.y - s.to.y).toBeLessThanOrEqual(0.6 * (band.y1 - band.y0) + 1);
  }
});

test("with the driver's scroll answer, the page ends at the scroll that says so, with no swipe that moves nothing", async () => {
  const app = await ListApp.create(PORTRAIT, 40);
  app.offset = 300;
  const ai = createPlatformApi(adapterOf(app, { scrollSignal: true }));
  await ai.expect({}).toMatchScreenshot("signal", "the list", { fullPage: true });
  expect((await storedPage("signal")).data.equals(app.whole().data)).toBe(true);
  const downs = app.scrolls.filter((s) => s.scroll.direction === "down");
  const ups = app.scrolls.filter((s) => s.scroll.direction === "up");
  // Each scroll but the last said more; none was made after the driver said the end (or the top).
  expect(downs.map((s) => s.more)).toEqual([...downs.slice(0, -1).map(() => true), false]);
  expect(ups.at(-1)?.more).toBe(false);
  expect(ups.slice(0, -1).every((s) => s.more)).toBe(true);
});
