/**
 * The `-tapshot` locator strategy end to end: the plugin installed from this checkout into an
 * empty APPIUM_HOME runs in a real Appium 3 server (the model is the local OCR engine, as in
 * tests/plugin/plugin.test.ts), and WebdriverIO's own find-element command and Debian's
 * python3-selenium find the demo's "Promo code" field by description, type into it with the
 * client's own commands, find it again with no model call, click the Apply button, and get the
 * client's "no such element" for an element that is not there.
 * Needs dist/ (`npm run build`): Appium loads the package's built `main`.
 */
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { galaxyS23, iphone15, pixel7, type PhoneProfile } from "../../rig/profiles.js";
import type { Rig, RigSession } from "../../rig/session.js";
import { runPythonClient, startPluginServer, type PluginServer } from "../support/plugin-server.js";
import type { LogEntry } from "../../src/core/ground/log.js";

const FIELD = 'the "Promo code" field';
const BUTTON = 'the "Apply" button';
const MISSING = 'the "Gift wrapping" button';
const W3C_ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

let server: PluginServer;
let storage: string;
let results: string;
let rig: Rig;
let phone: RigSession;

/** What tests/plugin/python_find.py prints. */
interface FindReport {
  typed: string;
  tag: string;
  result: string;
  elements: number;
  missing: { raised: boolean; type: string; message: string };
  missing_elements: number;
}

function tapshotCaps(profile: PhoneProfile) {
  return { "tapshot:target": profile.target };
}

/** The log entries the server recorded (TAPSHOT_RUN_ID=find). */
async function serverCalls(): Promise<LogEntry[]> {
  const text = await readFile(join(results, "find", "calls.jsonl"), "utf8");
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogEntry);
}

beforeAll(async () => {
  server = await startPluginServer({ name: "find", runId: "find" });
  ({ storage, results, rig } = server);
  phone = await rig.openSession(pixel7, { capabilities: tapshotCaps(pixel7) });
}, 240_000);

afterAll(async () => {
  await server?.stop();
}, 60_000);

/** WebdriverIO's protocol command `findElement`, and the element it answered as a WebdriverIO element. */
async function findByDescription(description: string) {
  const found = (await phone.driver.findElement("-tapshot", description)) as unknown as Record<string, string>;
  return { found, element: await phone.driver.$(found as never) };
}

test("WebdriverIO: a field found by description is the page's input, typed into with setValue; found again with no model call", async () => {
  await phone.open("promo", { seed: 1 });
  const { element } = await findByDescription(FIELD);
  expect(await element.getTagName()).toBe("input");
  await element.setValue("SAVE10");
  expect(await element.getValue()).toBe("SAVE10");
  expect(await phone.driver.execute(() => (document.getElementById("promo-input") as HTMLInputElement).value)).toBe(
    "SAVE10",
  );

  await phone.open("promo", { seed: 1 });
  const again = await findByDescription(FIELD);
  await again.element.addValue("TAKE5");
  const button = await findByDescription(BUTTON);
  await button.element.click();
  expect(await (await phone.driver.$("[data-testid=promo-result]")).getText()).toBe("Applied: TAKE5");

  const calls = (await serverCalls()).filter((c) => c.api === "find" && c.prompt === FIELD);
  expect(calls.map((c) => c.outcome)).toEqual(["learned", "replayed"]);
  expect(calls[1]!.aiCalls).toBe(0);
  expect(calls[0]!.key).toMatch(/^apps\/127\.0\.0\.1\/locators\/android\/google-pixel-7_14\//);
  expect(
    await readdir(join(storage, "_ai_", "apps", "127.0.0.1", "locators", "android", "google-pixel-7_14")),
  ).toHaveLength(4);
}, 150_000);

test("WebdriverIO: an element that is not there is W3C no such element with tapshot's message", async () => {
  await phone.open("promo", { seed: 1 });
  const response = await fetch(`${rig.appium.url}/session/${phone.driver.sessionId}/element`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ using: "-tapshot", value: MISSING }),
    signal: AbortSignal.timeout(90_000),
  });
  const body = (await response.json()) as { value: { error?: string; message?: string } };
  expect(response.status).toBe(404);
  expect(body.value.error).toBe("no such element");
  expect(body.value.message).toContain(MISSING);
  expect(body.value.message).toContain("did not find it");
  // The client's own command: WebdriverIO answers a find's "no such element" as a value, as it does for $().
  const found = (await phone.driver.findElement("-tapshot", MISSING)) as unknown as Record<string, string>;
  expect(found[W3C_ELEMENT]).toBeUndefined();
}, 150_000);

test("python3-selenium: find_element('-tapshot', ...) answers an element send_keys, click and text work on", async () => {
  const profile = galaxyS23;
  const page = rig.demo.pageUrl("promo", { seed: 3, bars: { ...profile.bars, platform: profile.platform } });
  const report = await runPythonClient<FindReport>(server, {
    script: "python_find.py",
    profile,
    capabilities: tapshotCaps(profile),
    page,
    timeout: 240_000,
  });
  expect(report).toMatchObject({ typed: "SAVE10", tag: "input", result: "Applied: TAKE5", elements: 1 });
  expect(report.missing).toMatchObject({ raised: true, type: "NoSuchElementException" });
  expect(report.missing.message).toContain(MISSING);
  expect(report.missing_elements).toBe(0);
  const device = (await serverCalls()).filter((c) => c.api === "find" && c.device.startsWith("samsung"));
  const field = device.filter((c) => c.prompt === FIELD).map((c) => [c.outcome, c.aiCalls > 0]);
  // The field's placeholder says "Promo code" and no other field does: learned from the page source, no model call.
  expect(field[0]).toEqual(["learned", false]);
  expect(field.slice(1).every(([outcome, asked]) => outcome === "replayed" && !asked)).toBe(true);
}, 300_000);

test("python3-selenium on an Ionic form whose title says the field's label: the field is learned from the page source, with no model call", async () => {
  // The form: OCR reads "Promo code" twice (the toolbar's title and the field's label) and would not
  // guess; the page source (the DOM in the platform's shape) names one field saying it.
  const profile = iphone15;
  const page = rig.demo.pageUrl("promo", {
    variant: "ionic",
    seed: 4,
    bars: { ...profile.bars, platform: profile.platform },
  });
  const before = (await serverCalls().catch(() => [])).length;
  const report = await runPythonClient<FindReport>(server, {
    script: "python_find.py",
    profile,
    capabilities: tapshotCaps(profile),
    page,
    timeout: 240_000,
  });
  expect(report).toMatchObject({ typed: "SAVE10", tag: "input", result: "Applied: TAKE5", elements: 1 });
  const calls = (await serverCalls()).slice(before).filter((c) => c.api === "find" && c.prompt === FIELD);
  expect(calls[0]).toMatchObject({ outcome: "learned", aiCalls: 0, models: ["page-source"] });
  expect(calls[0]!.key).toMatch(/^apps\/127\.0\.0\.1\/locators\/ios\//);
  expect(calls.slice(1).every((c) => c.outcome === "replayed" && c.aiCalls === 0)).toBe(true);
  const record = JSON.parse(await readFile(join(storage, "_ai_", `${calls[0]!.key}.json`), "utf8"));
  expect(record).toMatchObject({ model: "page-source" });
}, 300_000);
