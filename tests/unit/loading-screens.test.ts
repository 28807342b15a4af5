/**
 * Waiting that tells loading from change (docs/api.md "When a call fails"), through the Android and
 * iOS entries on the Appium driver double: a replayed tap whose settled screen is not the stored
 * one yet (a plain loading view), or is the stored one with a progress indicator in its page source
 * (UiAutomator2's android.widget.ProgressBar, XCUITest's XCUIElementTypeActivityIndicator), waits
 * and replays with no model call; the stored screen with its element restyled still fails at once;
 * a record stored before the screen thumbnail waits. Screens are real PNGs rendered by sharp.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import * as android from "../../src/android/index.js";
import * as ios from "../../src/ios/index.js";
import { parsePageSource } from "../../src/core/device/page-source-parse.js";
import { progressIndicator } from "../../src/core/device/element-queries.js";
import { readPageSource } from "../../src/core/device/page-source.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { compareThumbs, screenThumb, thumbGrid } from "../../src/core/pixels/screen-thumb.js";
import { decode } from "../../src/core/pixels/image-decode.js";
import { ScreenThumbSchema, TapRecordSchema } from "../../src/core/store/tap-record.js";
import { SAME_SCREEN_SHARE } from "../../src/core/flows/shared/stored-screen.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import {
  AppiumDriverDouble,
  asBrowser,
  uiautomator2Script,
  xcuitestScript,
  type DoubleFrame,
  type DoubleScript,
} from "../support/appium-driver-double.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

/** Longer than jest's test timeout: a call that waited for it would fail the test. */
const LONG = 300_000;
/**
 * An older record fails a change only at its timeout; the timeout leaves room for the grace and two settled
 * screenshots on a loaded machine, so the settled screen is weighed (and the reason recorded) before it ends.
 */
const OLD_RECORD_TIMEOUT = 10_000;
const PROMPT = "the checkout button";
/** Screenshots a loading screen is shown for: more than the settle rule's 2 shots and 1000 ms grace take at 200 ms. */
const LOADING_SHOTS = 14;

type Box = { x: number; y: number; width: number; height: number };
type Screen = "cart" | "restyled" | "busy" | "loading" | "skeleton";

/** A phone platform under test: its entry, its double's script, where Checkout is and how its driver serves the tree. */
interface Phone {
  name: "android" | "ios";
  api: typeof android | typeof ios;
  script: () => DoubleScript;
  size: { width: number; height: number };
  top: number;
  checkout: Box;
  /** The page source with the Checkout button and, when given, a progress indicator shown or hidden. */
  source: (parts: { checkout: boolean; progress?: "shown" | "hidden" }) => string;
  indicator: string;
}

const PIXEL_7: Phone = {
  name: "android",
  api: android,
  script: uiautomator2Script,
  size: { width: 1080, height: 2400 },
  top: 118,
  checkout: { x: 100, y: 2000, width: 880, height: 150 },
  indicator: "android.widget.ProgressBar",
  source: ({ checkout, progress }) =>
    `<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">` +
    `<node class="android.widget.FrameLayout" bounds="[0,0][1080,2400]" displayed="true">` +
    `<node class="android.widget.TextView" resource-id="com.shop:id/title" text="Your cart" bounds="[40,150][600,260]" displayed="true"/>` +
    (checkout
      ? `<node class="android.widget.Button" resource-id="com.shop:id/checkout" text="Checkout" bounds="[100,2000][980,2150]" displayed="true"/>`
      : "") +
    (progress
      ? `<node class="android.widget.ProgressBar" resource-id="com.shop:id/progress" bounds="[480,1140][600,1260]" displayed="${progress === "shown"}"/>`
      : "") +
    `</node></hierarchy>`,
};

