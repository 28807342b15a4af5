/**
 * Whole-page baselines (docs/api.md "Whole-page baselines") end to end: a real Appium 3 server
 * driving Chromium as a Pixel 7 on the rig's long order list (demo/app/long-pages.ts), between a
 * sticky app bar and a sticky total bar, with the real gemini() provider against the Gemini wire
 * double. The list is taken from its top with swipes sized to its scrolling band (a quarter of the content area
 * first, then 60% of the band) and stitched into one baseline.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { RENAMED_ROW } from "../../demo/app/long-pages.js";
import { BaselineRecordSchema, type BaselineRecord } from "../../src/core/store/baseline-record.js";
import { decode, type RawImage } from "../../src/core/pixels/image-decode.js";
import type { WireDouble } from "../../rig/model-doubles/index.js";
import { pixel7 } from "../../rig/profiles.js";
import type { Rig, RigSession } from "../../rig/session.js";
import type { DomKnowledge } from "../support/dom-knowledge.js";
import { configureRig, useRigAndDouble } from "../support/rig-double.js";

const KEY = "e2e-test-key-not-secret";
const NAME = "order-history";
const PROMPT = "the order history, from the first order to the last, with the total bar";
/** Orders listed: the renamed one is on the fourth screen on a Pixel 7 (the first swipe moves a quarter of the content area). */
const ROWS = 26;
const KEY_PATH = ["_ai_", "apps", "127.0.0.1", "screenshots", "android", NAME, "google-pixel-7_14"];

let rig: Rig;
let double: WireDouble;
let phone: RigSession;
let storageDir: string;

let knowledge: DomKnowledge;

useRigAndDouble(KEY, (parts) => ({ rig, double, knowledge } = parts));

beforeAll(async () => {
  phone = await rig.session(pixel7);
  knowledge.session = phone;
  storageDir = await mkdtemp(join(tmpdir(), "tapshot-e2e-full-page-"));
}, 120_000);

afterAll(async () => {
  if (storageDir) await rm(storageDir, { recursive: true, force: true });
});

function configure(mode: "auto" | "replay") {
  configureRig(double, KEY, {
    storageDir,
    mode,
  });
}

async function stored(): Promise<{ record: BaselineRecord; image: RawImage }> {
  const file = join(storageDir, ...KEY_PATH);
  const record = BaselineRecordSchema.parse(JSON.parse(await readFile(`${file}.json`, "utf8")));
  return { record, image: await decode(await readFile(`${file}.png`)) };
}

/** How many times rows `[y0, y1)` of `screen` appear, in a row, in `page`. */
function occurrences(page: RawImage, screen: RawImage, y0: number, y1: number): number {
  const stride = page.width * 4;
  const row = (img: RawImage, y: number) => img.data.subarray(y * stride, (y + 1) * stride);
  let found = 0;
  for (let at = 0; at + (y1 - y0) <= page.height; at++) {
    let y = y0;
    while (y < y1 && row(page, at + y - y0).equals(row(screen, y))) y++;
    if (y === y1) found++;
  }
  return found;
}

/** What the page's DOM says, in screenshot pixels: the list's scroll height and a row's top and bottom in it. */
async function listGeometry(row: number) {
  return phone.driver.execute((testid) => {
    const list = document.querySelector('[data-testid="order-list"]')!;
    const item = document.querySelector(`[data-testid="${testid}"]`)!;
    const listTop = list.getBoundingClientRect().top;
    const box = item.getBoundingClientRect();
    return {
      ratio: window.devicePixelRatio,
      listTop,
      clientHeight: list.clientHeight,
      scrollHeight: list.scrollHeight,
      rowTop: box.top - listTop + list.scrollTop,
      rowBottom: box.bottom - listTop + list.scrollTop,
    };
  }, `order-${row}`);
}

