/**
 * Stored values per project and app (docs/storage.md, "Projects and apps") on the device double: two
 * projects or two apps asking the same prompt on the same device model each keep their own value; a
 * store of the older layout is read and moved by the next write; project names that could leave their
 * folder are refused; locks and budgets are per project.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { BudgetError, ConfigError } from "../../src/core/ground/errors.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { FileStore } from "../../src/core/store/file-store.js";
import { appSlug, parseScopedKey, projectProblem } from "../../src/core/store/keys.js";
import { createRecord, readRecord, rewriteRecord } from "../../src/core/store/record-io.js";
import { scopedStore } from "../../src/core/store/scoped-store.js";
import { resetClaims } from "../../src/core/run/budget.js";
import { configureAi, resetAi, type AiConfig } from "../../src/runner/index.js";
import { blobRecord, BlobRecord, greyPng } from "../support/blob-records.js";
import { FakeDevice, fakeAdapter, fakeDriver, type FakeScene } from "../support/fake-device.js";
import { locateOnDevice, ScriptedChannel } from "../support/scripted-channel.js";

/** A cart with a checkout button at (x, y) in `fill`; a tap on it opens the summary. */
function cartScene(checkout: Partial<{ y: number; fill: string }> = {}): FakeScene {
  return {
    background: "#ffffff",
    elements: [
      { id: "header", x: 0, y: 24, width: 360, height: 56, fill: "#1e40af" },
      {
        id: "checkout",
        x: 40,
        y: checkout.y ?? 520,
        width: 280,
        height: 56,
        fill: checkout.fill ?? "#16a34a",
        mark: "#ffffff",
        onTap: (device) => (device.scene = { background: "#f8fafc", elements: [] }),
      },
    ],
  };
}

/** Project A's shop and project B's app: the same prompt, the button elsewhere and restyled. */
const shopScene = () => cartScene();
const otherScene = () => cartScene({ y: 300, fill: "#ea580c" });

const PROMPT = "the checkout button";
const api = createPlatformApi(fakeAdapter());
let storageDir: string;
let logs: LogEntry[];

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-namespaces-"));
  logs = [];
});
afterEach(async () => {
  resetAi();
  resetClaims();
  delete process.env.TAPSHOT_PROJECT;
  await fs.rm(storageDir, { recursive: true, force: true });
});

/** Configure a run on `device` (its screen answers the model); returns the channel, which counts model calls. */
function configure(device: FakeDevice, options: AiConfig = {}): ScriptedChannel {
  const channel = new ScriptedChannel({ locate: locateOnDevice(device) });
  resetAi();
  configureAi({ channel, storageDir, resultsDir: false, log: (e) => logs.push(e), ...options });
  return channel;
}

/** Every stored record's JSON under `_ai_/`, as store keys. */
async function storedJson(): Promise<string[]> {
  const root = path.join(storageDir, "_ai_");
  const files = await fs.readdir(root, { recursive: true }).catch(() => [] as string[]);
  return files
    .map((f) => f.split(path.sep).join("/"))
    .filter((f) => f.endsWith(".json") && !f.startsWith(".locks"))
    .sort();
}

const exists = (key: string) =>
  fs.stat(path.join(storageDir, "_ai_", ...key.split("/"))).then(
    () => true,
    () => false,
  );

test("two projects, same prompt, same device model: each learns its own value and replays it with no model call", async () => {
  const a = new FakeDevice(shopScene(), { app: "com.example.shop" });
  const channelA = configure(a, { project: "shop-team" });
  expect(await api.tap(fakeDriver(a), PROMPT)).toMatchObject({ outcome: "learned", point: { x: 180, y: 548 } });

  // Project B's button is elsewhere: without projects it would fail against A's value (issue 53).
  const b = new FakeDevice(otherScene(), { app: "com.example.shop" });
  const channelB = configure(b, { project: "merchant-team" });
  expect(await api.tap(fakeDriver(b), PROMPT)).toMatchObject({ outcome: "learned", point: { x: 180, y: 328 } });
  expect([channelA.count(), channelB.count()]).toEqual([1, 1]);

  const keys = await storedJson();
  expect(keys).toEqual([
    expect.stringMatching(
      /^projects\/merchant-team\/apps\/com\.example\.shop\/taps\/android\/fake-phone-1_14\/the-checkout-button-/,
    ),
    expect.stringMatching(
      /^projects\/shop-team\/apps\/com\.example\.shop\/taps\/android\/fake-phone-1_14\/the-checkout-button-/,
    ),
  ]);
  expect(parseScopedKey(keys[0]!).inner).toBe(parseScopedKey(keys[1]!).inner);

  // New sessions of each project replay their own value, in mode replay: no model call.
  for (const [project, scene, y] of [
    ["shop-team", shopScene(), 548],
    ["merchant-team", otherScene(), 328],
  ] as const) {
    const device = new FakeDevice(scene, { app: "com.example.shop" });
    const channel = configure(device, { project, mode: "replay" });
    expect(await api.tap(fakeDriver(device), PROMPT)).toMatchObject({ outcome: "replayed", point: { x: 180, y } });
    expect(channel.count()).toBe(0);
  }
});

