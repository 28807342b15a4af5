/**
 * The review page's failures (docs/reviewing.md "Failures on the review page") in real headless
 * Debian Chromium: a real run of the flows fails two baselines with the same change (the checkout
 * turned red: one group, one click), a third with another change of the same button (turned purple:
 * its own group), and a tap; the page shows expected /
 * actual / diff side by side with a keyboard slider, accepts a group as new baselines by the rules
 * of `tapshot accept --failed`, forgets the tap, and refuses what changed since. Screenshot:
 * tapshot-results/test-artifacts/review-failures.png (docs/review-failures.png with TAPSHOT_UPDATE_DOCS=1).
 */
import { mkdtempSync, promises as fs } from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { ACCEPTED_FAILURE_MODEL } from "../../src/cli/review/accept-failed.js";
import { lastFailures } from "../../src/cli/review/failures.js";
import { readStoreModel } from "../../src/cli/model.js";
import { startReviewServer, type ReviewServer } from "../../src/cli/review/server.js";
import { FileStore } from "../../src/core/store/file-store.js";
import { BaselineRecordSchema } from "../../src/core/store/baseline-record.js";
import { readRecord, replaceRecord, sha256 } from "../../src/core/store/record-io.js";
import { reviewOf } from "../../src/core/store/review-state.js";
import { TapRecordSchema } from "../../src/core/store/tap-record.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { openChromium } from "../support/chromium.js";
import { FakeDevice, fakeAdapter, fakeDriver, type FakeScene } from "../support/fake-device.js";
import { locateOnDevice, ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";
import { REPO } from "./run-cli.js";

const android = createPlatformApi(fakeAdapter("android"));
const PHONES = [
  { model: "Fake Pixel 7", width: 360, height: 640 },
  { model: "Fake Pixel 8", width: 412, height: 732 },
  { model: "Fake Galaxy S23", width: 360, height: 640 },
];

let dir: string;
let store: FileStore;
let server: ReviewServer;
let profile: string;
let browser: WebdriverIO.Browser | undefined;

/** The shop screen on a `width` x `height` phone, laid out in proportions (as an app lays out). */
function shop(width: number, height: number, change: { checkout?: string; header?: string } = {}): FakeScene {
  const w = (f: number) => Math.round(width * f);
  const h = (f: number) => Math.round(height * f);
  return {
    background: "#ffffff",
    elements: [
      { id: "header", x: 0, y: h(0.04), width, height: h(0.09), fill: change.header ?? "#1e40af" },
      { id: "item", x: w(0.05), y: h(0.2), width: w(0.9), height: h(0.12), fill: "#eef1f6", mark: "#7c8cff" },
      {
        id: "checkout",
        x: w(0.1),
        y: h(0.8),
        width: w(0.8),
        height: h(0.09),
        fill: change.checkout ?? "#16a34a",
        mark: "#ffffff",
      },
    ],
  };
}

function configure(channel: ScriptedChannel, mode: "auto" | "replay" | "update") {
  configureAi({ channel, store, mode, resultsDir: path.join(dir, "results"), log: false });
}

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-review-failures-"));
  store = new FileStore(path.join(dir, "storage"));
  await fs.mkdir(store.root, { recursive: true });
  const devices = PHONES.map((p) => new FakeDevice(shop(p.width, p.height), p));
  const channel = new ScriptedChannel({
    // The status bar's clock varies: a box the pages draw over the stored baseline.
    judge: () => ({
      accept: true,
      varying: [{ x: 0, y: 0, width: 360, height: 20 }],
      reason: "scripted: accepts the screen",
      model: SCRIPTED_MODEL,
    }),
    locate: locateOnDevice(devices[0]!),
  });
  // Learn: a baseline on each phone, a tap on the first.
  configure(channel, "auto");
  for (const d of devices) await android.expect(fakeDriver(d)).toMatchScreenshot("shop", "the shop");
  await android.tap(fakeDriver(devices[0]!), "the checkout button");
  resetAi();
  // The failing run: the checkout turned red on two phones, purple on the third; the checkout gone for the tap.
  configure(channel, "replay");
  devices[0]!.scene = shop(360, 640, { checkout: "#dc2626" });
  devices[1]!.scene = shop(412, 732, { checkout: "#dc2626" });
  devices[2]!.scene = shop(360, 640, { checkout: "#7c3aed" });
  for (const d of devices) {
    await android
      .expect(fakeDriver(d))
      .toMatchScreenshot("shop", "the shop", { timeout: 1500 })
      .catch(() => undefined);
  }
  devices[0]!.scene = { ...shop(360, 640), elements: shop(360, 640).elements.filter((e) => e.id !== "checkout") };
  await android.tap(fakeDriver(devices[0]!), "the checkout button", { timeout: 1500 }).catch(() => undefined);
  resetAi();
  // Pending updates of a "cart" baseline: the checkout turned red on two phones, purple on the third.
  PHONES.forEach((p, i) => (devices[i]!.scene = shop(p.width, p.height)));
  configure(channel, "auto");
  for (const d of devices) await android.expect(fakeDriver(d)).toMatchScreenshot("cart", "the cart");
  configure(channel, "update");
  PHONES.forEach((p, i) => (devices[i]!.scene = shop(p.width, p.height, { checkout: i < 2 ? "#dc2626" : "#7c3aed" })));
  for (const d of devices) await android.expect(fakeDriver(d)).toMatchScreenshot("cart", "the cart");
  resetAi();

  server = await startReviewServer({
    store,
    readModel: () => readStoreModel(path.join(dir, "storage")),
    reviewer: "Ada <ada@example.com>",
    results: path.join(dir, "results"),
  });
  profile = mkdtempSync(path.join(os.tmpdir(), "tapshot-review-failures-chromium-"));
  browser = await openChromium(profile);
  await browser.url(server.url);
}, 180_000);

