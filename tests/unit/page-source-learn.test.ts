/**
 * A first learn from the page source (docs/api.md "Learned from the page source"), on the fake device
 * with a page source of its scene, Android and iOS: a quoted prompt whose element the page source
 * names exactly is learned with 0 model requests and replayed with 0; two elements saying the text, an
 * absent text, a kind that does not match, a disabled element and a dialog over the element each still go
 * to the model (the scripted channel, whose records say `test-double:scripted`).
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { quotedTarget } from "../../src/core/device/quoted-target.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { FakeDevice, fakeAdapter, fakeDriver, type FakeElement, type FakeScene } from "../support/fake-device.js";
import type { AiRequestOf } from "../../rig/scripted-channel.js";
import { SCRIPTED_MODEL, ScriptedChannel } from "../support/scripted-channel.js";

type Platform = "android" | "ios";
const BUTTON: Record<Platform, (text: string) => Record<string, string>> = {
  android: (text) => ({ class: "android.widget.Button", text }),
  ios: (text) => ({ type: "XCUIElementTypeButton", label: text }),
};
const FIELD: Record<Platform, (hint: string) => Record<string, string>> = {
  android: (hint) => ({ class: "android.widget.EditText", hint, "resource-id": "com.shop:id/promo" }),
  ios: (hint) => ({ type: "XCUIElementTypeTextField", placeholderValue: hint, name: "promo" }),
};
const TITLE: Record<Platform, (text: string) => Record<string, string>> = {
  android: (text) => ({ class: "android.widget.TextView", text }),
  ios: (text) => ({ type: "XCUIElementTypeStaticText", label: text }),
};

const el = (id: string, y: number, a11y: Record<string, string>, fill = "#16a34a"): FakeElement => ({
  id,
  x: 40,
  y,
  width: 280,
  height: 56,
  fill,
  mark: "#ffffff",
  a11y,
});

let storageDir: string;
let logs: LogEntry[];
beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-page-source-learn-"));
  logs = [];
});
afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

/** A run on `scene` whose model answers the box of the element with id `answer`. */
function run(platform: Platform, scene: FakeScene, answer = "checkout") {
  const device = new FakeDevice(scene, { platform, app: "com.example.shop" });
  device.pageSource = "scene";
  const requests: AiRequestOf<"locate">[] = [];
  const channel = new ScriptedChannel({
    locate: (request) => {
      requests.push(request);
      const e = device.scene.elements.find((x) => x.id === answer)!;
      return {
        found: true,
        box: { x: e.x, y: e.y, width: e.width, height: e.height },
        reason: "seen",
        model: SCRIPTED_MODEL,
      };
    },
  });
  configureAi({ channel, storageDir, resultsDir: false, log: (entry) => logs.push(entry) });
  const api = createPlatformApi(fakeAdapter(platform));
  return { device, channel, requests, tap: (prompt: string) => api.tap(fakeDriver(device), prompt) };
}

async function storedRecord(): Promise<Record<string, unknown>> {
  const files = (await fs.readdir(storageDir, { recursive: true })).map(String).filter((f) => /taps.*\.json$/.test(f));
  return JSON.parse(await fs.readFile(path.join(storageDir, files[0]!), "utf8"));
}