test("two apps in one storage folder each keep their own value; the app is asked once per session", async () => {
  const shop = new FakeDevice(shopScene(), { app: "com.example.Shop" });
  configure(shop);
  const shopDriver = fakeDriver(shop);
  expect((await api.tap(shopDriver, PROMPT)).outcome).toBe("learned");
  shop.scene = shopScene();
  expect((await api.tap(shopDriver, PROMPT)).outcome).toBe("replayed");
  expect(shop.appAsks).toBe(1);

  const merchant = new FakeDevice(otherScene(), { app: "com.example.merchant" });
  const channel = configure(merchant);
  expect(await api.tap(fakeDriver(merchant), PROMPT)).toMatchObject({ outcome: "learned", point: { x: 180, y: 328 } });
  expect(channel.count()).toBe(1);
  expect((await storedJson()).map((k) => k.split("/").slice(0, 3).join("/"))).toEqual([
    "apps/com.example.merchant/taps",
    "apps/com.example.shop/taps",
  ]);
});

test("a store of the older layout is replayed as it is, and moved under the app by the next write (a heal)", async () => {
  // What the current version writes: a session that tells no app keeps the older layout.
  const before = new FakeDevice(shopScene());
  configure(before);
  await api.tap(fakeDriver(before), PROMPT);
  const [oldKey] = await storedJson();
  expect(oldKey).toMatch(/^taps\/android\/fake-phone-1_14\/the-checkout-button-[0-9a-f]+\.json$/);
  const newKey = `apps/com.example.shop/${oldKey}`;

  const device = new FakeDevice(shopScene(), { app: "com.example.shop" });
  const replay = configure(device, { mode: "replay" });
  expect((await api.tap(fakeDriver(device), PROMPT)).outcome).toBe("replayed");
  expect(replay.count()).toBe(0);
  expect([await exists(oldKey!), await exists(newKey)]).toEqual([true, false]);

  // The next write moves it: the heal is stored under the app, its previous value kept, the old copy gone.
  device.scene = cartScene({ y: 420, fill: "#7c3aed" });
  const heal = configure(device);
  expect(await api.tap(fakeDriver(device), PROMPT, { autoHeal: true, timeout: 5000 })).toMatchObject({
    outcome: "healed",
    point: { x: 180, y: 448 },
  });
  expect(heal.count()).toBe(1);
  expect(await storedJson()).toEqual([newKey]);
  const stem = newKey.replace(/\.json$/, "");
  expect([await exists(`${stem}.png`), await exists(`${stem}.previous.png`)]).toEqual([true, true]);
  const record = JSON.parse(await fs.readFile(path.join(storageDir, "_ai_", ...newKey.split("/")), "utf8"));
  expect(record.previous.point).toEqual({ x: 180, y: 548 });

  device.scene = cartScene({ y: 420, fill: "#7c3aed" });
  const again = configure(device, { mode: "replay" });
  expect((await api.tap(fakeDriver(device), PROMPT)).outcome).toBe("replayed");
  expect(again.count()).toBe(0);
});