afterAll(async () => {
  resetAi();
  await browser?.deleteSession().catch(() => undefined);
  await server?.close();
  if (profile) await fs.rm(profile, { recursive: true, force: true });
  if (dir) await fs.rm(dir, { recursive: true, force: true });
});

const failureCard = (device: string) =>
  browser!.$(`[data-testid=failure][data-device="${device}"][data-kind=baseline]`);
const slug = (model: string) => `${model.toLowerCase().replace(/ /g, "-")}_14`;

/** POST with any headers, for the server's checks. */
function post(pathAndQuery: string, body: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port: server.port, path: pathAndQuery, method: "POST", headers },
      (res) => {
        res.resume();
        resolve(res.statusCode!);
      },
    );
    // The server may close the connection on a refused body before the client finished sending it.
    req.on("error", (error) => (req.writableFinished ? reject(error) : undefined));
    req.end(body);
  });
}

test("the same restyle on two phones is one group, another restyle of the button its own; the tap is listed to forget", async () => {
  const groups = await browser!.$$("[data-testid=failure-group][data-kind=baseline]");
  const sizes = await groups.map(async (g) => (await g.$$("[data-testid=failure]")).length);
  expect(sizes.sort()).toEqual([1, 2]);
  const pair = await browser!.$("[data-testid=failure-group][data-kind=baseline] [data-testid=accept-failure-group]");
  expect(await pair.getText()).toBe("Accept all 2 as new baselines");
  const grouped = await pair
    .parentElement()
    .parentElement()
    .$$("[data-testid=failure]")
    .map((c) => c.getAttribute("data-device"));
  expect(grouped.sort()).toEqual([slug(PHONES[0]!.model), slug(PHONES[1]!.model)]);
  // The tap's failure: its screen with the stored crop outlined, and Forget.
  const tap = await browser!.$("[data-testid=failure][data-kind=tap]");
  expect(await tap.$("[data-testid=forget-failure]").getText()).toBe("Forget (learn again next run)");
  // Images load lazily: bring the card into view first.
  const screenshot = await tap.$("[data-testid=screenshot] img").getElement();
  await screenshot.scrollIntoView();
  await browser!.waitUntil(() => browser!.execute((el) => (el as HTMLImageElement).complete, screenshot));
  expect(await browser!.execute((el) => (el as HTMLImageElement).naturalWidth, screenshot)).toBe(360);
  // Over the run's whole screen, the stored tap's box and point, where the record has them.
  const tapKey = (await tap.getAttribute("data-key"))!;
  const record = (await readRecord(store, tapKey, TapRecordSchema))!.record;
  const screen = await tap.$("[data-testid=screenshot] img");
  const [at, size] = [await screen.getLocation(), await screen.getSize()];
  const scale = size.width / record.device.screen.width;
  const box = await tap.$("[data-testid=stored-box]");
  expect(Math.abs((await box.getLocation()).y - at.y - record.box.y * scale)).toBeLessThan(2);
  const ring = await tap.$("[data-testid=screenshot] [data-testid=tap-point]");
  const [ringAt, ringSize] = [await ring.getLocation(), await ring.getSize()];
  expect(Math.abs(ringAt.x + ringSize.width / 2 - at.x - record.point.x * scale)).toBeLessThan(2);
  expect(Math.abs(ringAt.y + ringSize.height / 2 - at.y - record.point.y * scale)).toBeLessThan(2);

  // The docs' picture: the top of the page, failures first.
  await browser!.execute(() => window.scrollTo(0, 0));
  await browser!.setWindowSize(1280, 1100);
  await fs.mkdir(path.join(REPO, "tapshot-results", "test-artifacts"), { recursive: true });
  const shot = path.join(REPO, "tapshot-results", "test-artifacts", "review-failures.png");
  await browser!.saveScreenshot(shot);
  if (process.env.TAPSHOT_UPDATE_DOCS === "1") await fs.copyFile(shot, path.join(REPO, "docs", "review-failures.png"));
  await tap.saveScreenshot(path.join(REPO, "tapshot-results", "test-artifacts", "review-failed-tap.png"));
});

