/**
 * `find` from Node on the rig: the SDK's `find` (the platform API the entries bind, here over the
 * rig adapter) and the WebdriverIO command `browser.aiFind` answer WebdriverIO elements of the
 * session, which WebdriverIO's own `setValue`, `getValue` and `click` work on. The model is the
 * Gemini wire double reading the page's DOM (tests/support/dom-knowledge.ts); a second find on the
 * same device asks it nothing.
 */
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { PROJECT_ROOT } from "../../rig/appium.js";
import { startGeminiDouble, type WireDouble } from "../../rig/model-doubles/index.js";
import { iphone15 } from "../../rig/profiles.js";
import { rigAdapter } from "../../rig/rig-adapter.js";
import { startRig, type Rig } from "../../rig/session.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { addAiCommands } from "../../src/wdio/index.js";
import { domKnowledge, type DomKnowledge } from "../support/dom-knowledge.js";
import { configureRig } from "../support/rig-double.js";
import { resetAi } from "../../src/runner/index.js";

const KEY = "e2e-test-key-not-secret";
const FIELD = 'the "Promo code" field';
const BUTTON = 'the "Apply" button';

let rig: Rig;
let double: WireDouble;
let knowledge: DomKnowledge;
let storageDir: string;
let logs: LogEntry[];
let home: string;

// An APPIUM_HOME of the test's own with the Chromium driver linked from node_modules, as
// tests/plugin/plugin.test.ts does: the project's home keeps its manifest in a node_modules cache
// that other checkouts of the machine may share.
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "tapshot-find-home-"));
  await mkdir(join(home, "npm-prefix", "lib"), { recursive: true });
  const appium = join(PROJECT_ROOT, "node_modules/appium/index.js");
  const driver = join(PROJECT_ROOT, "node_modules/appium-chromium-driver");
  await promisify(execFile)(process.execPath, [appium, "driver", "install", "--source=local", driver], {
    env: { ...process.env, APPIUM_HOME: home, npm_config_prefix: join(home, "npm-prefix") },
    timeout: 120_000,
  });
  knowledge = domKnowledge();
  [rig, double] = await Promise.all([startRig({ appium: { home } }), startGeminiDouble(knowledge, { apiKey: KEY })]);
}, 240_000);

afterAll(async () => {
  resetAi();
  await Promise.allSettled([rig?.stop(), double?.close()]);
  if (home) await rm(home, { recursive: true, force: true, maxRetries: 5 });
}, 60_000);

beforeEach(async () => {
  storageDir = await mkdtemp(join(tmpdir(), "tapshot-find-"));
  logs = [];
  configureRig(double, KEY, { storageDir, log: (entry) => logs.push(entry) });
});

afterEach(async () => {
  await rm(storageDir, { recursive: true, force: true });
});

test("find answers the page's input as a WebdriverIO element; browser.aiFind the button; replays ask no model", async () => {
  const session = await rig.session(iphone15);
  knowledge.session = session;
  const { driver } = session;
  addAiCommands(driver, { adapter: rigAdapter(iphone15) });

  await session.open("promo", { seed: 1 });
  const field = (await session.ai.find(driver, FIELD)).element as WebdriverIO.Element;
  expect(await field.getTagName()).toBe("input");
  await field.setValue("SAVE10");
  expect(await field.getValue()).toBe("SAVE10");
  const located = double.received.filter((r) => r.kind === "locate").length;

  await session.open("promo", { seed: 1 });
  const again = await session.ai.find(driver, FIELD);
  expect(again.outcome).toBe("replayed");
  await (again.element as WebdriverIO.Element).setValue("TAKE5");
  const button = (await driver.aiFind(BUTTON)) as WebdriverIO.Element;
  await button.click();
  expect(await (await driver.$("[data-testid=promo-result]")).getText()).toBe("Applied: TAKE5");

  // The field's replay asked nothing; the button, the page source's only button saying "Apply", was learned
  // from the page source with no model request.
  expect(double.received.filter((r) => r.kind === "locate").length).toBe(located);
  expect(logs.at(-1)).toMatchObject({ api: "find", prompt: BUTTON, aiCalls: 0, models: ["page-source"] });
  expect(logs.map((l) => [l.api, l.prompt, l.outcome])).toEqual([
    ["find", FIELD, "learned"],
    ["find", FIELD, "replayed"],
    ["find", BUTTON, "learned"],
  ]);
  const stored = await readdir(join(storageDir, "_ai_", "apps", "127.0.0.1", "locators", "ios", "iphone-15_17.5"));
  expect(stored.filter((f) => f.endsWith(".json"))).toHaveLength(2);
}, 180_000);
