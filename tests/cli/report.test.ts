/**
 * `tapshot report` over a real store and run, loaded from disk (file://) in real
 * headless Debian Chromium through webdriverio: the entries render and their images
 * load. A screenshot of the page is saved under tapshot-results/test-artifacts/ and
 * copied to docs/report.png for the README when TAPSHOT_UPDATE_DOCS=1.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, promises as fs, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { imageSize } from "../../src/core/pixels/image-decode.js";
import { GALAXY, makeFixture, PIXEL, type Fixture } from "./fixture.js";
import { openChromium, which } from "../support/chromium.js";
import { REPO, runCli } from "./run-cli.js";

const ARTIFACTS = path.join(REPO, "tapshot-results", "test-artifacts");

let fx: Fixture;
let out: string;
let page: string;
let profile: string;
let browser: WebdriverIO.Browser | undefined;

beforeAll(async () => {
  fx = await makeFixture();
  out = path.join(fx.root, "report");
  const { code, stdout, stderr } = await runCli([
    "report",
    "--storage",
    fx.storage,
    "--results",
    fx.results,
    "--out",
    out,
    "--json",
  ]);
  if (code !== 0) throw new Error(`tapshot report exited ${code}: ${stderr}`);
  page = JSON.parse(stdout).report;

  profile = mkdtempSync(path.join(os.tmpdir(), "tapshot-report-chromium-"));
  // Nothing may be downloaded here: the test checks the cache stays empty.
  browser = await openChromium(profile);
  await browser.url(pathToFileURL(page).href);
}, 120_000);

afterAll(async () => {
  await browser?.deleteSession().catch(() => undefined);
  if (profile) await fs.rm(profile, { recursive: true, force: true });
  await fx?.cleanup();
});

/**
 * How many images inside the elements matching `selector` load. The report lazy-loads
 * images, so each is scrolled into view and decoded first (decode rejects for a broken one).
 */
async function imagesLoaded(selector: string): Promise<{ count: number; loaded: number }> {
  return browser!.execute(async (sel: string) => {
    const images = Array.from(document.querySelectorAll(sel)).flatMap((el) => Array.from(el.querySelectorAll("img")));
    let loaded = 0;
    for (const img of images) {
      img.scrollIntoView();
      const ok = await img.decode().then(
        () => true,
        () => false,
      );
      if (ok && img.naturalWidth > 0) loaded++;
    }
    window.scrollTo(0, 0);
    return { count: images.length, loaded };
  }, selector);
}

test("uses the given Chromium and chromedriver, downloading nothing", async () => {
  const caps = browser!.capabilities as { browserName?: string; browserVersion?: string };
  const installed = execFileSync(which("chromium"), ["--version"], { encoding: "utf8" });
  expect(installed).toContain(caps.browserVersion!.split(".")[0]!);
  const cache = path.join(profile, "cache");
  expect(existsSync(cache) ? readdirSync(cache) : []).toEqual([]);
});