const IPHONE_15_PRO: Phone = {
  name: "ios",
  api: ios,
  script: xcuitestScript,
  size: { width: 1179, height: 2556 },
  top: 162,
  checkout: { x: 120, y: 2100, width: 939, height: 150 },
  indicator: "XCUIElementTypeActivityIndicator",
  source: ({ checkout, progress }) =>
    `<?xml version="1.0" encoding="UTF-8"?><AppiumAUT>` +
    `<XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Shop" label="Shop" x="0" y="0" width="393" height="852" visible="true">` +
    `<XCUIElementTypeStaticText type="XCUIElementTypeStaticText" name="title" label="Your cart" x="16" y="62" width="200" height="30" visible="true"/>` +
    (checkout
      ? `<XCUIElementTypeButton type="XCUIElementTypeButton" name="checkout" label="Checkout" x="40" y="700" width="313" height="50" visible="true"/>`
      : "") +
    (progress
      ? `<XCUIElementTypeActivityIndicator type="XCUIElementTypeActivityIndicator" name="In progress" label="In progress" x="176" y="400" width="40" height="40" visible="${progress === "shown"}"/>`
      : "") +
    `</XCUIElementTypeApplication></AppiumAUT>`,
};

/** Lines of "text": thin dark bars, so a cell has texture as a row of words has. */
function textLines(x: number, y: number, width: number, lines: number): string {
  return Array.from({ length: lines }, (_, i) => {
    const w = Math.round(width * (0.9 - 0.2 * (i % 2)));
    return `<rect x="${x}" y="${y + i * 36}" width="${w}" height="14" fill="#374151"/>`;
  }).join("");
}

const rendered = new Map<string, Promise<string>>();
/**
 * A shop screen at the phone's size: an app bar, a balance card, a card of items and totals, and
 * Checkout (`cart`); Checkout recoloured in its place (`restyled`); Checkout gone and a still spinner
 * drawn (`busy`, animations off, as on test devices); the app bar over a plain "Loading" line (`loading`); or
 * the app bar and the cards with flat grey blocks where the text will be (`skeleton`).
 */
function screen(phone: Phone, kind: Screen): Promise<string> {
  const key = `${phone.name}:${kind}`;
  let png = rendered.get(key);
  if (!png) {
    const { width: W, height: H } = phone.size;
    const { x, y, width, height } = phone.checkout;
    const bar = `<rect x="0" y="${phone.top}" width="${W}" height="170" fill="#1d4ed8"/>${textLines(60, phone.top + 70, 300, 1)}`;
    const content =
      `<rect x="40" y="${phone.top + 220}" width="${W - 80}" height="200" rx="24" fill="#dbeafe"/>` +
      textLines(80, phone.top + 260, 420, 3) +
      `<rect x="40" y="${phone.top + 470}" width="${W - 80}" height="900" rx="24" fill="#ffffff"/>` +
      textLines(80, phone.top + 520, W - 200, 20);
    const button = (fill: string) =>
      `<rect x="${x}" y="${y}" width="${width}" height="${height}" rx="30" fill="${fill}"/>` +
      `<rect x="${x + width / 3}" y="${y + 55}" width="${width / 3}" height="40" fill="#ffffff"/>`;
    const skeleton =
      `<rect x="40" y="${phone.top + 220}" width="${W - 80}" height="200" rx="24" fill="#e5e7eb"/>` +
      `<rect x="40" y="${phone.top + 470}" width="${W - 80}" height="900" rx="24" fill="#ffffff"/>` +
      `<rect x="80" y="${phone.top + 520}" width="${W - 200}" height="700" rx="12" fill="#e5e7eb"/>`;
    const body =
      kind === "skeleton"
        ? bar + skeleton
        : kind === "loading"
          ? bar + `<rect x="${W / 2 - 100}" y="${H / 2}" width="200" height="24" fill="#6b7280"/>`
          : kind === "busy"
            ? bar +
              content +
              `<circle cx="${W / 2}" cy="${H / 2}" r="50" fill="none" stroke="#9ca3af" stroke-width="12"/>`
            : bar + content + button(kind === "restyled" ? "#7c3aed" : "#16a34a");
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><rect width="${W}" height="${H}" fill="#f3f4f7"/>${body}</svg>`;
    png = sharp(Buffer.from(svg))
      .png()
      .toBuffer()
      .then((b) => b.toString("base64"));
    rendered.set(key, png);
  }
  return png;
}

async function frame(phone: Phone, kind: Screen, progress?: "shown" | "hidden"): Promise<DoubleFrame> {
  const checkout = kind === "cart" || kind === "restyled";
  return { screenshotBase64: await screen(phone, kind), pageSource: phone.source({ checkout, progress }) };
}

let storageDir: string;
let logs: LogEntry[];
let channel: ScriptedChannel;

function configure(phone: Phone) {
  channel = new ScriptedChannel({
    locate: () => ({
      found: true,
      box: phone.checkout,
      reason: "the green button at the bottom",
      model: SCRIPTED_MODEL,
    }),
  });
  configureAi({
    channel,
    storageDir,
    mode: "auto",
    resultsDir: false,
    log: (entry) => logs.push(entry),
    reportArtifact: (a) => `memory://${a.name}`,
  });
}