describe.each(["android", "ios"] as const)("on %s", (platform) => {
  const header = el("header", 24, TITLE[platform]("Your cart"), "#1e40af");

  test('the "Checkout" button: learned from the page source with no model request, replayed with none', async () => {
    const { channel, device, tap } = run(platform, {
      background: "#fff",
      elements: [header, el("checkout", 520, BUTTON[platform]("Checkout"))],
    });
    const learned = await tap('the "Checkout" button');
    expect([learned.outcome, learned.aiCalls, channel.count()]).toEqual(["learned", 0, 0]);
    expect(device.taps).toEqual([{ x: 180, y: 548 }]);
    const record = await storedRecord();
    expect(record).toMatchObject({ model: "page-source", point: { x: 180, y: 548 }, review: { state: "pending" } });
    expect(logs.at(-1)).toMatchObject({ outcome: "learned", aiCalls: 0, models: ["page-source"] });
    const replayed = await tap('the "Checkout" button');
    expect([replayed.outcome, replayed.aiCalls, channel.count()]).toEqual(["replayed", 0, 0]);
  });

  test('the button labelled "Checkout" is the same form; a field is named by its hint, not a title', async () => {
    const { channel, tap } = run(
      platform,
      {
        background: "#fff",
        elements: [el("title", 100, TITLE[platform]("Promo code")), el("promo", 300, FIELD[platform]("Promo code"))],
      },
      "title",
    );
    const learned = await tap('the "Promo code" field');
    expect([learned.outcome, channel.count()]).toEqual(["learned", 0]);
    expect(learned.point).toEqual({ x: 180, y: 328 });
  });

  test.each([
    [
      "two buttons say the text",
      [el("checkout", 520, BUTTON[platform]("Checkout")), el("other", 600, BUTTON[platform]("Checkout"))],
    ],
    ["no element says it", [el("checkout", 520, BUTTON[platform]("Pay now"))]],
    ["the element saying it is another kind", [el("checkout", 520, TITLE[platform]("Checkout"))]],
    ["the button is disabled", [el("checkout", 520, { ...BUTTON[platform]("Checkout"), enabled: "false" })]],
    [
      "a dialog is drawn over it",
      [
        el("checkout", 520, BUTTON[platform]("Checkout")),
        {
          id: "dialog",
          x: 0,
          y: 300,
          width: 360,
          height: 400,
          fill: "#333333",
          a11y: TITLE[platform]("Update available"),
        },
      ],
    ],
  ])("%s: the model decides", async (_what, elements) => {
    const { channel, tap } = run(platform, { background: "#fff", elements: [header, ...elements] });
    const learned = await tap('the "Checkout" button');
    expect([learned.outcome, channel.count()]).toEqual(["learned", 1]);
    expect((await storedRecord()).model).toBe(SCRIPTED_MODEL);
    expect(JSON.stringify(logs.at(-1))).toMatch(/page source did not decide/);
  });

  test("when the page source does not decide, the model's request carries its controls for a text-only model", async () => {
    // A title and a separate label say "Promo code"; the field itself says nothing (no hint).
    const bare: Record<string, string> =
      platform === "android" ? { class: "android.widget.EditText" } : { type: "XCUIElementTypeTextField" };
    const { channel, requests, tap } = run(
      platform,
      {
        background: "#fff",
        elements: [
          header,
          el("title", 100, TITLE[platform]("Promo code")),
          el("label", 200, TITLE[platform]("Promo code")),
          el("promo", 300, bare),
        ],
      },
      "promo",
    );
    const learned = await tap('the "Promo code" field');
    expect([learned.outcome, channel.count()]).toEqual(["learned", 1]);
    expect(requests[0]!.controls).toEqual([{ role: "field", box: { x: 40, y: 300, width: 280, height: 56 } }]);
    // A prompt without a quoted text and a kind carries none.
    await tap("the promo field");
    expect(requests[1]!.controls).toBeUndefined();
  });

  test("a prompt without a quoted text goes to the model", async () => {
    const { channel, tap } = run(platform, {
      background: "#fff",
      elements: [header, el("checkout", 520, BUTTON[platform]("Checkout"))],
    });
    expect((await tap("the checkout button")).aiCalls).toBe(1);
    expect(channel.count()).toBe(1);
  });
});

test("the documented prompt forms, and what is not one", () => {
  expect(quotedTarget('the "Checkout" button')).toEqual({ text: "Checkout", kind: "button" });
  expect(quotedTarget("The button labelled “Sign in”.")).toEqual({ text: "Sign in", kind: "button" });
  expect(quotedTarget('"Email" text field')).toEqual({ text: "Email", kind: "text field" });
  expect(quotedTarget('the link "Terms"')).toEqual({ text: "Terms", kind: "link" });
  expect(quotedTarget('the second "Add" button')).toBeUndefined();
  expect(quotedTarget('the "Add" button below Milk')).toBeUndefined();
  expect(quotedTarget("the checkout button")).toBeUndefined();
});
