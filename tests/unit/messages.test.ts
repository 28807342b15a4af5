/**
 * What failures say (docs/configuration.md "The log line"): a tap stored under another verify
 * text is named with the two ways out, device models get the right article, and a failure's
 * reason is printed once. Real PNG screens from FakeDevice, a scripted channel.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { withArticle } from "../../src/core/ground/errors.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { checkoutScene, FakeDevice, fakeAdapter, fakeDriver } from "../support/fake-device.js";
import { locateOnDevice, ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

let storageDir: string;
const api = createPlatformApi(fakeAdapter());

function setup(device: FakeDevice, mode: "auto" | "replay") {
  const channel = new ScriptedChannel({
    locate: locateOnDevice(device),
    check: () => ({ pass: true, reason: "scripted: holds", model: SCRIPTED_MODEL }),
  });
  configureAi({ channel, storageDir, mode, resultsDir: false, reportArtifact: () => undefined });
}

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-messages-"));
});
afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

describe("a tap stored under another verify text", () => {
  test("is named, with the verify that replays it and how to learn this one", async () => {
    const device = new FakeDevice(checkoutScene(), { model: "iPhone 15" });
    setup(device, "auto");
    await api.tap(fakeDriver(device), "the checkout button", { verify: "the summary is shown" });

    setup(device, "replay");
    const error = await api
      .tap(fakeDriver(device), "the checkout button", { verify: "the payment page is shown" })
      .catch((e) => e);

    expect(error).toMatchObject({ code: "not-stored" });
    expect(error.message).toContain('No stored tap for "the checkout button" with verify "the payment page is shown"');
    expect(error.message).toContain('A tap for this prompt is stored with verify "the summary is shown"');
    expect(error.message).toContain('Either pass { verify: "the summary is shown" } to replay that one');
    expect(error.message).toContain(
      'or learn this one by running this flow once on an iPhone 15 (android 14) with mode "auto"',
    );
  });

  test("a tap stored with no verify is named as such", async () => {
    const device = new FakeDevice(checkoutScene(), { model: "Pixel 7" });
    setup(device, "auto");
    await api.tap(fakeDriver(device), "the checkout button");

    setup(device, "replay");
    const error = await api.tap(fakeDriver(device), "the checkout button", { verify: "paid" }).catch((e) => e);

    expect(error.message).toContain("A tap for this prompt is stored with no verify");
    expect(error.message).toContain("Either drop the verify option to replay that one");
    expect(error.message).toContain("on a Pixel 7 (android 14)");
  });

  test("with nothing stored for the prompt, the message says how to learn it", async () => {
    const device = new FakeDevice(checkoutScene());
    setup(device, "replay");
    const error = await api.tap(fakeDriver(device), "the checkout button").catch((e) => e);
    expect(error.message).toContain('mode is "replay", so the model is not asked. Learn it by running this flow once');
    expect(error.message).not.toContain("verify");
  });
});

test("articles: an iPhone, an 8 Pro, a Pixel, a Unihertz", () => {
  expect(
    [
      "iPhone 15",
      "8 Pro",
      "11 T",
      "Pixel 7",
      "Unihertz Atom",
      "Galaxy S23",
      "OnePlus 12",
      "Xperia 1",
      "Xiaomi 13",
      "Oppo",
    ].map(withArticle),
  ).toEqual([
    "an iPhone 15",
    "an 8 Pro",
    "an 11 T",
    "a Pixel 7",
    "a Unihertz Atom",
    "a Galaxy S23",
    "a OnePlus 12",
    "an Xperia 1",
    "a Xiaomi 13",
    "an Oppo",
  ]);
});
