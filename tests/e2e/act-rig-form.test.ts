/**
 * The rig adapter's part of `ai.act` (rig/rig-adapter.ts) on a real Appium server and Chromium: a
 * plain HTML form's controls in its DOM page source as the platform's classes (fields with their
 * placeholder, a switch, a select whose options show once it is tapped), and fill / setChecked /
 * select / tap done in Chromium through the focused element; then replayed with no model call.
 * Decisions come from the scripted channel (its records say `test-double:scripted`).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AiRequestOf } from "../../rig/scripted-channel.js";
import { rigTarget, startRig, type Rig } from "../../rig/session.js";
import { iphone15, pixel7 } from "../../rig/profiles.js";
import type { ActionChoice, AiAnswers } from "../../src/core/model/contract.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

const VALUES = { email: "rig-qa@example.test", password: "rig-pw-5521" };
const GOAL = "sign in from France without remembering me";

const FORM = `<!doctype html><html><head><meta name="viewport" content="width=device-width">
<style>body{font:16px sans-serif;margin:24px} input,select,button{display:block;width:90%;margin:12px 0;padding:10px;font:inherit}
button{background:#c22;color:#fff;border:0} #remember{width:auto;display:inline} [hidden]{display:none}</style></head><body>
<h1>Sign in to Shop</h1>
<input id="email" type="email" placeholder="Email">
<input id="password" type="password" placeholder="Password">
<label><input id="remember" type="checkbox" role="switch" checked> Remember me</label>
<select id="country" aria-label="Country"><option>Germany</option><option>France</option><option>Japan</option></select>
<button id="sign-in" onclick="
  const r = document.getElementById('result');
  r.textContent = [document.getElementById('email').value === '${VALUES.email}', document.getElementById('password').value === '${VALUES.password}', document.getElementById('remember').checked, document.getElementById('country').value].join(',');
  document.getElementById('done').hidden = false;">Sign in</button>
<p id="result"></p><button id="done" hidden>Continue</button>
</body></html>`;

let rig: Rig;
let storageDir: string;

beforeAll(async () => {
  rig = await startRig();
}, 180_000);
afterAll(async () => {
  resetAi();
  await rig?.stop();
}, 60_000);
beforeEach(async () => {
  storageDir = await mkdtemp(join(tmpdir(), "tapshot-act-rig-"));
});
afterEach(async () => {
  await rm(storageDir, { recursive: true, force: true });
});

function plan(r: AiRequestOf<"decide">): AiAnswers["decide"] {
  const by = (role: string, label: RegExp) => r.controls.find((c) => c.role === role && label.test(c.label));
  const choose = (choice: Omit<ActionChoice, "probability">) => ({
    choices: [{ ...choice, probability: 0.95 }],
    reason: "scripted",
    model: SCRIPTED_MODEL,
  });
  const email = by("field", /email/i);
  const password = by("field", /password/i);
  const remember = by("switch", /remember/i);
  const country = by("select", /country/i);
  if (email?.holds === "(empty)") return choose({ action: "fill", control: email.id, value: "email" });
  if (password?.holds === "(empty)") return choose({ action: "fill", control: password.id, value: "password" });
  if (remember?.checked) return choose({ action: "setChecked", control: remember.id, checked: false });
  if (country && !r.history.some((h) => h.includes("select"))) {
    return choose({ action: "select", control: country.id, option: "France" });
  }
  return choose({ action: "tap", control: by("button", /sign in/i)!.id });
}

const judge = (r: AiRequestOf<"complete">): AiAnswers["complete"] => {
  const reached = r.controls.some((c) => c.label === "Continue");
  return { probability: reached ? 0.96 : 0.05, reason: reached ? "signed in" : "the form", model: SCRIPTED_MODEL };
};

describe.each([pixel7, iphone15])("ai.act on the rig's $id", (profile) => {
  test("fills, switches, selects and signs in on a real Chromium form, then replays with no model call", async () => {
    const channel = new ScriptedChannel({ decide: plan, complete: judge });
    configureAi({ channel, storageDir, mode: "auto", target: rigTarget, resultsDir: false });
    const session = await rig.session(profile);
    const open = async () => {
      await session.driver.url(`data:text/html;charset=utf-8,${encodeURIComponent(FORM)}`);
      await session.driver.$("#sign-in").waitForDisplayed();
    };
    const result = async () => session.driver.$("#result").getText();

    await open();
    const learned = await session.ai.act(session.driver, GOAL, { values: VALUES, maxSteps: 8 });
    expect(learned.outcome).toBe("learned");
    expect(learned.steps.map((s) => s.action)).toEqual(["fill", "fill", "setChecked", "select", "tap"]);
    expect(await result()).toBe("true,true,false,France");

    const calls = channel.count();
    await open();
    const replayed = await session.ai.act(session.driver, GOAL, { values: VALUES, maxSteps: 8 });
    expect(replayed).toMatchObject({ outcome: "replayed", aiCalls: 0 });
    expect(channel.count()).toBe(calls);
    expect(await result()).toBe("true,true,false,France");
    expect(JSON.stringify(channel.requests)).not.toContain(VALUES.password);
  });
});
