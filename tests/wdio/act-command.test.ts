/**
 * `browser.aiAct` (tapshot/wdio) on the UiAutomator2 double with its login form app
 * (tests/support/login-app.ts): the command runs tapshot's `ai.act` on the session, learns a sign-in once with the scripted channel, replays it with no model call,
 * reports each result to `onResult`, and never lets the values reach a request or a stored record.
 * The rig end to end (real Appium, Chromium, a wire double) is tests/e2e/act.test.ts.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { addAiCommands, type CommandResult } from "../../src/wdio/index.js";
import { androidAdapter } from "../../src/android/adapter.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import type { ActionChoice, AiAnswers } from "../../src/core/model/contract.js";
import type { AiRequestOf } from "../../rig/scripted-channel.js";
import { AppiumDriverDouble, asBrowser, uiautomator2Script } from "../support/appium-driver-double.js";
import { LoginApp } from "../support/login-app.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

const EMAIL = "ada.wdio@example.com";
const PASSWORD = "wdio-S3cret-pass!";

/** The next step a reader of the login form would take: fill, fill, then Sign in. */
function plan(r: AiRequestOf<"decide">): AiAnswers["decide"] {
  const email = r.controls.find((c) => c.role === "field" && /email/i.test(c.label));
  const password = r.controls.find((c) => c.role === "field" && /password/i.test(c.label));
  const submit = r.controls.find((c) => c.role === "button" && /sign in/i.test(c.label));
  const choice: Omit<ActionChoice, "probability"> =
    email?.holds === "(empty)"
      ? { action: "fill", control: email.id, value: "email" }
      : password?.holds === "(empty)"
        ? { action: "fill", control: password.id, value: "password" }
        : submit
          ? { action: "tap", control: submit.id }
          : { action: "wait" };
  return { choices: [{ ...choice, probability: 0.95 }], reason: "the form's next part", model: SCRIPTED_MODEL };
}

/** Signed in once the confirmation's Continue shows. */
function judge(r: AiRequestOf<"complete">): AiAnswers["complete"] {
  const reached = r.controls.some((c) => c.label === "Continue");
  return { probability: reached ? 0.97 : 0.1, reason: reached ? "signed in" : "still the form", model: SCRIPTED_MODEL };
}

let storageDir: string;
let channel: ScriptedChannel;
beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-wdio-act-"));
  channel = new ScriptedChannel({ decide: plan, complete: judge });
  configureAi({ channel, storageDir, resultsDir: false, log: false });
});
afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

/** The login app on the double as a WebdriverIO browser with addCommand, and the results the commands reported. */
function browser() {
  const app = new LoginApp("android");
  const script = uiautomator2Script();
  script.app = app;
  const session = asBrowser(new AppiumDriverDouble(script));
  Object.assign(session, {
    addCommand(name: string, fn: (...args: unknown[]) => unknown) {
      Object.assign(session, { [name]: fn.bind(session) });
    },
  });
  const reported: CommandResult[] = [];
  addAiCommands(session, { adapter: androidAdapter, onResult: (done) => void reported.push(done) });
  return { session, reported, app };
}

/** Every file under a directory, as one buffer. */
async function bytesUnder(dir: string): Promise<Buffer> {
  const files = (await fs.readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
  return Buffer.concat(await Promise.all(files.map((f) => fs.readFile(path.join(f.parentPath, f.name)))));
}

test("aiAct learns a goal once with the model, then replays it with no model call", async () => {
  const { session, reported, app } = browser();
  const values = { email: EMAIL, password: PASSWORD };
  const learned = await session.aiAct("sign in", { values, timeout: 30_000 });
  expect(learned.outcome).toBe("learned");
  expect(learned.steps.map((s) => [s.action, s.value])).toEqual([
    ["fill", "email"],
    ["fill", "password"],
    ["tap", undefined],
  ]);
  expect(learned.aiCalls).toBe(channel.count());
  expect(app.signedIn).toEqual({ ...values, remember: true, country: "Germany" });
  const calls = channel.count();

  app.screen = "form";
  app.email = app.password = "";
  app.signedIn = undefined;
  const replayed = await session.aiAct("sign in", { values, timeout: 30_000 });
  expect(replayed).toMatchObject({ outcome: "replayed", aiCalls: 0 });
  expect(replayed.steps.map((s) => s.action)).toEqual(["fill", "fill", "tap"]);
  expect(channel.count()).toBe(calls);
  expect(app.signedIn).toEqual({ ...values, remember: true, country: "Germany" });
  expect(reported.map((r) => [r.api, r.subject, r.result.outcome])).toEqual([
    ["act", "sign in", "learned"],
    ["act", "sign in", "replayed"],
  ]);

  // The values went to the device only: not to a request, the results or the store.
  const sent = JSON.stringify(channel.requests) + JSON.stringify(reported);
  for (const secret of [EMAIL, PASSWORD]) {
    expect(sent).not.toContain(secret);
    expect((await bytesUnder(storageDir)).includes(secret)).toBe(false);
  }
});
