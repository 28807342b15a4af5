/**
 * `browser.aiAct` (tapshot/wdio) on the UiAutomator2 double: the command runs tapshot's `ai.act` on
 * the session, learns a sign-in once with the scripted channel, replays it with no model call,
 * reports each result to `onResult`, and never lets the values reach a request or a stored record.
 * The rig end to end (real Appium, Chromium, a wire double) is tests/e2e/act.test.ts.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { addAiCommands, type CommandResult } from "../../src/wdio/index.js";
import { androidAdapter } from "../../src/android/adapter.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import type { Control } from "../../src/core/model/contract.js";
import { AppiumDriverDouble, asBrowser, uiautomator2Script } from "../support/appium-driver-double.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

const EMAIL = "ada.wdio@example.com";
const PASSWORD = "wdio-S3cret-pass!";

const SOURCE = `<?xml version="1.0"?><hierarchy rotation="0">
<node class="android.widget.FrameLayout" bounds="[0,0][1080,2400]">
 <node class="android.widget.TextView" resource-id="com.shop:id/title" text="Sign in" bounds="[40,120][1040,200]"/>
 <node class="android.widget.EditText" resource-id="com.shop:id/email" hint="Email" text="" enabled="true" clickable="true" focusable="true" bounds="[40,300][1040,420]"/>
 <node class="android.widget.EditText" resource-id="com.shop:id/password" hint="Password" password="true" text="" enabled="true" clickable="true" focusable="true" bounds="[40,460][1040,580]"/>
 <node class="android.widget.Button" resource-id="com.shop:id/sign_in" text="Sign in" enabled="true" clickable="true" bounds="[40,700][1040,840]"/>
</node></hierarchy>`;

/** The steps the scripted channel decides, in order, by the label of the control they act on. */
const PLAN = [
  { action: "fill", label: /email/i, value: "email" },
  { action: "fill", label: /password/i, value: "password" },
  { action: "tap", label: /sign in/i },
] as const;

function signInChannel(): ScriptedChannel {
  let decided = 0;
  const pick = (controls: Control[], label: RegExp) => controls.find((c) => label.test(c.label))?.id;
  return new ScriptedChannel({
    decide: (r) => {
      const step = PLAN[decided++];
      const choice = step
        ? {
            action: step.action,
            control: pick(r.controls, step.label),
            value: "value" in step ? step.value : undefined,
          }
        : { action: "done" as const };
      return { choices: [{ ...choice, probability: 0.95 }], reason: "the scripted plan", model: SCRIPTED_MODEL };
    },
    complete: () => ({
      probability: decided >= PLAN.length ? 0.95 : 0.1,
      reason: decided >= PLAN.length ? "Sign in was tapped" : "the form is not sent yet",
      model: SCRIPTED_MODEL,
    }),
  });
}

let storageDir: string;
let channel: ScriptedChannel;
beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-wdio-act-"));
  channel = signInChannel();
  configureAi({ channel, storageDir, resultsDir: false, log: false });
});
afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

/** The double as a WebdriverIO browser with addCommand, and the results the commands reported. */
function browser() {
  const driver = new AppiumDriverDouble({ ...uiautomator2Script(), pageSource: SOURCE });
  const session = asBrowser(driver);
  Object.assign(session, {
    addCommand(name: string, fn: (...args: unknown[]) => unknown) {
      Object.assign(session, { [name]: fn.bind(session) });
    },
  });
  const reported: CommandResult[] = [];
  addAiCommands(session, { adapter: androidAdapter, onResult: (done) => void reported.push(done) });
  return { session, reported };
}

/** Every file under a directory, as one buffer. */
async function bytesUnder(dir: string): Promise<Buffer> {
  const files = (await fs.readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
  return Buffer.concat(await Promise.all(files.map((f) => fs.readFile(path.join(f.parentPath, f.name)))));
}

test("aiAct learns a goal once with the model, then replays it with no model call", async () => {
  const { session, reported } = browser();
  const values = { email: EMAIL, password: PASSWORD };
  const learned = await session.aiAct("sign in", { values, timeout: 30_000 });
  expect(learned.outcome).toBe("learned");
  expect(learned.steps.map((s) => [s.action, s.value])).toEqual([
    ["fill", "email"],
    ["fill", "password"],
    ["tap", undefined],
  ]);
  expect(learned.aiCalls).toBeGreaterThan(0);
  const calls = channel.count();

  const replayed = await session.aiAct("sign in", { values, timeout: 30_000 });
  expect(replayed).toMatchObject({ outcome: "replayed", aiCalls: 0 });
  expect(replayed.steps.map((s) => s.action)).toEqual(["fill", "fill", "tap"]);
  expect(channel.count()).toBe(calls);
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
