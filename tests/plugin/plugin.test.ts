/**
 * The Appium plugin end to end, driven by clients tapshot did not write: the plugin is installed
 * from this checkout with `appium plugin install --source=local` into an empty APPIUM_HOME (the
 * Chromium driver linked from node_modules the same way), a real Appium 3 server runs it, and
 * WebdriverIO (the rig's classic sessions with `execute`, and a session with WebdriverIO's default
 * options with docs/plugin.md's `executeScript`) and Debian's python3-selenium call `tapshot: tap` and
 * `tapshot: matchScreenshot` (with selector masks), `tapshot: satisfy` (with a selector) and `tapshot: act`
 * (which needs an accessibility tree the Chromium session lacks: its refusal reaches the client). The server's model is the local OCR engine
 * (`--plugin-tapshot-provider=ocr`).
 * Needs dist/ (`npm run build`): Appium loads the package's built `main`.
 */
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PROJECT_ROOT } from "../../rig/appium.js";
import { freePort } from "../../rig/ports.js";
import { capabilitiesFor, galaxyS23, pixel7, type PhoneProfile } from "../../rig/profiles.js";
import type { Rig, RigSession } from "../../rig/session.js";
import { runPythonClient, startPluginServer, type PluginServer } from "../support/plugin-server.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { remote } from "webdriverio";

const CHECKOUT = 'the "Checkout" button';
const MISSING = 'the "Gift wrapping" button';

let server: PluginServer;
let storage: string;
let results: string;
let rig: Rig;
let phone: RigSession;

/** A W3C `execute/sync` as any client sends it, and the status and `value` the server answered. */
async function executeOnWire(session: RigSession, script: string, params: object) {
  const response = await fetch(`${rig.appium.url}/session/${session.driver.sessionId}/execute/sync`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ script, args: [params] }),
    signal: AbortSignal.timeout(60_000),
  });
  const body = (await response.json()) as { value: { error?: string; message?: string; stacktrace?: string } };
  return { status: response.status, value: body.value };
}

/** The capabilities of a rig phone session plus the plugin's own. */
/** What tests/plugin/python_client.py prints. */
interface ClientReport {
  learn: { outcome: string; point: unknown };
  after_learn: string;
  replay: unknown;
  after_replay: string;
  missing: { raised: boolean; type: string; stacktrace_first: string; message: string };
}

function tapshotCaps(profile: PhoneProfile, mode?: "auto" | "replay") {
  return { "tapshot:target": profile.target, ...(mode ? { "tapshot:mode": mode } : {}) };
}

/** The log entries the server recorded (TAPSHOT_RUN_ID=plugin). */
async function serverCalls(): Promise<LogEntry[]> {
  const text = await readFile(join(results, "plugin", "calls.jsonl"), "utf8");
  return text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LogEntry);
}