test("expected / actual / diff side by side, each full size; the slider wipes between them from the keyboard", async () => {
  const card = await failureCard(slug(PHONES[2]!.model));
  const tops: number[] = [];
  for (const label of ["expected", "actual", "diff"]) {
    const link = await card.$(`[data-testid=${label}] [data-testid=full-size]`);
    expect(await link.getAttribute("href")).toBe(await link.$("img").getAttribute("src"));
    expect(await browser!.execute((el) => (el as HTMLImageElement).naturalWidth, await link.$("img"))).toBe(360);
    tops.push((await link.getLocation()).y);
  }
  expect(new Set(tops).size).toBe(1);
  // The prompt it was judged against, and its varying box drawn over expected and actual.
  expect(await card.$("[data-testid=prompt]").getText()).toBe("judged against: the shop");
  for (const label of ["expected", "actual"]) {
    const box = await card.$(`[data-testid=${label}] [data-testid=varying]`);
    expect(await box.isDisplayed()).toBe(true);
    expect((await box.getLocation()).y).toBe((await card.$(`[data-testid=${label}] img`).getLocation()).y);
  }

  const top = await card.$("[data-testid=compare] img.top");
  expect(await top.isExisting()).toBe(true);
  const clip = () => browser!.execute((el) => (el as HTMLElement).style.clipPath, top);
  expect(await clip()).toBe("inset(0px 0px 0px 50%)");
  // Keyboard only: "j" walks to the card, "s" focuses its slider, the arrows and Home move it.
  await browser!.execute(() => (document.activeElement as HTMLElement | null)?.blur());
  const cards = await browser!.$$("[data-testid=failure], [data-testid=value]").map((c) => c.getAttribute("data-id"));
  const index = cards.indexOf(await card.getAttribute("data-id"));
  for (let i = 0; i < index; i++) await browser!.keys("j");
  expect(await browser!.execute(() => document.activeElement?.getAttribute("data-id"))).toBe(
    await card.getAttribute("data-id"),
  );
  await browser!.keys("s");
  expect(await browser!.execute(() => document.activeElement?.getAttribute("data-testid"))).toBe("slider");
  await browser!.keys(["ArrowRight", "ArrowRight"]);
  expect(await clip()).toBe("inset(0px 0px 0px 52%)");
  await browser!.keys("Home");
  expect(await clip()).toBe("inset(0px 0px 0px 0%)");
  await browser!.keys("Escape");
  expect(await browser!.execute(() => document.activeElement?.getAttribute("data-testid"))).toBe("failure");
});

test("pending updates with the same change on two phones are accepted with one click, the third left pending", async () => {
  const group = await browser!.$('[data-testid=group][data-subject="cart"]');
  expect(await group.$$("[data-testid=value]").length).toBe(3);
  const same = await group.$("[data-testid=accept-same]");
  expect(await same.getText()).toMatch(/^Accept the 2 with change [0-9a-f]{12}$/);
  await same.click();
  await browser!.waitUntil(
    async () =>
      (await group.$$("[data-testid=state]").map((s) => s.getText())).filter((t) => t === "accepted").length === 2,
  );
  const keys = PHONES.map((p) => `screenshots/android/cart/${slug(p.model)}`);
  const states = await Promise.all(
    keys.map(async (k) => reviewOf((await readRecord(store, k, BaselineRecordSchema))!.record).state),
  );
  expect(states).toEqual(["accepted", "accepted", "pending"]);
  // The files changed so far, cleared for the next test's count.
  await browser!.url(server.url);
});

