/**
 * A user's process for tests/e2e/act-values-logs.test.ts: WebdriverIO at log level `info` (the WDIO
 * testrunner's default) on the rig's Appium server at `debug` (its full log in the file named by the
 * second argument), tapshot's own log on, `ai.act` signing in on a real Chromium form with the values
 * given as JSON in the third argument, learned with the scripted channel and then replayed. Prints the
 * two outcomes as its last line. Everything it prints, and the Appium log, must hold no value.
 */
import { writeFileSync } from "node:fs";
import { pixel7 } from "../../rig/profiles.js";
import { rigTarget, startRig } from "../../rig/session.js";
import type { AiRequestOf } from "../../rig/scripted-channel.js";
import type { ActionChoice, AiAnswers } from "../../src/core/model/contract.js";
import { configureAi } from "../../src/runner/index.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "./scripted-channel.js";

const [storageDir, appiumLog, valuesJson] = process.argv.slice(2);
const values = JSON.parse(valuesJson!) as { email: string; password: string };

const FORM = `<!doctype html><html><head><meta name="viewport" content="width=device-width">
<style>body{font:16px sans-serif;margin:24px} input,button{display:block;width:90%;margin:12px 0;padding:10px} [hidden]{display:none}</style>
</head><body><h1>Sign in to Shop</h1>
<input id="email" type="email" placeholder="Email"><input id="password" type="password" placeholder="Password">
<button id="sign-in" onclick="document.getElementById('done').hidden = false">Sign in</button>
<button id="done" hidden>Continue</button></body></html>`;

function plan(r: AiRequestOf<"decide">): AiAnswers["decide"] {
  const by = (role: string, label: RegExp) => r.controls.find((c) => c.role === role && label.test(c.label));
  const choose = (choice: Omit<ActionChoice, "probability">) => ({
    choices: [{ ...choice, probability: 0.95 }],
    reason: "scripted",
    model: SCRIPTED_MODEL,
  });
  const email = by("field", /email/i);
  const password = by("field", /password/i);
  if (email?.holds === "(empty)") return choose({ action: "fill", control: email.id, value: "email" });
  if (password?.holds === "(empty)") return choose({ action: "fill", control: password.id, value: "password" });
  return choose({ action: "tap", control: by("button", /sign in/i)!.id });
}

const judge = (r: AiRequestOf<"complete">): AiAnswers["complete"] => {
  const reached = r.controls.some((c) => c.label === "Continue");
  return { probability: reached ? 0.96 : 0.05, reason: reached ? "signed in" : "the form", model: SCRIPTED_MODEL };
};

const rig = await startRig({ appium: { logLevel: "debug", args: ["--log", appiumLog!] } });
try {
  const session = await rig.openSession(pixel7, { logLevel: "info" });
  configureAi({
    channel: new ScriptedChannel({ decide: plan, complete: judge }),
    storageDir,
    mode: "auto",
    target: rigTarget,
  });
  const open = async () => {
    await session.driver.url(`data:text/html;charset=utf-8,${encodeURIComponent(FORM)}`);
    await session.driver.$("#sign-in").waitForDisplayed();
  };
  await open();
  const learned = await session.ai.act(session.driver, "sign in with the email and password", { values });
  const typed = await session.driver.execute(
    () => (document.getElementById("password") as HTMLInputElement).value.length,
  );
  await open();
  const replayed = await session.ai.act(session.driver, "sign in with the email and password", { values });
  await session.close();
  console.log(
    JSON.stringify({ learned: learned.outcome, replayed: replayed.outcome, aiCalls: replayed.aiCalls, typed }),
  );
} catch (error) {
  writeFileSync(2, `act-values-child failed: ${(error as Error).message}\n`);
  process.exitCode = 1;
} finally {
  await rig.stop();
}