/** What WebdriverIO's `execute` threw, or a failure when it answered. */
async function rejection(promise: Promise<unknown>): Promise<Error & { name: string }> {
  let value: unknown;
  try {
    value = await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error(`expected an error, got ${JSON.stringify(value)}`);
}

beforeAll(async () => {
  server = await startPluginServer({ name: "home", runId: "plugin" });
  ({ storage, results, rig } = server);
  phone = await rig.openSession(pixel7, { capabilities: tapshotCaps(pixel7) });
}, 240_000);

afterAll(async () => {
  await server?.stop();
}, 60_000);

test("appium plugin install --source=local puts tapshot into an empty APPIUM_HOME", async () => {
  const listed = JSON.parse(await server.appium("plugin", "list", "--installed", "--json"));
  expect(Object.keys(listed)).toEqual(["tapshot"]);
  expect(listed.tapshot).toMatchObject({ pkgName: "tapshot", installType: "local", mainClass: "TapshotPlugin" });
  expect(listed.tapshot.installPath).toBe(PROJECT_ROOT);
});

test("tapshot: tap learns from the page source that names the element, then replays with no model call", async () => {
  await phone.open("cart", { seed: 1 });
  // The page's DOM, served as the platform's page source, holds one button saying "Checkout".
  const learned = await phone.driver.execute("tapshot: tap", { prompt: CHECKOUT });
  expect(learned).toMatchObject({ outcome: "learned", aiCalls: 0 });
  expect(await phone.currentScreen()).toBe("checkout");

  await phone.open("cart", { seed: 1 });
  const replayed = await phone.driver.execute("tapshot: tap", { prompt: CHECKOUT });
  expect(replayed).toEqual({ outcome: "replayed", point: (learned as { point: unknown }).point, aiCalls: 0 });
  expect(await phone.currentScreen()).toBe("checkout");

  // The session's tapshot:target named the device: the store key is the Pixel 7's, not Chromium's.
  expect(await readdir(join(storage, "_ai_", "apps", "127.0.0.1", "taps", "android"))).toEqual(["google-pixel-7_14"]);
  const calls = (await serverCalls()).filter((c) => c.api === "tap" && c.prompt === CHECKOUT);
  expect(calls.map((c) => [c.outcome, c.models])).toEqual([
    ["learned", ["page-source"]],
    ["replayed", []],
  ]);
}, 90_000);

test("two sessions on one server, in parallel, share the store and learn a tap once", async () => {
  const second = await rig.openSession(pixel7, { capabilities: tapshotCaps(pixel7) });
  try {
    const prompt = 'the "Checkout" button below the subtotal';
    await Promise.all([phone.open("cart", { seed: 4 }), second.open("cart", { seed: 4 })]);
    const results = (await Promise.all([phone, second].map((s) => s.driver.execute("tapshot: tap", { prompt })))) as {
      outcome: string;
      aiCalls: number;
    }[];
    // One learned while the other waited for its lock, then replayed what it stored.
    expect(results.map((r) => r.outcome).sort()).toEqual(["learned", "replayed"]);
    expect(results.find((r) => r.outcome === "replayed")!.aiCalls).toBe(0);
    expect(await Promise.all([phone.currentScreen(), second.currentScreen()])).toEqual(["checkout", "checkout"]);
    const logged = (await serverCalls()).filter((c) => c.prompt === prompt);
    expect(logged.filter((c) => c.models.length > 0).map((c) => c.outcome)).toEqual(["learned"]);
  } finally {
    await second.close();
  }
}, 120_000);

test("tapshot: matchScreenshot stores a baseline the OCR model judged, then matches it by pixels", async () => {
  await phone.open("cart", { seed: 2 });
  const prompt = 'the cart titled "Your cart" with a "Checkout" button';
  const stored = await phone.driver.execute("tapshot: matchScreenshot", { name: "cart", prompt });
  expect(stored).toEqual({ outcome: "stored", aiCalls: 1, diffPixels: 0 });
  const matched = await phone.driver.execute("tapshot: matchScreenshot", { name: "cart", prompt });
  expect(matched).toEqual({ outcome: "matched", aiCalls: 0, diffPixels: 0 });
}, 90_000);

test("tapshot: satisfy judges the screen with the server's OCR model once, then reuses the judgment; .not both ways", async () => {
  await phone.open("cart", { seed: 3 });
  const statement = 'shows "Your cart" and does not show "Order summary"';
  const judged = await phone.driver.execute("tapshot: satisfy", { statement });
  expect(judged).toMatchObject({ outcome: "learned", probability: 1, model: "ocr:paddle-ppocrv4", aiCalls: 1 });
  const reused = await phone.driver.execute("tapshot: satisfy", { statement, not: false });
  expect(reused).toMatchObject({ outcome: "replayed", aiCalls: 0 });
  const negated = await rejection(phone.driver.execute("tapshot: satisfy", { statement, not: true, timeout: 10_000 }));
  expect(negated.message).toMatch(/not\.toSatisfy.*probability 1\.00.*P\(false\) >= 0\.9/s);
  const { value } = await executeOnWire(phone, "tapshot: satisfy", { statement: "the cart looks tidy" });
  expect(value.message).toMatch(/ocr\(\) decides only statements about quoted text/);
  expect(value.stacktrace!.split("\n")[0]).toBe("tapshot-error-code: input");
}, 90_000);

test("tapshot: act reaches ai.act through the server; the server's ocr() cannot choose its steps, and no value leaks", async () => {
  await phone.open("login", { seed: 1 });
  const values = { email: "plugin.ada@example.com", password: "Plugin-S3cret-pass" };
  const { status, value } = await executeOnWire(phone, "tapshot: act", { goal: "sign in", values, timeout: 20_000 });
  // The Chromium adapter serves the page's DOM as its page source, and act's first decision goes to the server's
  // model, ocr(), which reads text and cannot choose steps: act says so before any step (docs/plugin.md).
  expect(status).toBeGreaterThanOrEqual(400);
  expect(value.message).toMatch(/^ocr\(\) reads text and cannot choose ai\.act's steps/);
  expect(value.stacktrace!.split("\n")[0]).toMatch(/^tapshot-error-code: /);
  // Nothing was typed, and no value is in the answer, the results or the store.
  expect(await phone.driver.execute(() => (document.querySelector("#email") as HTMLInputElement).value)).toBe("");
  const written = await Promise.all(
    [results, storage].map(async (dir) => {
      const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
      return Promise.all(files.map((f) => readFile(join(f.parentPath, f.name), "latin1")));
    }),
  );
  const bytes = JSON.stringify(value) + written.flat().join("");
  for (const secret of Object.values(values)) expect(bytes).not.toContain(secret);
  const bad = await executeOnWire(phone, "tapshot: act", { goal: "sign in", values, retries: 1 });
  expect([bad.status, bad.value.error]).toEqual([400, "invalid argument"]);
  expect(bad.value.message).toBe(
    "tapshot: act has no parameter retries; its parameters are goal, values, maxSteps, timeout, autoHeal.",
  );
}, 90_000);

test("a missing element reaches the client as a W3C error whose message is tapshot's", async () => {
  await phone.open("cart", { seed: 1 });
  const error = await rejection(phone.driver.execute("tapshot: tap", { prompt: MISSING, timeout: 20_000 }));
  const logged = (await serverCalls()).filter((c) => c.prompt === MISSING);
  expect(logged.map((c) => c.outcome)).toEqual(["failed"]);
  expect(logged[0]!.detail).toContain(MISSING);
  expect(error.name).toBe("unknown error");
  // The log's detail is the error's message followed by the call's notes (the page source did not decide it).
  const [message, notes] = logged[0]!.detail!.split("; page source did not decide");
  expect(notes).toBe(': no button saying "Gift wrapping"');
  expect(error.message).toContain(message);

  // On the wire: W3C "unknown error" (WebdriverIO reads a 404 "no such element" as an answer, src/plugin/w3c-error.ts),
  // tapshot's message as is, tapshot's code opening the stack trace.
  const { status, value } = await executeOnWire(phone, "tapshot: tap", { prompt: MISSING, timeout: 20_000 });
  expect(status).toBe(500);
  expect(value.error).toBe("unknown error");
  expect(value.message!.split("\n")[0]).toBe(message);
  expect(value.stacktrace!.split("\n")[0]).toBe("tapshot-error-code: not-found");
}, 90_000);

test("bad parameters are an invalid argument error that names them; other scripts reach the driver", async () => {
  const { status, value } = await executeOnWire(phone, "tapshot: tap", { prompt: CHECKOUT, retries: 3 });
  expect([status, value.error]).toEqual([400, "invalid argument"]);
  expect(value.message).toBe(
    "tapshot: tap has no parameter retries; its parameters are prompt, verify, autoHeal, heal, scroll, timeout.",
  );
  expect(value.stacktrace!.split("\n")[0]).toBe("tapshot-error-code: input");
  expect(await phone.driver.execute("return 6 * 7")).toBe(42);
});

test("tapshot:mode replay on one session fails a call with nothing stored, asking no model", async () => {
  const other = await rig.openSession(galaxyS23, { capabilities: tapshotCaps(galaxyS23, "replay") });
  try {
    await other.open("cart", { seed: 1 });
    const { status, value } = await executeOnWire(other, "tapshot: tap", { prompt: CHECKOUT });
    expect([status, value.error]).toEqual([500, "unknown error"]);
    expect(value.message).toMatch(
      /^No stored tap for "the "Checkout" button" on samsung-galaxy-s23_14 .*mode is "replay"/,
    );
    expect(value.stacktrace!.split("\n")[0]).toBe("tapshot-error-code: not-stored");
    const logged = (await serverCalls()).filter((c) => c.device === "samsung-galaxy-s23_14");
    expect(logged.map((c) => [c.outcome, c.aiCalls])).toEqual([["failed", 0]]);
  } finally {
    await other.close();
  }
}, 90_000);

test("python3-selenium, a foreign W3C client, learns, replays and gets tapshot's error", async () => {
  const profile = galaxyS23;
  const cart = rig.demo.pageUrl("cart", {
    variant: "default",
    seed: 3,
    bars: { ...profile.bars, platform: profile.platform },
  });
  const report = await runPythonClient<ClientReport>(server, {
    script: "python_client.py",
    profile,
    capabilities: tapshotCaps(profile),
    page: cart,
    timeout: 120_000,
  });
  expect(report.learn.outcome).toBe("learned");
  expect(report.after_learn).toBe("checkout");
  expect(report.replay).toEqual({ outcome: "replayed", point: report.learn.point, aiCalls: 0 });
  expect(report.after_replay).toBe("checkout");
  expect(report.missing).toMatchObject({
    raised: true,
    type: "WebDriverException",
    stacktrace_first: "tapshot-error-code: not-found",
  });
  expect(report.missing.message).toContain(MISSING);
  expect(report.missing.message).not.toMatch(/unknown server-side error/);
}, 150_000);

test("WebdriverIO 9 with default options: executeScript reaches the plugin, and a failing call runs once", async () => {
  const profile = galaxyS23;
  const userDataDir = await mkdtemp(join(tmpdir(), "tapshot-plugin-wdio-"));
  // The rig's Chromium capabilities without its `wdio:enforceWebDriverClassic`, and no other WebdriverIO
  // option: BiDi on, connectionRetryCount 3, as a new project's wdio.conf.ts has it.
  const { "wdio:enforceWebDriverClassic": _classic, ...caps } = capabilitiesFor(profile, {
    chromedriverPort: await freePort(),
    userDataDir,
  }) as Record<string, unknown>;
  void _classic;
  const driver = await remote({
    hostname: rig.appium.hostname,
    port: rig.appium.port,
    path: rig.appium.path,
    logLevel: "silent",
    capabilities: { ...caps, ...tapshotCaps(profile, "replay") } as WebdriverIO.Capabilities,
  });
  try {
    await driver.url(
      rig.demo.pageUrl("cart", { variant: "default", seed: 1, bars: { ...profile.bars, platform: profile.platform } }),
    );
    const prompt = 'the "Gift wrapping" button, asked from WebdriverIO';
    const logged = async () => (await serverCalls()).filter((c) => c.prompt === prompt);
    const retries: number[] = [];
    driver.on("request.retry", ({ retryCount }: { retryCount: number }) => retries.push(retryCount));

    // docs/plugin.md's call, as written: the classic W3C execute, which Appium hands to the plugin.
    const error = await rejection(driver.executeScript("tapshot: tap", [{ prompt }]));
    expect(error.message).toContain(`No stored tap for "${prompt}"`);
    // The client sent it 4 times (3 retries); the server ran it once and answered the copies from memory.
    expect(retries).toEqual([1, 2, 3]);
    expect((await logged()).map((c) => c.outcome)).toEqual(["failed"]);

    // What docs/plugin.md no longer shows: on a BiDi session, `execute` runs the string as page JavaScript
    // (webdriverio's execute command) and never reaches Appium.
    expect(driver.isBidi).toBe(true);
    // The demo page has no `tap`: the label `tapshot:` and the reference `tap` throw in the page.
    const paged = await rejection(driver.execute("tapshot: tap", { prompt }));
    expect(paged.message).toMatch(/ReferenceError: tap is not defined/);
    expect((await logged()).map((c) => c.outcome)).toEqual(["failed"]);
  } finally {
    await driver.deleteSession().catch(() => undefined);
    await rm(userDataDir, { recursive: true, force: true, maxRetries: 5 });
  }
}, 120_000);

test("WebdriverIO 9: docs/plugin.md's executeScript with selector masks and satisfy's selector, found through the session", async () => {
  const profile = pixel7;
  const userDataDir = await mkdtemp(join(tmpdir(), "tapshot-plugin-masks-"));
  const { "wdio:enforceWebDriverClassic": _classic, ...caps } = capabilitiesFor(profile, {
    chromedriverPort: await freePort(),
    userDataDir,
  }) as Record<string, unknown>;
  void _classic;
  const driver = await remote({
    hostname: rig.appium.hostname,
    port: rig.appium.port,
    path: rig.appium.path,
    logLevel: "silent",
    capabilities: { ...caps, ...tapshotCaps(profile, "auto") } as WebdriverIO.Capabilities,
  });
  const open = (seed: number) =>
    driver.url(rig.demo.pageUrl("cart", { variant: "default", seed, bars: { ...profile.bars, platform: "android" } }));
  try {
    // The wallet balance, its date and the status bar's clock change with the seed: mask them by selector.
    const params = {
      name: "cart-masked",
      prompt: 'the cart titled "Your cart" with a "Checkout" button',
      mask: [{ selector: "[data-testid=balance]" }, { selector: "[data-testid=status-clock]" }],
    };
    await open(1);
    const before = await driver.$("[data-testid=balance]").getText();
    const stored = await driver.executeScript("tapshot: matchScreenshot", [params]);
    expect(stored).toMatchObject({ outcome: "stored", aiCalls: 1 });
    await open(2);
    expect(await driver.$("[data-testid=balance]").getText()).not.toBe(before);
    const matched = await driver.executeScript("tapshot: matchScreenshot", [params]);
    expect(matched).toEqual({ outcome: "matched", aiCalls: 0, diffPixels: 0 });

    // tapshot: satisfy with a selector judges the element the session finds (the OCR model reads its crop).
    const judged = await driver.executeScript("tapshot: satisfy", [
      { statement: 'it shows "Total"', selector: "[data-testid=total]" },
    ]);
    expect(judged).toMatchObject({ outcome: "learned", probability: 1, aiCalls: 1 });
    const several = await rejection(
      driver.executeScript("tapshot: satisfy", [{ statement: 'it shows "Total"', selector: ".row" }]),
    );
    expect(several.message).toContain(".row");

    // A selector that matches nothing is no mask: the error names it.
    const { mask: _mask, ...rest } = params;
    void _mask;
    const missing = await rejection(
      driver.executeScript("tapshot: matchScreenshot", [{ ...rest, mask: [{ selector: "[data-testid=gone]" }] }]),
    );
    expect(missing.message).toContain("[data-testid=gone]");
  } finally {
    await driver.deleteSession().catch(() => undefined);
    await rm(userDataDir, { recursive: true, force: true, maxRetries: 5 });
  }
}, 150_000);