test("/failures keeps the server's checks: token, Host, JSON only, body size", async () => {
  const token = new URL(server.url).searchParams.get("token")!;
  const self = { host: `127.0.0.1:${server.port}`, "content-type": "application/json" };
  const body = JSON.stringify({ action: "accept", ids: ["x"] });
  expect(await post(`/failures?token=${token}`, body, { ...self, host: `evil.example:${server.port}` })).toBe(421);
  expect(await post(`/failures`, body, self)).toBe(403);
  expect(await post(`/failures?token=${token}`, body, { ...self, "content-type": "text/plain" })).toBe(415);
  expect(await post(`/failures?token=${token}`, JSON.stringify({ action: "delete", ids: ["x"] }), self)).toBe(400);
  const huge = "x".repeat(1_100_000);
  expect(await post(`/failures?token=${token}`, huge, { ...self, "content-length": String(huge.length) })).toBe(413);
  expect(await post(`/failure-image?token=${token}`, "", self)).toBe(404);
});

test("one click accepts the group as new baselines; Forget removes the tap; the page lists the files", async () => {
  const keys = PHONES.map((p) => `screenshots/android/shop/${slug(p.model)}`);
  const before = await Promise.all(keys.map((k) => readRecord(store, k, BaselineRecordSchema)));
  await browser!.$("[data-testid=accept-failure-group]").click();
  await browser!.waitUntil(async () => (await browser!.$$("#changes li").length) === 6);
  for (const [i, key] of keys.slice(0, 2).entries()) {
    const now = (await readRecord(store, key, BaselineRecordSchema))!.record;
    expect(now).toMatchObject({
      model: ACCEPTED_FAILURE_MODEL,
      review: { state: "accepted", by: "Ada <ada@example.com>" },
    });
    expect(now.previous!.imageSha256).toBe(before[i]!.record.imageSha256);
    expect(await (await failureCard(slug(PHONES[i]!.model))).$("[data-testid=state]").getText()).toBe("accepted");
  }
  // The other change is not in that group: untouched.
  expect((await readRecord(store, keys[2]!, BaselineRecordSchema))!.record.imageSha256).toBe(
    before[2]!.record.imageSha256,
  );

  const tapKey = (await lastFailures(path.join(dir, "results"), store)).failures.find((f) => f.kind === "tap")!.entry
    .key;
  // The keyboard: the queue moved on to the next undecided card (the other change); "j" reaches the tap, "f" forgets it.
  const focused = () => browser!.execute(() => (document.activeElement as HTMLElement | null)?.dataset.kind);
  expect(await focused()).toBe("baseline");
  await browser!.keys("j");
  expect(await focused()).toBe("tap");
  await browser!.keys("f");
  await browser!.waitUntil(async () => (await browser!.$$("#changes li").length) === 8);
  expect(await readRecord(store, tapKey, TapRecordSchema)).toBeNull();
  const files = await browser!.$$("#changes li").map((li) => li.getText());
  expect(files).toContain(`${store.location}/${keys[0]}.previous.png`);
  expect(files).toContain(`${store.location}/${tapKey}.json`);

  // Reloaded, only the unsettled failure is left. Its stored baseline is changed meanwhile (another screen of
  // the same size stored there): accepting is refused as `accept --failed` refuses it, and nothing is written.
  const galaxy = (await readRecord(store, keys[2]!, BaselineRecordSchema))!;
  const other = (await store.read(`screenshots/android/cart/${slug(PHONES[0]!.model)}.png`))!;
  const changed = { ...galaxy.record, imageSha256: sha256(other) };
  await replaceRecord(store, keys[2]!, changed, other, galaxy.image);
  await browser!.url(server.url);
  const left = await browser!.$$("[data-testid=failure]").map((c) => c.getAttribute("data-device"));
  expect(left).toEqual([slug(PHONES[2]!.model)]);
  await browser!.$("[data-testid=accept-failure]").click();
  await browser!.waitUntil(async () => (await browser!.$("[data-testid=state]").getText()).startsWith("refused"));
  expect(await browser!.$("[data-testid=state]").getText()).toContain("the stored baseline changed since run");
  expect((await readRecord(store, keys[2]!, BaselineRecordSchema))!.record).toEqual(changed);

  // Put back, "a" accepts it from the keyboard, and then no failure is left.
  await replaceRecord(store, keys[2]!, galaxy.record, galaxy.image, galaxy.image);
  await browser!.url(server.url);
  await browser!.keys("a");
  await browser!.waitUntil(async () => (await browser!.$("[data-testid=state]").getText()) === "accepted");
  expect((await readRecord(store, keys[2]!, BaselineRecordSchema))!.record.model).toBe(ACCEPTED_FAILURE_MODEL);
  await browser!.url(server.url);
  // No failure is left to settle; the values the runs learned still await review as usual.
  expect(await browser!.$("[data-testid=failures]").isExisting()).toBe(false);
  expect(await browser!.$$("[data-testid=value]").length).toBeGreaterThan(0);
});
