/**
 * `tapshot: act`'s values through a real Appium 3 server with the plugin (the rig), its log at
 * `debug` in a file: a value passed by reference (`{ "env": "NAME" }`, read on the Appium host) never
 * crosses the wire nor enters Appium's log; a literal value sent with Appium's
 * `x-appium-is-sensitive: true` header (what WebdriverIO's `mask` sends; docs/plugin.md for other
 * clients) is masked in the log of that request. Each check looks for the whole value and every
 * 16-character piece of it. The Chromium session has no accessibility tree, so act stops before
 * typing (tests/plugin/plugin.test.ts); what crosses the wire and the log is what is checked here.
 * Needs dist/ (`npm run build`).
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pixel7 } from "../../rig/profiles.js";
import type { RigSession } from "../../rig/session.js";
import { startPluginServer, type PluginServer } from "../support/plugin-server.js";
import { piecesOf } from "../support/value-pieces.js";

const VARIABLE = "TAPSHOT_TEST_PLUGIN_PASSWORD";
const BY_REFERENCE = "plugin-env-secret-5521-qZx!";
const LITERAL = { email: "plugin-literal-qa@example.test", password: "plugin-literal-pass-9Zq41K" };

let server: PluginServer;
let phone: RigSession;
let logFile: string;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tapshot-plugin-values-"));
  logFile = join(dir, "appium.log");
  server = await startPluginServer({
    name: "values",
    runId: "values",
    logLevel: "debug",
    args: ["--log", logFile],
    env: { [VARIABLE]: BY_REFERENCE },
  });
  phone = await server.rig.openSession(pixel7, { capabilities: { "tapshot:target": pixel7.target } });
}, 240_000);
afterAll(async () => {
  await phone?.close();
  await server?.stop();
  await rm(dir, { recursive: true, force: true });
}, 60_000);

/** A W3C `execute/sync` as any client sends it, with the headers given. */
async function execute(params: object, headers: Record<string, string> = {}) {
  const url = `${server.rig.appium.url}/session/${phone.driver.sessionId}/execute/sync`;
  const body = JSON.stringify({ script: "tapshot: act", args: [params] });
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
    signal: AbortSignal.timeout(60_000),
  });
  return {
    sent: body,
    status: response.status,
    value: ((await response.json()) as { value: { message: string } }).value,
  };
}

/** What act answers before any step on a server whose model is ocr(), which reads text and cannot decide steps. */
const OCR_CANNOT_DECIDE = /^ocr\(\) reads text and cannot choose ai\.act's steps/;

function expectNowhere(places: Record<string, string>, values: string[]) {
  for (const [where, text] of Object.entries(places)) {
    for (const value of values) {
      const found = piecesOf(value).find((piece) => text.includes(piece));
      expect({ where, found }).toEqual({ where, found: undefined });
    }
  }
}

test("a value by reference is read on the Appium host: not on the wire, not in Appium's log", async () => {
  await phone.open("login", { seed: 1 });
  const answer = await execute({ goal: "sign in", values: { password: { env: VARIABLE } }, timeout: 20_000 });
  // The reference was read (a missing one fails first, below); act then stops at its first decision, which the
  // server's ocr() model cannot make.
  expect(answer.value.message).toMatch(OCR_CANNOT_DECIDE);
  const missing = await execute({ goal: "sign in", values: { password: { env: "TAPSHOT_TEST_NOT_SET" } } });
  expect(missing.status).toBe(400);
  expect(missing.value.message).toMatch(
    /environment variable TAPSHOT_TEST_NOT_SET, which is not set where tapshot runs/,
  );
  const log = await readFile(logFile, "utf8");
  expect(log).toContain(VARIABLE); // the request was logged at debug, with the variable's name only
  expectNowhere({ wire: answer.sent, answer: JSON.stringify(answer.value), log }, [BY_REFERENCE]);
}, 120_000);

test("a literal value sent with x-appium-is-sensitive is masked in Appium's log", async () => {
  await phone.open("login", { seed: 1 });
  const answer = await execute(
    { goal: "sign in", values: LITERAL, timeout: 20_000 },
    { "x-appium-is-sensitive": "true" },
  );
  expect(answer.value.message).toMatch(OCR_CANNOT_DECIDE);
  const log = await readFile(logFile, "utf8");
  expect(log).toMatch(/\*\*SECURE\*\*/);
  expectNowhere({ answer: JSON.stringify(answer.value), log }, Object.values(LITERAL));
}, 120_000);
