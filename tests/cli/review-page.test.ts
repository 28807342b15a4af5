/**
 * `tapshot review`'s page in real headless Debian Chromium (webdriverio): pending values grouped
 * across devices with their images and the model's reason; Accept, Revert, a whole group and the
 * keyboard, checked in the storage afterwards; and the server's token and Host checks. A
 * screenshot goes to tapshot-results/test-artifacts/ and, with TAPSHOT_UPDATE_DOCS=1, docs/review.png.
 */
import { mkdtempSync, promises as fs } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { FileStore } from "../../src/core/store/file-store.js";
import { BaselineRecordSchema } from "../../src/core/store/baseline-record.js";
import { readRecord } from "../../src/core/store/record-io.js";
import { reviewOf } from "../../src/core/store/review-state.js";
import { TapRecordSchema } from "../../src/core/store/tap-record.js";
import { readStoreModel } from "../../src/cli/model.js";
import { startReviewServer, type ReviewServer } from "../../src/cli/review/server.js";
import { makeFixture, type Fixture } from "./fixture.js";
import { openChromium } from "../support/chromium.js";
import { REPO } from "./run-cli.js";

let fx: Fixture;
let server: ReviewServer;
let profile: string;
let browser: WebdriverIO.Browser | undefined;
let store: FileStore;

beforeAll(async () => {
  fx = await makeFixture();
  store = new FileStore(fx.storage);
  server = await startReviewServer({
    store,
    readModel: () => readStoreModel(fx.storage),
    reviewer: "Ada <ada@example.com>",
  });
  profile = mkdtempSync(path.join(os.tmpdir(), "tapshot-review-chromium-"));
  browser = await openChromium(profile);
  await browser.url(server.url);
}, 120_000);

afterAll(async () => {
  await browser?.deleteSession().catch(() => undefined);
  await server?.close();
  if (profile) await fs.rm(profile, { recursive: true, force: true });
  await fx?.cleanup();
});

/** GET with any Host header (fetch may not set one). */
function get(pathAndQuery: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port: server.port, path: pathAndQuery, headers: { host } }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      })
      .on("error", reject);
  });
}

/** The page's CSP header and body. */
function page(): Promise<{ csp: string; body: string }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    http
      .get(
        { host: "127.0.0.1", port: server.port, path: `${url.pathname}${url.search}`, headers: { host: url.host } },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (body += chunk));
          res.on("end", () => resolve({ csp: String(res.headers["content-security-policy"]), body }));
        },
      )
      .on("error", reject);
  });
}

