/**
 * `toSatisfy` through tapshot/android and tapshot/ios on the driver doubles (docs/api.md, "Semantic
 * assertions"): the probability policy both ways, judgments stored per snapshot and reused with no
 * model call, replay, typed text kept out of requests, records and logs, ambiguous selectors, review.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as android from "../../src/android/index.js";
import * as ios from "../../src/ios/index.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import type { AiRequestOf } from "../../src/core/model/contract.js";
import { FileStore } from "../../src/core/store/file-store.js";
import { revertValue } from "../../src/cli/review/actions.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { runCli } from "../cli/run-cli.js";
import {
  AppiumDriverDouble,
  asBrowser,
  uiautomator2Script,
  xcuitestScript,
  type DoubleScript,
} from "../support/appium-driver-double.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

const TYPED = "hunter2-secret-note";

/** The page sources: an order panel with a status and a checkbox, a note field the user typed into, two items. */
function androidSource(status: string): string {
  return `<?xml version="1.0"?><hierarchy rotation="0">
<node class="android.widget.FrameLayout" bounds="[0,0][1080,2400]">
 <node class="android.widget.LinearLayout" resource-id="com.shop:id/order" bounds="[0,300][1080,900]">
  <node class="android.widget.TextView" resource-id="com.shop:id/status" text="${status}" enabled="true" bounds="[40,320][1040,400]"/>
  <node class="android.widget.CheckBox" resource-id="com.shop:id/agree" text="Refund to card" checked="true" enabled="true" bounds="[40,420][1040,500]"/>
  <node class="android.widget.EditText" resource-id="com.shop:id/note" text="${TYPED}" bounds="[40,520][1040,620]"/>
  <node class="android.widget.TextView" text="You wrote: ${TYPED}" bounds="[40,640][1040,720]"/>
 </node>
 <node class="android.widget.TextView" resource-id="com.shop:id/item" text="Shoes" bounds="[40,1000][1040,1100]"/>
 <node class="android.widget.TextView" resource-id="com.shop:id/item" text="Socks" bounds="[40,1100][1040,1200]"/>
</node></hierarchy>`;
}

function iosSource(status: string): string {
  const el = (type: string, attrs: string, y: number, h: number, inner = "") =>
    `<XCUIElementType${type} type="XCUIElementType${type}" ${attrs} enabled="true" visible="true" x="0" y="${y}" width="393" height="${h}">${inner}</XCUIElementType${type}>`;
  return `<?xml version="1.0"?><XCUIElementTypeApplication type="XCUIElementTypeApplication" x="0" y="0" width="393" height="852">${el(
    "Other",
    'name="order"',
    100,
    200,
    el("StaticText", `name="status" label="${status}"`, 105, 30) +
      el("Switch", 'name="agree" label="Refund to card" value="1"', 140, 30) +
      el("TextField", `name="note" label="Note" value="${TYPED}"`, 175, 30) +
      el("StaticText", `label="You wrote: ${TYPED}"`, 210, 30),
  )}${el("StaticText", 'name="item" label="Shoes"', 400, 30)}${el("StaticText", 'name="item" label="Socks"', 430, 30)}</XCUIElementTypeApplication>`;
}

interface Platform {
  name: string;
  ai: typeof android;
  script(): DoubleScript;
  source(status: string): string;
}

const PLATFORMS: Platform[] = [
  {
    name: "android",
    ai: android,
    source: androidSource,
    script: () => ({
      ...uiautomator2Script(),
      elements: {
        "~order": { x: 0, y: 300, width: 1080, height: 600 },
        "~item": [
          { x: 40, y: 1000, width: 1000, height: 100 },
          { x: 40, y: 1100, width: 1000, height: 100 },
        ],
      },
    }),
  },
  {
    name: "ios",
    ai: ios as unknown as typeof android,
    source: iosSource,
    script: () => ({
      ...xcuitestScript(),
      elements: {
        "~order": { x: 0, y: 100, width: 393, height: 200 },
        "~item": [
          { x: 0, y: 400, width: 393, height: 30 },
          { x: 0, y: 430, width: 393, height: 30 },
        ],
      },
    }),
  },
];