test("a project's session reads the older layout unless readOldLayout is false (a store that mixed customers)", async () => {
  const before = new FakeDevice(shopScene());
  configure(before);
  await api.tap(fakeDriver(before), PROMPT);

  const team = new FakeDevice(shopScene(), { app: "com.example.shop" });
  const teamChannel = configure(team, { project: "shop-team", mode: "replay" });
  expect((await api.tap(fakeDriver(team), PROMPT)).outcome).toBe("replayed");
  expect(teamChannel.count()).toBe(0);

  const farm = new FakeDevice(shopScene(), { app: "com.example.shop" });
  const farmChannel = configure(farm, { project: "customer-b", readOldLayout: false });
  expect((await api.tap(fakeDriver(farm), PROMPT)).outcome).toBe("learned");
  expect(farmChannel.count()).toBe(1);
});

test("project names that could leave their folder are refused, saying the allowed form", async () => {
  const bad = ["..", "../other", "a/b", "a\\b", "/etc", "C:\\x", "", "x".repeat(65), "Shop", ".hidden", "a b"];
  for (const project of bad) {
    expect(projectProblem(project)).toBeDefined();
    expect(() => configureAi({ project })).toThrow(ConfigError);
  }
  expect(() => configureAi({ project: "../other" })).toThrow(
    /configureAi's project "\.\.\/other" is not a project name: it holds a path separator\. Use 1-64 lower-case letters/,
  );
  expect(projectProblem("x".repeat(64))).toBeUndefined();
  for (const reserved of ["con", "nul", "aux", "prn", "com1", "lpt1"]) {
    expect(projectProblem(reserved)).toMatch(/Windows reserves it for a device/);
  }
  expect(() => configureAi({ project: "com1" })).toThrow(
    /configureAi's project "com1" is not a project name: Windows reserves it for a device/,
  );
  expect(projectProblem("console")).toBeUndefined();
  expect(projectProblem("shop_team-2")).toBeUndefined();

  // From the environment and from a function, the first call fails before the device is asked anything.
  const device = new FakeDevice(shopScene(), { app: "com.example.shop" });
  const channel = configure(device);
  process.env.TAPSHOT_PROJECT = "../../etc";
  await expect(api.tap(fakeDriver(device), PROMPT)).rejects.toThrow(
    /TAPSHOT_PROJECT "\.\.\/\.\.\/etc" is not a project name/,
  );
  delete process.env.TAPSHOT_PROJECT;
  configureAi({ project: () => "/abs" });
  await expect(api.tap(fakeDriver(device), PROMPT)).rejects.toThrow(ConfigError);
  expect([channel.count(), device.screenshots]).toEqual([0, 0]);
  expect(await storedJson()).toEqual([]);
});

test("app identities become key parts that stay in their folder", () => {
  expect(appSlug("com.example.Shop")).toBe("com.example.shop");
  expect(appSlug("127.0.0.1")).toBe("127.0.0.1");
  expect(appSlug("../../etc")).toBe("etc");
  expect(appSlug("a/..\\b")).toBe("a-.-b");
  expect(appSlug(" ")).toBeUndefined();
});

describe("every declared app identity has a folder of its own", () => {
  const prefix = `com.example.${"very-long-segment-".repeat(5)}`.slice(0, 100);
  const internal = `${prefix}${"x".repeat(120 - prefix.length - 16)}.portal.internal`;
  const external = `${prefix}${"x".repeat(120 - prefix.length - 16)}.portal.external`;

  test("two 120-character identities that share their first 100 get two folders, stable and short", () => {
    expect([internal.length, external.length]).toEqual([120, 120]);
    const [a, b] = [appSlug(internal)!, appSlug(external)!];
    expect(a).not.toBe(b);
    expect(a.length).toBeLessThanOrEqual(100);
    expect(a).toMatch(/^com\.example\.very-long-segment-.*-[0-9a-f]{10}$/);
    expect(appSlug(internal)).toBe(a);
    expect(appSlug(`  ${internal.toUpperCase()} `)).not.toBe(a); // the hash is of the identity as declared
  });

  test("an identity with nothing left after the slug, or a Windows device name, gets a hashed folder", () => {
    for (const identity of ["...", "-.-", "..", "//"]) expect(appSlug(identity)).toMatch(/^app-[0-9a-f]{10}$/);
    expect(appSlug("...")).not.toBe(appSlug("-.-"));
    expect(appSlug("con")).toMatch(/^con-[0-9a-f]{10}$/);
    expect(appSlug("com1.app")).toMatch(/^com1\.app-[0-9a-f]{10}$/);
    expect(appSlug("com.example.shop")).toBe("com.example.shop");
  });

  test.each([
    ["long identities", internal, external],
    ["identities that slug to nothing", "...", "com.other.app"],
    ["identities that slug to nothing", "-.-", "..."],
  ])("%s: the second app does not replay the first app's tap", async (_what, first, second) => {
    const a = new FakeDevice(shopScene(), { app: first });
    configure(a);
    expect((await api.tap(fakeDriver(a), PROMPT)).outcome).toBe("learned");
    const b = new FakeDevice(otherScene(), { app: second });
    const channel = configure(b);
    const tapped = await api.tap(fakeDriver(b), PROMPT);
    expect([tapped.outcome, channel.count()]).toEqual(["learned", 1]);
    expect((await storedJson()).every((key) => key.startsWith("apps/"))).toBe(true);
  });
});

