/**
 * A typed value never shows in WebdriverIO's own log at level `info` nor in Appium's server log at
 * `debug` (docs/api.md "Values"): a child process signs in with `ai.act` on the rig (a real Appium 3
 * server and Chromium; tests/support/act-values-child.ts), learning then replaying, and its whole output
 * and Appium's log file are searched for the whole value and every 16-character piece of it.
 * WebdriverIO's masking is what keeps them out (`addValue(text, { mask: true })`: `**MASKED**` in its log,
 * and the `x-appium-is-sensitive` header for Appium's). A field that is not a password field shows its
 * text in the page source, on a real device as on the rig, and both logs print page sources whole
 * (docs/api.md "Values"): the email is looked for in every line but those.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { PROJECT_ROOT } from "../../rig/appium.js";
import { piecesOf } from "../support/value-pieces.js";

const run = promisify(execFile);
const VALUES = { email: "wdio-log-qa-5521@example.test", password: `pw"with'quotes-and-a-long-tail-9Zq41K` };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "tapshot-values-logs-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

test("WebdriverIO at info and Appium at debug log every fill masked, learned and replayed", async () => {
  const appiumLog = join(dir, "appium.log");
  const { stdout, stderr } = await run(
    process.execPath,
    ["--import", "tsx", "tests/support/act-values-child.ts", join(dir, "storage"), appiumLog, JSON.stringify(VALUES)],
    { cwd: PROJECT_ROOT, timeout: 240_000, maxBuffer: 64 * 1024 * 1024 },
  );
  const outcome = JSON.parse(stdout.trim().split("\n").at(-1)!);
  expect(outcome).toEqual({ learned: "learned", replayed: "replayed", aiCalls: 0, typed: VALUES.password.length });
  const output = `${stdout}\n${stderr}`;
  // The log levels asked for are the ones that print: WebdriverIO's commands, Appium's proxied bodies.
  expect(output).toMatch(/INFO webdriver: COMMAND elementSendKeys\("[^"]+", "\*\*MASKED\*\*"\)/);
  const appium = await readFile(appiumLog, "utf8");
  expect(appium).toMatch(/Proxying \[POST \/session\/[^/]+\/element\/[^/]+\/value\]/);
  const notSource = (log: string) =>
    log
      .split("\n")
      .filter((line) => !line.includes("<hierarchy") && !line.includes("&lt;hierarchy"))
      .join("\n");
  const places = {
    output,
    appium,
    "output, but page sources": notSource(output),
    "appium, but page sources": notSource(appium),
  };
  const looked = { output: [VALUES.password], appium: [VALUES.password] } as Record<string, string[]>;
  for (const [where, text] of Object.entries(places)) {
    for (const value of looked[where] ?? Object.values(VALUES)) {
      const found = piecesOf(value).find((piece) => text.includes(piece));
      expect({ where, found }).toEqual({ where, found: undefined });
    }
  }
}, 300_000);