test("a long list stitches into one baseline, its sticky app bar and total bar once", async () => {
  configure("auto");
  await phone.open("long-list", { seed: 1, rows: ROWS });
  const before = double.received.length;
  const result = await phone.ai
    .expect(phone.driver)
    .toMatchScreenshot(NAME, PROMPT, { fullPage: true, timeout: 60_000 });
  expect(result).toMatchObject({ outcome: "stored", aiCalls: 1 });
  expect(double.received.slice(before).map((r) => r.kind)).toEqual(["judge"]);

  const { record, image } = await stored();
  const screen = await decode(await phone.driver.takeScreenshot().then((b64) => Buffer.from(b64, "base64")));
  expect(record.fullPage?.screens).toBeGreaterThanOrEqual(3);
  expect(record.fullPage?.height).toBe(image.height);
  expect(image.width).toBe(screen.width);
  // The whole list is there: the page is one screen with the list's visible part replaced by all of it.
  const geometry = await listGeometry(1);
  const extra = (geometry.scrollHeight - geometry.clientHeight) * geometry.ratio;
  expect(Math.abs(image.height - (screen.height + extra))).toBeLessThanOrEqual(3);

  // The app bar (56 CSS px below the status bar) and the total bar (56 CSS px above the navigation bar) appear once.
  const bar = Math.round(56 * geometry.ratio) - 2;
  const top = Math.ceil(pixel7.bars.top * geometry.ratio) + 1;
  const bottom = Math.floor((pixel7.height - pixel7.bars.bottom) * geometry.ratio) - 1;
  expect(occurrences(image, screen, top, top + bar)).toBe(1);
  expect(occurrences(image, screen, bottom - bar, bottom)).toBe(1);
  // The stored image is what the sharp decoder reads as one tall PNG.
  expect((await sharp(await readFile(join(storageDir, ...KEY_PATH) + ".png")).metadata()).height).toBe(image.height);
}, 90_000);

test("the page matches itself on the next run with no model call", async () => {
  configure("replay");
  await phone.open("long-list", { seed: 2, rows: ROWS });
  const before = double.received.length;
  const result = await phone.ai
    .expect(phone.driver)
    .toMatchScreenshot(NAME, PROMPT, { fullPage: true, timeout: 60_000 });
  expect(result).toMatchObject({ outcome: "matched", aiCalls: 0 });
  expect(double.received.length).toBe(before);
}, 90_000);

test("a renamed order on the fourth screen fails, naming where on the page it is", async () => {
  configure("replay");
  await phone.open("long-list", { seed: 3, rows: ROWS, variant: "renamed" });
  const { record } = await stored();
  // A few words changed: fewer pixels than the default 0.1% of a screen, so the allowance is set as for a single screen's text check.
  const error = await phone.ai
    .expect(phone.driver)
    .toMatchScreenshot(NAME, PROMPT, { fullPage: true, timeout: 60_000, maxDiffPixels: 100 })
    .catch((e: unknown) => e);
  expect(error).toMatchObject({ code: "screenshot-mismatch" });
  const message = (error as Error).message;
  const place = /screen (\d+) of (\d+), y (\d+)-(\d+) of the page/.exec(message);
  expect(place).not.toBeNull();
  const [, screenNo, screens, y0, y1] = place!.map(Number);
  expect(screenNo).toBe(4);
  expect(screens).toBe(record.fullPage?.screens);
  // The named rows are the renamed row's, where the page has it: below the status and app bars.
  const geometry = await listGeometry(RENAMED_ROW);
  const listTop = geometry.listTop * geometry.ratio;
  expect(y0!).toBeGreaterThanOrEqual(Math.floor(listTop + geometry.rowTop * geometry.ratio) - 16);
  expect(y1!).toBeLessThanOrEqual(Math.ceil(listTop + geometry.rowBottom * geometry.ratio) + 16);
  expect(message).toMatch(/: \d+ pixels differ from the baseline, allowed 100 \(maxDiffPixels\) per screen/);
  expect(message).toContain("TAPSHOT_MODE=update");
}, 90_000);

test("a single-screen check on the whole page's name is a clear error, not a mismatch", async () => {
  configure("replay");
  await phone.open("long-list", { seed: 4, rows: ROWS });
  const error = await phone.ai
    .expect(phone.driver)
    .toMatchScreenshot(NAME, PROMPT, { timeout: 10_000 })
    .catch((e: unknown) => e);
  expect(error).toMatchObject({ code: "input" });
  expect((error as Error).message).toMatch(/is a whole page of \d+ screens .* Pass \{ fullPage: true \}/);
}, 30_000);