let storageDir: string;
let logs: LogEntry[];

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-satisfy-"));
  logs = [];
});

afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

/** A channel whose satisfy answers come from `probability` (a function of the request), naming the scripted double. */
function configure(probability: (r: AiRequestOf<"satisfy">) => number | Error, mode: "auto" | "replay" = "auto") {
  const channel = new ScriptedChannel({
    satisfy: (request) => {
      const p = probability(request);
      if (p instanceof Error) throw p;
      return { probability: p, reason: `the status reads as judged (${p})`, model: SCRIPTED_MODEL };
    },
  });
  configureAi({
    channel,
    storageDir,
    mode,
    resultsDir: false,
    log: (entry) => logs.push(entry),
    reportArtifact: () => undefined,
  });
  return channel;
}

async function storedFiles(): Promise<string[]> {
  const root = path.join(storageDir, "_ai_", "apps", "com.example.shop", "judgments");
  const files = await fs.readdir(root, { recursive: true }).catch(() => [] as string[]);
  return files.map((f) => path.join(root, f)).filter((f) => f.endsWith(".json"));
}

describe.each(PLATFORMS)("toSatisfy on $name", ({ ai, script, source }) => {
  function session(status = "Refund requested") {
    const driver = new AppiumDriverDouble({ ...script(), pageSource: source(status) });
    return { driver, browser: asBrowser(driver) };
  }

  test("a true statement passes and is stored; the same snapshot passes next time with 0 model calls", async () => {
    const channel = configure(() => 0.96);
    const { browser } = session();
    const first = await ai.expect(browser).toSatisfy("a refund is requested", { selector: "~order" });
    expect(first).toMatchObject({ outcome: "learned", probability: 0.96, model: SCRIPTED_MODEL, aiCalls: 1 });

    const request = channel.requests[0] as AiRequestOf<"satisfy">;
    expect(request.evidence).toContain('"Refund requested"');
    expect(request.evidence).toMatch(/CheckBox|Switch/);
    // Text, so no crop went with it.
    expect(request.screen).toBeUndefined();

    const element = await browser.$("~order");
    const again = await ai.expect(element).toSatisfy("a refund is requested");
    expect(again).toMatchObject({ outcome: "replayed", aiCalls: 0, evidenceHash: first.evidenceHash });
    expect(channel.count()).toBe(1);
    expect(await storedFiles()).toHaveLength(1);
  });

  test("a false statement fails with the model's reason; .not passes on the same stored judgment", async () => {
    const channel = configure(() => 0.04);
    const { browser } = session();
    const failed = ai.expect(browser).toSatisfy("a refund is requested", { selector: "~order" });
    await expect(failed).rejects.toMatchObject({ code: "not-satisfied" });
    await expect(failed).rejects.toThrow(
      /probability 0\.04.*the status reads as judged \(0\.04\).*Evidence [0-9a-f]{12}/s,
    );
    const negated = await ai.expect(browser).not.toSatisfy("a refund is requested", { selector: "~order" });
    expect(negated).toMatchObject({ outcome: "replayed", aiCalls: 0 });
    expect(channel.count()).toBe(1);
  });

  test(".not fails on a true statement", async () => {
    configure(() => 0.97);
    const { browser } = session();
    await expect(ai.expect(browser).not.toSatisfy("a refund is requested", { selector: "~order" })).rejects.toThrow(
      /P\(false\) >= 0\.9/,
    );
  });

  test("an uncertain probability fails both ways", async () => {
    configure(() => 0.5);
    const { browser } = session();
    const statement = "the refund was approved";
    await expect(ai.expect(browser).toSatisfy(statement, { selector: "~order" })).rejects.toThrow(/uncertain/);
    await expect(ai.expect(browser).not.toSatisfy(statement, { selector: "~order" })).rejects.toThrow(/uncertain/);
    // A lower threshold lets the same stored judgment pass.
    await expect(
      ai.expect(browser).toSatisfy(statement, { selector: "~order", threshold: 0.5 }),
    ).resolves.toMatchObject({ aiCalls: 0 });
  });

  test("an evaluator failure fails under .not too, and stores nothing", async () => {
    configure(() => new Error("the provider is down"));
    const { browser } = session();
    await expect(ai.expect(browser).not.toSatisfy("an error is shown", { selector: "~order" })).rejects.toThrow(
      /provider is down/,
    );
    expect(await storedFiles()).toHaveLength(0);
  });

  test("changed text is judged again in mode auto, and fails naming the snapshot in mode replay", async () => {
    const channel = configure((r) => (r.evidence.includes("Refund requested") ? 0.95 : 0.1));
    const { driver, browser } = session();
    await ai.expect(browser).toSatisfy("a refund is requested", { selector: "~order" });
    driver.script.pageSource = source("Refund approved");
    await expect(ai.expect(browser).toSatisfy("a refund is requested", { selector: "~order" })).rejects.toThrow(
      /Refund approved/,
    );
    expect(channel.count()).toBe(2);

    configure(() => 0.95, "replay");
    driver.script.pageSource = source("Refund pending");
    const replay = ai.expect(browser).toSatisfy("a refund is requested", { selector: "~order", timeout: 3000 });
    await expect(replay).rejects.toMatchObject({ code: "not-stored" });
    await expect(replay).rejects.toThrow(/snapshot [0-9a-f]{12}.*"Refund pending"/s);
  });

  test("an ignore pattern masks varying text from the hash", async () => {
    const channel = configure(() => 0.95);
    const { driver, browser } = session("Refund requested for order #1234");
    const options = { selector: "~order", ignore: [/order #\d+/] };
    await ai.expect(browser).toSatisfy("a refund is requested", options);
    driver.script.pageSource = source("Refund requested for order #9876");
    await expect(ai.expect(browser).toSatisfy("a refund is requested", options)).resolves.toMatchObject({ aiCalls: 0 });
    expect(channel.count()).toBe(1);
  });

  test("typed text never reaches a request, a stored judgment or a log", async () => {
    const channel = configure(() => 0.95);
    const { browser } = session();
    await ai.expect(browser).toSatisfy("a refund is requested", { selector: "~order" });
    await ai.expect(browser).toSatisfy("the screen shows an order", { screenshot: true });
    expect(channel.count()).toBe(2);
    expect(JSON.stringify(channel.requests)).not.toContain(TYPED);
    expect(JSON.stringify(channel.requests)).toContain("[typed text removed]");
    for (const file of await storedFiles()) expect(await fs.readFile(file, "utf8")).not.toContain(TYPED);
    expect(JSON.stringify(logs)).not.toContain(TYPED);
  });

  test("a selector that matches several elements is refused", async () => {
    const channel = configure(() => 0.95);
    const { browser } = session();
    await expect(ai.expect(browser).toSatisfy("shows shoes", { selector: "~item" })).rejects.toThrow(
      /matches 2 elements/,
    );
    expect(channel.count()).toBe(0);
  });

  test("a reverted judgment is not used again: the next run asks the model", async () => {
    const channel = configure(() => 0.95);
    const { browser } = session();
    const first = await ai.expect(browser).toSatisfy("a refund is requested", { selector: "~order" });
    const [file] = await storedFiles();
    const key = path
      .relative(path.join(storageDir, "_ai_"), file!)
      .split(path.sep)
      .join("/")
      .replace(/\.json$/, "");
    const change = await revertValue(new FileStore(storageDir), key, {
      name: "reviewer",
      at: new Date().toISOString(),
    });
    expect(change.action).toBe("deleted");
    const again = await ai.expect(browser).toSatisfy("a refund is requested", { selector: "~order" });
    expect(again).toMatchObject({ outcome: "learned", aiCalls: 1, evidenceHash: first.evidenceHash });
    expect(channel.count()).toBe(2);
  });
});

test("tapshot pending, show and accept list and review judgments", async () => {
  configure(() => 0.95);
  const driver = new AppiumDriverDouble({ ...PLATFORMS[0]!.script(), pageSource: androidSource("Refund requested") });
  await android.expect(asBrowser(driver)).toSatisfy("a refund is requested", { selector: "~order" });
  const where = ["--storage", storageDir];

  const pending = await runCli(["pending", "--json", ...where]);
  const listed = JSON.parse(pending.stdout) as { pending: { kind: string; statement: string; change: string }[] };
  expect(listed.pending).toEqual([
    expect.objectContaining({ kind: "judgment", statement: "a refund is requested", change: "new" }),
  ]);
  const shown = await runCli(["show", "a refund is requested", ...where]);
  expect(shown.stdout).toMatch(/judgment "a refund is requested"[\s\S]*P\(true\)\s+0\.95/);
  expect((await runCli(["accept", "a refund is requested", "--by", "reviewer", ...where])).code).toBe(0);
  const [file] = await storedFiles();
  expect(JSON.parse(await fs.readFile(file!, "utf8"))).toMatchObject({ review: { state: "accepted", by: "reviewer" } });
  expect((await runCli(["pending", "--fail-on-pending", ...where])).code).toBe(0);
}, 60_000);

describe("toSatisfy watches the element", () => {
  const order = { x: 0, y: 300, width: 1080, height: 600 };

  test("a missing element is waited for; one that never comes fails saying so", async () => {
    const channel = configure(() => 0.95);
    const driver = new AppiumDriverDouble({ ...uiautomator2Script(), pageSource: androidSource("Refund requested") });
    setTimeout(() => (driver.script.elements = { "~order": order }), 600);
    await expect(
      android.expect(asBrowser(driver)).toSatisfy("a refund is requested", { selector: "~order" }),
    ).resolves.toMatchObject({ outcome: "learned" });
    await expect(
      android.expect(asBrowser(driver)).toSatisfy("a refund is requested", { selector: "~missing", timeout: 1500 }),
    ).rejects.toMatchObject({ code: "not-found", message: expect.stringMatching(/matches no element/) });
    expect(channel.count()).toBe(1);
  });

  test("a passing judgment counts only if the text reads the same again; each snapshot is judged once", async () => {
    const channel = configure((r) => (r.evidence.includes("Refund requested") ? 0.95 : 0.05));
    const script = { ...uiautomator2Script(), elements: { "~order": order } };
    let reads = 0;
    // The status changes right after the first read: the first snapshot's pass is not accepted.
    Object.defineProperty(script, "pageSource", {
      get: () => androidSource(++reads === 1 ? "Refund requested" : "Refund cancelled"),
    });
    const driver = new AppiumDriverDouble(script);
    await expect(
      android.expect(asBrowser(driver)).toSatisfy("a refund is requested", { selector: "~order" }),
    ).rejects.toThrow(/probability 0\.05.*"Refund cancelled"/s);
    expect(channel.count()).toBe(2);
    expect(reads).toBeGreaterThan(3);
  });

  test("its model calls count against maxAiCalls and are recorded with their kind", async () => {
    const channel = configure(() => 0.95);
    const results = path.join(storageDir, "results");
    configureAi({ channel, storageDir, resultsDir: results, log: false, maxAiCalls: 1 });
    const driver = new AppiumDriverDouble({
      ...uiautomator2Script(),
      pageSource: androidSource("Refund requested"),
      elements: { "~order": order },
    });
    await android.expect(asBrowser(driver)).toSatisfy("a refund is requested", { selector: "~order" });
    await expect(
      android.expect(asBrowser(driver)).toSatisfy("the refund is for shoes", { selector: "~order" }),
    ).rejects.toMatchObject({ code: "budget" });
    expect(channel.count()).toBe(1);
    const [run] = await fs.readdir(results);
    const entries = (await fs.readFile(path.join(results, run!, "calls.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as LogEntry);
    expect(entries.map((e) => [e.api, e.prompt, e.outcome, e.modelCalls?.map((c) => c.kind)])).toEqual([
      ["toSatisfy", "a refund is requested", "learned", ["satisfy"]],
      ["toSatisfy", "the refund is for shoes", "failed", undefined],
    ]);
  });
});