/** A session on `phone` whose Checkout tap is learned on the cart. */
async function learned(phone: Phone): Promise<AppiumDriverDouble> {
  configure(phone);
  const script = phone.script();
  script.frames = [await frame(phone, "cart")];
  const driver = new AppiumDriverDouble(script);
  expect(await phone.api.tap(asBrowser(driver), PROMPT)).toMatchObject({ outcome: "learned", aiCalls: 1 });
  return driver;
}

/** Show `first` for {@link LOADING_SHOTS} screenshots, then the cart. */
async function loadingThenCart(driver: AppiumDriverDouble, phone: Phone, first: DoubleFrame) {
  driver.script.frames = [...Array.from({ length: LOADING_SHOTS }, () => first), await frame(phone, "cart")];
}

async function tapFile(): Promise<string> {
  const dir = path.join(storageDir, "_ai_", "apps", "com.example.shop", "taps");
  const [file] = (await fs.readdir(dir, { recursive: true })).filter((f) => f.endsWith(".json"));
  return path.join(dir, file!);
}

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-loading-"));
  logs = [];
});
afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

describe.each([PIXEL_7, IPHONE_15_PRO])("a replayed tap on $name", (phone) => {
  test("stores a thumbnail of the screen it was learned on", async () => {
    await learned(phone);
    const record = TapRecordSchema.parse(JSON.parse(await fs.readFile(await tapFile(), "utf8")));
    expect(record.screenThumb).toMatchObject({ cols: 12, rows: 24 });
  });

  test("a static plain loading view, then the cart: waited for and replayed with no model call", async () => {
    const driver = await learned(phone);
    await loadingThenCart(driver, phone, await frame(phone, "loading"));

    const result = await phone.api.tap(asBrowser(driver), PROMPT, { timeout: LONG });

    expect(result).toMatchObject({ outcome: "replayed", aiCalls: 0 });
    expect(channel.count()).toBe(1);
    expect(logs.at(-1)!.detail).toMatch(
      /not final, so it was waited for: it shares \d+% of its content with the stored screen, and the stored crop shows nowhere on it/,
    );
  });

  test("with autoHeal, a loading view does not go to the heal: replayed with no model call", async () => {
    const driver = await learned(phone);
    await loadingThenCart(driver, phone, await frame(phone, "loading"));

    const result = await phone.api.tap(asBrowser(driver), PROMPT, { autoHeal: true, timeout: LONG });

    expect(result).toMatchObject({ outcome: "replayed", aiCalls: 0 });
    expect(channel.count()).toBe(1);
  });

  test(`the stored screen without Checkout and a ${phone.indicator} in the page source: waited for and replayed`, async () => {
    const driver = await learned(phone);
    await loadingThenCart(driver, phone, await frame(phone, "busy", "shown"));

    const result = await phone.api.tap(asBrowser(driver), PROMPT, { timeout: LONG });

    expect(result).toMatchObject({ outcome: "replayed", aiCalls: 0 });
    expect(channel.count()).toBe(1);
    expect(logs.at(-1)!.detail).toContain(`the page source shows a progress indicator (${phone.indicator} at`);
  });

  test("Checkout restyled on the stored screen, a hidden indicator in the page source: fails once settled", async () => {
    const driver = await learned(phone);
    driver.script.frames = [await frame(phone, "restyled", "hidden")];

    const error = await phone.api.tap(asBrowser(driver), PROMPT, { timeout: LONG }).catch((e: unknown) => e);

    expect(error).toMatchObject({ code: "replay-mismatch" });
    expect((error as Error).message).toContain(
      "on a screen that had stopped changing (2 identical screenshots in a row)",
    );
    expect(channel.count()).toBe(1);
  });

  test("a record stored before the thumbnail: a loading view is waited for, a change fails at the timeout", async () => {
    const driver = await learned(phone);
    const file = await tapFile();
    const { screenThumb: _, ...older } = JSON.parse(await fs.readFile(file, "utf8"));
    await fs.writeFile(file, JSON.stringify(older));
    await loadingThenCart(driver, phone, await frame(phone, "loading"));
    expect(await phone.api.tap(asBrowser(driver), PROMPT, { timeout: LONG })).toMatchObject({ outcome: "replayed" });

    driver.script.frames = [await frame(phone, "restyled")];
    const error = await phone.api
      .tap(asBrowser(driver), PROMPT, { timeout: OLD_RECORD_TIMEOUT })
      .catch((e: unknown) => e);

    expect(error).toMatchObject({ code: "replay-mismatch" });
    expect((error as Error).message).toContain(
      "on a screen that had stopped changing but was waited for because the stored tap has no thumbnail of its screen",
    );
    expect(channel.count()).toBe(1);
  });
});