test("the page's one script runs under a fresh CSP nonce per page; no inline script without it", async () => {
  const [first, second] = [await page(), await page()];
  const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)';/.exec(first.csp)?.[1];
  expect(nonce).toBeDefined();
  expect(first.csp).not.toMatch(/script-src[^;]*unsafe-inline/);
  expect([...first.body.matchAll(/<script( nonce="([^"]+)")?>/g)].map((m) => m[2])).toEqual([nonce]);
  expect(second.csp).not.toContain(nonce);
  // Chromium runs it under that policy: the page's keyboard queue is live (the first card is current).
  expect(await browser!.$$(".value.current").length).toBe(1);
});

const card = (key: string) => browser!.$(`[data-testid=value][data-key="${key}"]`);

test("the server listens on loopback and refuses other Host headers and missing or wrong tokens", async () => {
  const url = new URL(server.url);
  expect(url.hostname).toBe("127.0.0.1");
  const token = url.searchParams.get("token")!;
  expect(token).toMatch(/^[0-9a-f]{48}$/);
  const self = `127.0.0.1:${server.port}`;
  expect(await get(`/?token=${token}`, self)).toBe(200);
  expect(await get(`/?token=${token}`, `evil.example:${server.port}`)).toBe(421);
  expect(await get(`/?token=${token}`, `localhost:${server.port}`)).toBe(421);
  expect(await get(`/`, self)).toBe(403);
  expect(await get(`/?token=${"0".repeat(48)}`, self)).toBe(403);
  expect(await get(`/image?key=${fx.keys.cartPixel}&file=png&token=${token}`, self)).toBe(404); // accepted: not served
});

test("pending values are grouped by name across devices, with their images and the model's reason", async () => {
  const groups = await browser!.$$("[data-testid=group]");
  const subjects = await groups.map((g) => g.getAttribute("data-subject"));
  expect(subjects.sort()).toEqual(["checkout-page", "the add to cart button", "the checkout button"]);
  const checkout = await browser!.$('[data-testid=group][data-subject="the checkout button"]');
  expect(await checkout.$$("[data-testid=value]").length).toBe(2);

  // A baseline heal: previous, new and diff, each loaded.
  const baseline = await card(fx.keys.healedBaseline);
  for (const label of ["previous", "new", "diff"]) {
    const img = await baseline.$(`[data-testid=${label}] img`);
    expect(await browser!.execute((el) => (el as HTMLImageElement).naturalWidth, img)).toBe(360);
  }
  expect(await baseline.$("[data-testid=reason]").getText()).toContain("the redesign moved the checkout button");
  expect(await baseline.$("[data-testid=what-changed]").getText()).toBe(
    "what changed: 'Checkout' (checkout) moved down 150 px",
  );
  // A tap heal: old and new crops, each with the point marked.
  const tap = await card(fx.keys.healedTap);
  expect(await tap.$$("[data-testid=tap-point]").length).toBe(2);
  expect(
    await browser!.execute((el) => (el as HTMLImageElement).naturalWidth > 0, await tap.$("[data-testid=old] img")),
  ).toBe(true);

  await fs.mkdir(path.join(REPO, "tapshot-results", "test-artifacts"), { recursive: true });
  const shot = path.join(REPO, "tapshot-results", "test-artifacts", "review.png");
  await browser!.saveScreenshot(shot);
  if (process.env.TAPSHOT_UPDATE_DOCS === "1") await fs.copyFile(shot, path.join(REPO, "docs", "review.png"));
  // The whole page too, for a person to look at.
  await browser!.saveScreenshot(path.join(REPO, "tapshot-results", "test-artifacts", "review-full.png"), {
    fullPage: true,
  });
});

test("every image opens full size, each card shows its prompt, and no files-changed list before a decision", async () => {
  const baseline = await card(fx.keys.healedBaseline);
  const link = await baseline.$("[data-testid=new] [data-testid=full-size]");
  const href = await link.getAttribute("href");
  expect(href).toBe(await link.$("img").getAttribute("src"));
  expect(await link.getAttribute("target")).toBe("_blank");
  // The link serves the whole image, at its own size.
  const page = await browser!.getUrl();
  await browser!.url(new URL(href!, page).toString());
  expect(await browser!.execute(() => (document.querySelector("img") as HTMLImageElement).naturalWidth)).toBe(360);
  await browser!.url(page);

  for (const value of await browser!.$$("[data-testid=value]")) {
    // The slider's two images are the same files again, over one frame.
    expect(await value.$$("img:not(.compare img)").length).toBe(await value.$$("[data-testid=full-size]").length);
  }
  expect(await (await card(fx.keys.healedBaseline)).$("[data-testid=prompt]").getText()).toMatch(/^judged against: ./);
  expect(await (await card(fx.keys.healedTap)).$("[data-testid=prompt]").getText()).toContain(
    "prompt: the checkout button",
  );
  expect(await browser!.$("[data-testid=changed]").isDisplayed()).toBe(false);
});

/** The colour Chromium painted at the centre of `marker`, inside `frame` (an element screenshot). */
async function colourUnder(frame: WebdriverIO.Element, marker: WebdriverIO.Element): Promise<number[]> {
  const [at, mark, size] = [await frame.getLocation(), await marker.getLocation(), await marker.getSize()];
  const png = Buffer.from(await browser!.takeElementScreenshot(frame.elementId), "base64");
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const x = Math.round(mark.x + size.width / 2 - at.x);
  const y = Math.round(mark.y + size.height / 2 - at.y);
  const i = (y * info.width + x) * info.channels;
  return [data[i]!, data[i + 1]!, data[i + 2]!];
}

test("heals side by side with a slider, boxes and prompt masks drawn, taps on their screen with a hollow marker", async () => {
  // A baseline heal: previous | new | diff on one row, the slider beside them; the prompt's mask drawn on the new image.
  const baseline = await card(fx.keys.healedBaseline);
  const tops = [];
  for (const label of ["previous", "new", "diff"])
    tops.push((await baseline.$(`[data-testid=${label}] img`).getLocation()).y);
  expect(new Set(tops).size).toBe(1);
  expect(await baseline.$("[data-testid=compare] [data-testid=slider]").isDisplayed()).toBe(true);
  const mask = await baseline.$("[data-testid=new] [data-testid=prompt-mask]");
  expect(await mask.getAttribute("title")).toBe("masked: the promo banner");
  // The mask's box (0, 100, 360x40 on a 360x720 screen) lands where it is on the image.
  const [img, maskAt, maskSize] = [
    await baseline.$("[data-testid=new] img"),
    await mask.getLocation(),
    await mask.getSize(),
  ];
  const [imgAt, imgSize] = [await img.getLocation(), await img.getSize()];
  expect(Math.abs(maskAt.y - imgAt.y - (100 / 720) * imgSize.height)).toBeLessThan(2);
  expect(Math.abs(maskSize.height - (40 / 720) * imgSize.height)).toBeLessThan(2);
  expect(await baseline.$("[data-testid=boxes]").getText()).toContain("masked by prompt (orange): the promo banner");

  // A tap: old | new crops side by side, and where it is on the whole screen: its box and a ring at the point.
  const tap = await card(fx.keys.healedTap);
  const [oldAt, newAt] = [
    await tap.$("[data-testid=old] img").getLocation(),
    await tap.$("[data-testid=new] img").getLocation(),
  ];
  expect(newAt.x).toBeGreaterThan(oldAt.x);
  expect(newAt.y).toBe(oldAt.y);
  const record = (await readRecord(store, fx.keys.healedTap, TapRecordSchema))!.record;
  const svg = await tap.$("[data-testid=tap-screen] svg");
  const [svgAt, svgSize] = [await svg.getLocation(), await svg.getSize()];
  const scale = svgSize.width / record.device.screen.width;
  const box = await tap.$("[data-testid=tap-box]");
  expect(Math.abs((await box.getLocation()).y - svgAt.y - record.box.y * scale)).toBeLessThan(2);
  // The heal's previous place is drawn too, so the move shows.
  const beforeRing = await tap.$("[data-testid=tap-before] circle");
  const beforeAt = await beforeRing.getLocation();
  const beforeSize = await beforeRing.getSize();
  expect(Math.abs(beforeAt.y + beforeSize.height / 2 - svgAt.y - record.previous!.point.y * scale)).toBeLessThan(2);
  const ring = await tap.$("[data-testid=tap-ring]");
  const [ringAt, ringSize] = [await ring.getLocation(), await ring.getSize()];
  expect(Math.abs(ringAt.x + ringSize.width / 2 - svgAt.x - record.point.x * scale)).toBeLessThan(2);
  expect(Math.abs(ringAt.y + ringSize.height / 2 - svgAt.y - record.point.y * scale)).toBeLessThan(2);
  // The marker on the crop is hollow: the element's own pixels show at the point, not the marker's pink.
  const shot = await tap.$("[data-testid=new] .shot").getElement();
  const under = await colourUnder(shot, await tap.$("[data-testid=new] [data-testid=tap-point]").getElement());
  const pink = [0xff, 0x00, 0x66];
  expect(under.reduce((sum, c, i) => sum + Math.abs(c - pink[i]!), 0)).toBeGreaterThan(120);
});

test("Accept and Revert on the page write through the store and list the files changed", async () => {
  const healedBaseline = await readRecord(store, fx.keys.healedBaseline, BaselineRecordSchema);
  await (await card(fx.keys.healedBaseline)).$("[data-testid=accept]").click();
  await browser!.waitUntil(
    async () => (await (await card(fx.keys.healedBaseline)).$("[data-testid=state]").getText()) === "accepted",
  );
  const accepted = await readRecord(store, fx.keys.healedBaseline, BaselineRecordSchema);
  expect(reviewOf(accepted!.record)).toMatchObject({ state: "accepted", by: "Ada <ada@example.com>" });
  expect(accepted!.record.imageSha256).toBe(healedBaseline!.record.imageSha256);

  // Revert the whole "the checkout button" group: the heal on the Pixel is undone, the new iPhone value deleted.
  const healedTap = await readRecord(store, fx.keys.healedTap, TapRecordSchema);
  const group = await browser!.$('[data-testid=group][data-subject="the checkout button"]');
  await group.$("[data-testid=revert-group]").click();
  await browser!.waitUntil(async () => (await browser!.$$("#changes li").length) === 1 + 3 + 2);
  const reverted = await readRecord(store, fx.keys.healedTap, TapRecordSchema);
  expect(reverted!.record.imageSha256).toBe(healedTap!.record.previous!.imageSha256);
  expect(reverted!.record.rejected).toHaveLength(1);
  expect(await readRecord(store, fx.keys.iosTap, TapRecordSchema)).toBeNull();
  expect(await browser!.$("[data-testid=changed]").isDisplayed()).toBe(true);
  const files = await browser!.$$("#changes li").map((li) => li.getText());
  expect(files).toContain(`${store.location}/${fx.keys.healedBaseline}.json`);
  expect(files).toContain(`${store.location}/${fx.keys.iosTap}.png`);

  // The keyboard: the queue moved on to the last undecided value; "a" accepts it.
  await browser!.keys("a");
  await browser!.waitUntil(
    async () => (await (await card(fx.keys.failedTap)).$("[data-testid=state]").getText()) === "accepted",
  );
  expect(reviewOf((await readRecord(store, fx.keys.failedTap, TapRecordSchema))!.record).state).toBe("accepted");

  // Reloaded, the page shows what is pending now: only the reverted tap's own value, learned and never accepted.
  await browser!.url(server.url);
  expect(await browser!.$$("[data-testid=value]").map((c) => c.getAttribute("data-key"))).toEqual([fx.keys.healedTap]);
  expect(await (await card(fx.keys.healedTap)).$("[data-testid=old]").isExisting()).toBe(false);
});