test("the report is self-contained: it lives in --out with its images copied beside it", async () => {
  expect(page).toBe(path.join(out, "index.html"));
  const html = await fs.readFile(page, "utf8");
  expect(html).not.toMatch(/(src|href)="(https?:|\/)/);
  const sources = [...html.matchAll(/<img src="([^"]+)"/g)].map((m) => m[1]!);
  expect(sources.length).toBeGreaterThan(10);
  for (const src of sources) {
    expect(src).toMatch(/^files\//);
    expect(existsSync(path.join(out, decodeURIComponent(src)))).toBe(true);
  }
  expect(await browser!.getTitle()).toBe("tapshot report");
  // Every image opens full size: each is wrapped in a link to its own file.
  // (the slider's two images are the same files again, over one frame).
  const links = await browser!.$$("[data-testid=full-size]");
  const sliders: number = await browser!.$$("[data-testid=compare]").length;
  expect(sliders).toBeGreaterThan(1);
  expect(links.length).toBe(sources.length - 2 * sliders);
  for (const link of links) expect(await link.getAttribute("href")).toBe(await link.$("img").getAttribute("src"));
});

test("baselines render in a grid per platform, one cell per device", async () => {
  const android = await browser!.$$(`[data-testid="baseline-grid"][data-platform="android"] [data-testid="baseline"]`);
  expect(android).toHaveLength(4);
  const ios = await browser!.$$(`[data-testid="baseline-grid"][data-platform="ios"] [data-testid="baseline"]`);
  expect(ios).toHaveLength(1);
  for (const device of [PIXEL, GALAXY]) {
    await expect(
      browser!.$(`[data-testid="baseline"][data-name="cart-page"][data-device="${device}"] img`).isDisplayed(),
    ).resolves.toBe(true);
  }
  // The galaxy has no checkout-page baseline: the grid says so.
  const missing = browser!.$(`[data-testid="baseline-missing"][data-name="checkout-page"][data-device="${GALAXY}"]`);
  await expect(missing.getText()).resolves.toBe("not stored");
  await expect(imagesLoaded(`[data-testid="baseline"]`)).resolves.toEqual({ count: 5, loaded: 5 });
  // Each cell shows the prompt it was judged against, its varying boxes and its prompt masks, drawn where they are.
  const cart = browser!.$(`[data-testid="baseline"][data-name="cart-page"][data-device="${PIXEL}"]`);
  await expect(cart.$(`[data-testid="prompt"]`).getText()).resolves.toBe("judged against: the cart page");
  const [clock, shot] = [await cart.$(`[data-testid="varying"]`), await cart.$("img")];
  expect((await clock.getSize()).width).toBeCloseTo((await shot.getSize()).width, 0);
  expect((await clock.getLocation()).y).toBeCloseTo((await shot.getLocation()).y, 0);
  const healed = browser!.$(`[data-testid="baseline"][data-name="checkout-page"][data-device="${PIXEL}"]`);
  await expect(healed.$(`[data-testid="prompt-mask"]`).getAttribute("title")).resolves.toBe("masked: the promo banner");
});

test("a tap renders with its crop and the point marked on it", async () => {
  const card = browser!.$(`[data-testid="tap"][data-prompt="the checkout button"][data-device="${PIXEL}"]`);
  await expect(card.$(`[data-testid="tap-coordinates"]`).getText()).resolves.toBe("(180, 548)");
  const crop = await card.$("img").getSize();
  const marker = await card.$(`[data-testid="tap-point"]`);
  await expect(marker.isDisplayed()).resolves.toBe(true);
  // The point is the crop's centre here (the crop is the button's box, padded evenly).
  const [imgAt, markAt, markSize] = [
    await card.$("img").getLocation(),
    await marker.getLocation(),
    await marker.getSize(),
  ];
  expect(Math.abs(markAt.x + markSize.width / 2 - (imgAt.x + crop.width / 2))).toBeLessThan(3);
  expect(Math.abs(markAt.y + markSize.height / 2 - (imgAt.y + crop.height / 2))).toBeLessThan(3);
  expect(await browser!.$$(`[data-testid="tap"]`)).toHaveLength(4);
  await expect(imagesLoaded(`[data-testid="tap"]`)).resolves.toEqual({ count: 4, loaded: 4 });
  // Beside the crop, the whole screen: the ring is centred on the point (180, 548) of the 360x720 screen.
  const svg = await card.$(`[data-testid="tap-screen"] svg`);
  const [svgAt, svgSize] = [await svg.getLocation(), await svg.getSize()];
  const ring = await card.$(`[data-testid="tap-ring"]`);
  const [ringAt, ringSize] = [await ring.getLocation(), await ring.getSize()];
  expect(svgAt.x).toBeGreaterThan(imgAt.x);
  expect(Math.abs(ringAt.x + ringSize.width / 2 - svgAt.x - (180 / 360) * svgSize.width)).toBeLessThan(2);
  expect(Math.abs(ringAt.y + ringSize.height / 2 - svgAt.y - (548 / 720) * svgSize.height)).toBeLessThan(2);
});

test("heals show before and after side by side", async () => {
  const tap = browser!.$(`[data-testid="heal"][data-kind="tap"][data-subject="the checkout button"]`);
  await expect(tap.$(`[data-testid="heal-before"]`).getText()).resolves.toContain("(180, 628)");
  await expect(tap.$(`[data-testid="heal-after"]`).getText()).resolves.toContain("(180, 548)");
  await expect(tap.getText()).resolves.toContain("in the last run");
  const before = await tap.$(`[data-testid="heal-before"] img`).getLocation();
  const after = await tap.$(`[data-testid="heal-after"] img`).getLocation();
  expect(after.x).toBeGreaterThan(before.x);
  expect(Math.abs(after.y - before.y)).toBeLessThan(2);
  const baseline = `[data-testid="heal"][data-kind="baseline"][data-subject="checkout-page"]`;
  await expect(browser!.$(baseline).isDisplayed()).resolves.toBe(true);
  // The baseline heal: before | after side by side, and the slider over both (the same two files).
  const [beforeShot, afterShot] = [
    await browser!.$(`${baseline} [data-testid="before"] img`).getLocation(),
    await browser!.$(`${baseline} [data-testid="after"] img`).getLocation(),
  ];
  expect(afterShot.x).toBeGreaterThan(beforeShot.x);
  expect(Math.abs(afterShot.y - beforeShot.y)).toBeLessThan(2);
  await expect(browser!.$(`${baseline} [data-testid="slider"]`).isDisplayed()).resolves.toBe(true);
  await expect(browser!.$$(`[data-testid="heal"] .arrow`)).resolves.toHaveLength(0);
  await expect(imagesLoaded(`[data-testid="heal"]`)).resolves.toEqual({ count: 6, loaded: 6 });
});

test("the slider's own script runs under the report's content policy, and the keyboard moves it", async () => {
  const clip = () =>
    browser!.execute(
      () => (document.querySelector('[data-testid="compare"] img.top') as HTMLElement | null)?.style.clipPath ?? "",
    );
  // Set by the script on load: the page's policy allowed it by its hash.
  expect(await clip()).toMatch(/50%\)$/);
  await browser!.$('[data-testid="compare"] input').click();
  await browser!.keys(["Home"]);
  expect(await clip()).toMatch(/ 0%\)$/);
});