describe("what the rule reads", () => {
  const device = { platform: "android" as const, scale: 1, screen: { width: 1080, height: 2400 } };

  test("a progress indicator counts only when visible; a web page's HTML counts aria-busy and role=progressbar", async () => {
    const tree = async (progress: "shown" | "hidden") => ({
      elements: await parsePageSource(PIXEL_7.source({ checkout: true, progress }), device),
      ms: 1,
    });
    const shown = await tree("shown");
    const hidden = await tree("hidden");
    expect(progressIndicator(shown, "android")).toBe("android.widget.ProgressBar at (480, 1140)");
    expect(progressIndicator(hidden, "android")).toBeUndefined();

    const html = (body: string) =>
      readPageSource(async () => `<!doctype html><html><body>${body}</body></html>`, device);
    expect(progressIndicator(await html(`<div aria-busy="true" class="list"></div>`), "android")).toBe(
      `<div aria-busy="true" class="list">`,
    );
    expect(progressIndicator(await html(`<span role="progressbar"></span>`), "android")).toBe(
      `<span role="progressbar">`,
    );
    expect(progressIndicator(await html(`<div aria-busy="false"><button>Checkout</button></div>`), "android")).toBe(
      undefined,
    );
  });

  test("thumbnails: the restyled cart is recognised as the cart, the loading view and a skeleton are not", async () => {
    const area = { x: 0, y: PIXEL_7.top, width: 1080, height: 2400 - PIXEL_7.top - 63 };
    const thumb = async (kind: Screen) =>
      screenThumb(await decode(Buffer.from(await screen(PIXEL_7, kind), "base64")), area);
    const cart = await thumb("cart");
    const share = async (kind: Screen) => {
      const a = compareThumbs(cart, await thumb(kind), () => false);
      return a.alike / a.content;
    };
    expect(await share("cart")).toBe(1);
    expect(await share("restyled")).toBeGreaterThanOrEqual(SAME_SCREEN_SHARE);
    expect(await share("loading")).toBeLessThan(SAME_SCREEN_SHARE);
    expect(await share("skeleton")).toBeLessThan(SAME_SCREEN_SHARE);
  });

  test("a thumbnail's grid follows the orientation, and a stored one must hold a byte per cell", () => {
    expect(thumbGrid({ x: 0, y: 118, width: 1080, height: 2219 })).toEqual({ cols: 12, rows: 24 });
    expect(thumbGrid({ x: 0, y: 0, width: 2400, height: 1017 })).toEqual({ cols: 24, rows: 12 });
    const cells = (n: number) => Buffer.alloc(n, 7).toString("base64");
    expect(ScreenThumbSchema.safeParse({ cols: 2, rows: 3, grey: cells(6), texture: cells(6) }).success).toBe(true);
    const short = ScreenThumbSchema.safeParse({ cols: 2, rows: 3, grey: cells(6), texture: cells(5) });
    expect(short.success).toBe(false);
    expect(JSON.stringify(short.error?.issues)).toContain("one byte per cell");
  });
});