test("each project has a run budget of its own", async () => {
  const resultsDir = path.join(storageDir, "results");
  const a = new FakeDevice(shopScene(), { app: "com.example.shop" });
  configure(a, { project: "shop-team", maxAiCalls: 1, resultsDir });
  expect((await api.tap(fakeDriver(a), PROMPT)).outcome).toBe("learned");
  const b = new FakeDevice(shopScene(), { app: "com.example.shop" });
  configure(b, { project: "merchant-team", maxAiCalls: 1, resultsDir });
  expect((await api.tap(fakeDriver(b), PROMPT)).outcome).toBe("learned");
  // Project A's second prompt is over its own budget.
  configure(a, { project: "shop-team", maxAiCalls: 1, resultsDir });
  a.scene = shopScene();
  await expect(api.tap(fakeDriver(a), "the header")).rejects.toThrow(BudgetError);
});

describe("the scoped store", () => {
  const image = greyPng(120);

  test("a project's lock never waits on another project's lock of the same key", async () => {
    const store = new FileStore(storageDir);
    const a = scopedStore(store, { project: "a", app: "com.example.shop" });
    const b = scopedStore(store, { project: "b", app: "com.example.shop" });
    const held = await a.lock("taps/android/dev/x", { deadline: Date.now() + 5000 });
    // The same project waits and gives up at its deadline; the other project takes its own lock at once.
    await expect(a.lock("taps/android/dev/x", { deadline: Date.now() + 300 })).rejects.toThrow();
    const other = await b.lock("taps/android/dev/x", { deadline: Date.now() + 300 });
    await other();
    await held();
  });

  test("a JSON-only rewrite of an older-layout record moves its images with it; nothing is left behind", async () => {
    const store = new FileStore(storageDir);
    await createRecord(store, "taps/android/dev/x", blobRecord(image), image);
    const view = scopedStore(store, { app: "com.example.shop" });
    const read = await readRecord(view, "taps/android/dev/x", BlobRecord);
    expect(read?.image.equals(image)).toBe(true);
    await rewriteRecord(view, "taps/android/dev/x", { ...read!.record, note: "accepted" });
    expect(await storedJson()).toEqual(["apps/com.example.shop/taps/android/dev/x.json"]);
    expect(await store.list("")).toEqual([
      "apps/com.example.shop/taps/android/dev/x.json",
      "apps/com.example.shop/taps/android/dev/x.png",
    ]);
    expect((await readRecord(view, "taps/android/dev/x", BlobRecord))?.image.equals(image)).toBe(true);
  });

  test("a create does not shadow an older-layout value; list and modifiedAt see both layouts", async () => {
    const store = new FileStore(storageDir);
    await store.write("taps/android/dev/old.json", Buffer.from("{}"));
    const view = scopedStore(store, { project: "p", app: "app" });
    expect(await view.write("taps/android/dev/old.json", Buffer.from("{}"), { ifAbsent: true })).toBe(false);
    await view.write("taps/android/dev/new.json", Buffer.from("{}"));
    expect(await view.list("taps/android")).toEqual(["taps/android/dev/new.json", "taps/android/dev/old.json"]);
    expect(await view.modifiedAt("taps/android/dev/old.json")).not.toBeNull();
    expect(view.location).toBe(`${store.location}/projects/p/apps/app`);
    const strict = scopedStore(store, { project: "p", app: "app", readOldLayout: false });
    expect(await strict.list("taps/android")).toEqual(["taps/android/dev/new.json"]);
  });
});