test("failures of the last run show their artifacts: the screenshot's diff, the tap's crops", async () => {
  const screenshot = browser!.$(`[data-testid="failure"][data-api="toMatchScreenshot"][data-subject="confirmation"]`);
  const labels = await screenshot.$$(`figure[data-label]`).map((a) => a.getAttribute("data-label"));
  expect(labels).toEqual(["expected", "actual", "diff", "composite"]);
  // Expected / actual / diff side by side on one row, then the slider.
  const tops = await screenshot.$$(`figure[data-label] img`).map(async (img) => (await img.getLocation()).y);
  expect(new Set(tops.slice(0, 3).map(Math.round)).size).toBe(1);
  await expect(screenshot.getText()).resolves.toContain("1.9% of pixels differ");
  const tap = browser!.$(`[data-testid="failure"][data-api="tap"][data-subject="the add to cart button"]`);
  const tapLabels = await tap.$$(`[data-testid="artifact"]`).map((a) => a.getAttribute("data-label"));
  expect(tapLabels).toEqual(["expected-crop", "actual-crop", "screenshot"]);
  await expect(tap.getText()).resolves.toMatch(/never matched the screen/);
  await expect(imagesLoaded(`[data-testid="failure"]`)).resolves.toEqual({ count: 9, loaded: 9 });
});

test("the last run's calls and the invalid record are listed", async () => {
  const outcomes = await browser!.$$(`[data-testid="call"]`).map((row) => row.getAttribute("data-outcome"));
  expect(outcomes.filter((o) => o === "healed")).toHaveLength(1);
  expect(outcomes.filter((o) => o === "failed")).toHaveLength(2);
  expect(outcomes).toContain("replayed");
  await expect(browser!.$(`[data-testid="invalid"]`).getText()).resolves.toContain(fx.keys.invalid);
});

test("a screenshot of the report is saved as a test artifact and for the README", async () => {
  await fs.mkdir(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, "report.png");
  const all = await imagesLoaded("body");
  expect(all.loaded).toBe(all.count);
  await browser!.saveScreenshot(file, { fullPage: true });
  const size = await imageSize(await fs.readFile(file));
  expect(size.width).toBeGreaterThanOrEqual(1000);
  expect(size.height).toBeGreaterThan(1500);
  // The README shows the top of the page: failures and heals.
  await browser!.setWindowSize(1280, 1400);
  const top = path.join(ARTIFACTS, "report-top.png");
  await browser!.saveScreenshot(top);
  expect((await imageSize(await fs.readFile(top))).height).toBeGreaterThan(1000);
  // Tests never write into the repository unless asked: TAPSHOT_UPDATE_DOCS=1 refreshes the README's picture.
  if (process.env.TAPSHOT_UPDATE_DOCS === "1") await fs.copyFile(top, path.join(REPO, "docs", "report.png"));
  // Keep the whole report beside the screenshot, for a person to open.
  await fs.cp(out, path.join(ARTIFACTS, "report"), { recursive: true });
});
