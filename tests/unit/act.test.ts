/**
 * `ai.act` through the Android and iOS entries on the Appium driver double with a login form
 * (tests/support/login-app.ts) and the scripted channel: a goal learned with the model is replayed
 * with no model call; values never reach a request, a record, a log line, the results or the
 * result; a moved control still acts (by its crop), a removed one fails naming its step or heals;
 * a loading state is waited for.
 */
import { promises as fs } from "node:fs";
import { getEventListeners } from "node:events";
import sharp from "sharp";
import os from "node:os";
import path from "node:path";
import * as android from "../../src/android/index.js";
import * as ios from "../../src/ios/index.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import type { AiRequestOf } from "../../rig/scripted-channel.js";
import type { ActionChoice, AiAnswers } from "../../src/core/model/contract.js";
import { ActRecordSchema } from "../../src/core/store/act-record.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { AppiumDriverDouble, asBrowser, uiautomator2Script, xcuitestScript } from "../support/appium-driver-double.js";
import { LoginApp, type LoginVariant } from "../support/login-app.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

const GOAL = "sign in with the email and password, without remembering me";
/** Values whose bytes are searched for everywhere tapshot writes. */
const VALUES = { email: "qa-7f3c@example.test", password: "pw-9Zq!x41K" };

type Platform = "android" | "ios";
const PHONES: { name: Platform; api: typeof android | typeof ios }[] = [
  { name: "android", api: android },
  { name: "ios", api: ios },
];

let storageDir: string;
let resultsDir: string;
let logs: LogEntry[];
let channel: ScriptedChannel;

/** The decisions a careful reader of the form would make: fill, fill, switch off, sign in. */
function plan(r: AiRequestOf<"decide">): AiAnswers["decide"] {
  const find = (test: (c: (typeof r.controls)[number]) => boolean) => r.controls.find(test);
  const email = find((c) => c.role === "field" && /email/i.test(c.label));
  const password = find((c) => c.role === "field" && /password/i.test(c.label));
  const remember = find((c) => c.role === "switch");
  const submit = find((c) => c.role === "button" && /sign in|log in/i.test(c.label));
  const choose = (choice: Omit<ActionChoice, "probability">): AiAnswers["decide"] => ({
    choices: [{ ...choice, probability: 0.95 }],
    reason: "the form's next empty part",
    model: SCRIPTED_MODEL,
  });
  if (email?.holds === "(empty)") return choose({ action: "fill", control: email.id, value: "email" });
  if (password?.holds === "(empty)") return choose({ action: "fill", control: password.id, value: "password" });
  if (remember?.checked) return choose({ action: "setChecked", control: remember.id, checked: false });
  if (submit) return choose({ action: "tap", control: submit.id });
  return choose({ action: "wait" });
}

/** The goal is reached once the confirmation's Continue shows. */
function judge(r: AiRequestOf<"complete">): AiAnswers["complete"] {
  const reached = r.controls.some((c) => c.label === "Continue");
  return { probability: reached ? 0.97 : 0.1, reason: reached ? "signed in" : "still the form", model: SCRIPTED_MODEL };
}

function configure(script: ConstructorParameters<typeof ScriptedChannel>[0], extra: object = {}) {
  channel = new ScriptedChannel(script);
  configureAi({ channel, storageDir, mode: "auto", resultsDir, log: (entry) => logs.push(entry), ...extra });
}

function session(platform: Platform, variant: LoginVariant = {}): { driver: AppiumDriverDouble; app: LoginApp } {
  const app = new LoginApp(platform, variant);
  const script = platform === "android" ? uiautomator2Script() : xcuitestScript();
  script.app = app;
  return { driver: new AppiumDriverDouble(script), app };
}

/** Every file under `dir`, as text. */
async function filesUnder(dir: string): Promise<string> {
  const names = await fs.readdir(dir, { recursive: true }).catch(() => [] as string[]);
  const texts: string[] = [];
  for (const name of names) {
    const file = path.join(dir, String(name));
    if ((await fs.stat(file)).isFile()) texts.push((await fs.readFile(file)).toString("latin1"));
  }
  return texts.join("\n");
}

/** Fails naming where a value's bytes showed up. */
async function expectNoValues(result: unknown) {
  const places: Record<string, string> = {
    requests: JSON.stringify(channel.requests),
    store: await filesUnder(storageDir),
    results: await filesUnder(resultsDir),
    logs: JSON.stringify(logs),
    result: JSON.stringify(result),
  };
  for (const [where, text] of Object.entries(places)) {
    for (const value of Object.values(VALUES))
      expect({ where, found: text.includes(value) }).toEqual({ where, found: false });
  }
}

/** The centre of the Android form's email field in `png` is the mask grey: what was typed there is painted over. */
async function expectGreyAtEmail(png: Buffer): Promise<void> {
  const email = new LoginApp("android").widgets().find((w) => w.key === "email")!.rect;
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  const at = ((email.y + (email.height >> 1)) * info.width + email.x + (email.width >> 1)) * info.channels;
  expect([...data.subarray(at, at + 3)]).toEqual([128, 128, 128]);
}

/** How each Element Clear's field was reached: by its id (Find Elements) or as the field a tap focused. */
function howFilled(calls: string[]): string[] {
  return calls.flatMap((call, i) =>
    call.startsWith("elementClear ")
      ? [
          calls[i - 1] === "getActiveElement"
            ? "focused by a tap"
            : calls[i - 1]?.startsWith("$$ ")
              ? "by id"
              : calls[i - 1]!,
        ]
      : [],
  );
}

/** Where the double's app (`com.example.shop`, docs/storage.md "Projects and apps") keeps its acts. */
const ACTS = ["_ai_", "apps", "com.example.shop", "acts"];

async function actFile(): Promise<string> {
  const dir = path.join(storageDir, ...ACTS);
  const [file] = (await fs.readdir(dir, { recursive: true })).map(String).filter((f) => f.endsWith(".json"));
  return path.join(dir, file!);
}

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-act-"));
  resultsDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-act-results-"));
  logs = [];
});
afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
  await fs.rm(resultsDir, { recursive: true, force: true });
});

describe.each(PHONES)("ai.act on $name", ({ name, api }) => {
  test("learns a goal with the model, waiting out the loading state, then replays it with no model call", async () => {
    configure({ decide: plan, complete: judge });
    const first = session(name, { loadingShots: 4 });
    const learned = await api.act(asBrowser(first.driver), GOAL, { values: VALUES });
    expect(learned.outcome).toBe("learned");
    expect(learned.steps.map((s) => [s.action, s.value ?? s.checked ?? null])).toEqual([
      ["fill", "email"],
      ["fill", "password"],
      ["setChecked", false],
      ["tap", null],
    ]);
    expect(first.app.signedIn).toEqual({ ...VALUES, remember: false, country: "Germany" });
    expect(learned.history.some((h) => h.outcome === "waited")).toBe(true);
    expect(learned.history.at(-1)).toMatchObject({ outcome: "completed", probability: 0.97 });
    expect(learned.aiCalls).toBe(channel.count());

    const record = ActRecordSchema.parse(JSON.parse(await fs.readFile(await actFile(), "utf8")));
    expect(record).toMatchObject({ kind: "act", goal: GOAL, valueNames: ["email", "password"], model: SCRIPTED_MODEL });
    expect(record.review).toEqual({ state: "pending" });
    expect(path.relative(storageDir, await actFile())).toMatch(
      new RegExp(
        `^_ai_/apps/com\\.example\\.shop/acts/${name}/sign-in-with-the-email-and-password-without-[a-z-]*-[0-9a-f]{10}/.+\\.json$`,
      ),
    );

    const calls = channel.count();
    const again = session(name);
    const replayed = await api.act(asBrowser(again.driver), GOAL, { values: VALUES });
    expect(replayed).toMatchObject({ outcome: "replayed", aiCalls: 0 });
    expect(channel.count()).toBe(calls);
    expect(again.app.signedIn).toEqual({ ...VALUES, remember: false, country: "Germany" });
    // Every control showed by its identity where it was stored: acted on without a screenshot per step
    // (the one screenshot is the device's description at the call's start).
    expect(again.driver.count("takeScreenshot")).toBe(1);
    await expectNoValues([learned, replayed]);
  });

  test("a replay types into each field found by its stored id, with no focusing tap; the learn tapped to focus", async () => {
    configure({ decide: plan, complete: judge });
    const first = session(name);
    await api.act(asBrowser(first.driver), GOAL, { values: VALUES });
    expect(howFilled(first.driver.calls)).toEqual(["focused by a tap", "focused by a tap"]);
    const again = session(name);
    expect((await api.act(asBrowser(again.driver), GOAL, { values: VALUES })).outcome).toBe("replayed");
    expect(howFilled(again.driver.calls)).toEqual(["by id", "by id"]);
    expect(again.driver.count("getActiveElement")).toBe(0);
    // The switch and the button are tapped: two W3C taps, none for the fields.
    expect(again.driver.actions).toHaveLength(2);
    expect(again.app.signedIn).toEqual({ ...VALUES, remember: false, country: "Germany" });
  });

  test("a replayed fill that a key press follows keeps its focusing tap, so the key reaches that field", async () => {
    let pressed = false;
    configure({
      decide: (r: AiRequestOf<"decide">): AiAnswers["decide"] => {
        const email = r.controls.find((c) => c.role === "field" && /email/i.test(c.label));
        if (pressed || email?.holds === "(empty)") return plan(r);
        pressed = true;
        return {
          choices: [{ action: "press", key: "enter", probability: 0.9 }],
          reason: "next",
          model: SCRIPTED_MODEL,
        };
      },
      complete: judge,
    });
    const first = session(name);
    const learned = await api.act(asBrowser(first.driver), GOAL, { values: VALUES });
    expect(learned.steps.map((s) => s.action)).toEqual(["fill", "press", "fill", "setChecked", "tap"]);
    const again = session(name);
    expect((await api.act(asBrowser(again.driver), GOAL, { values: VALUES })).outcome).toBe("replayed");
    expect(howFilled(again.driver.calls)).toEqual(["focused by a tap", "by id"]);
    // UiAutomator2's `mobile: pressKey` with KEYCODE_ENTER; XCUITest a typed "\n" to the focused field.
    expect(again.app.keys).toEqual([name === "android" ? "66" : "enter"]);
  });

  test("a replay waits out a loading screen before its first step instead of failing", async () => {
    configure({ decide: plan, complete: judge });
    await api.act(asBrowser(session(name).driver), GOAL, { values: VALUES });
    const calls = channel.count();
    const loading = session(name, { startLoading: 12 });
    const result = await api.act(asBrowser(loading.driver), GOAL, { values: VALUES });
    expect(result).toMatchObject({ outcome: "replayed", aiCalls: 0 });
    expect(channel.count()).toBe(calls);
    expect(loading.app.signedIn).toEqual({ ...VALUES, remember: false, country: "Germany" });
  });

  test("a moved control with a new id still acts, found by its crop", async () => {
    configure({ decide: plan, complete: judge });
    await api.act(asBrowser(session(name).driver), GOAL, { values: VALUES });
    const moved = session(name, { signInShift: 40, signInId: "submit" });
    const result = await api.act(asBrowser(moved.driver), GOAL, { values: VALUES });
    expect(result.outcome).toBe("replayed");
    expect(moved.app.signedIn).toBeDefined();
    expect(logs.at(-1)?.detail).toMatch(/found by its crop/);
  });

  test("a moved, rebuilt form whose empty fields look alike replays, each field told by its hint", async () => {
    configure({ decide: plan, complete: judge });
    await api.act(asBrowser(session(name, { lookalikeFields: true }).driver), GOAL, { values: VALUES });
    const calls = channel.count();
    const moved = session(name, { lookalikeFields: true, formShift: 30, rebuiltFields: true });
    const result = await api.act(asBrowser(moved.driver), GOAL, { values: VALUES, timeout: 20_000 });
    expect(result).toMatchObject({ outcome: "replayed", aiCalls: 0 });
    expect(channel.count()).toBe(calls);
    expect(moved.app.signedIn).toEqual({ ...VALUES, remember: false, country: "Germany" });
    const notes = JSON.stringify(logs.at(-1)?.detail);
    expect(notes).toMatch(
      /fill \\"Email\\" with value email\\": found by its crop, which matched 2 places; the one where the page source shows a field \\"Email\\"/,
    );
  });

  test("a crop that matches only a field of another label is not typed into: the step fails instead", async () => {
    configure({ decide: plan, complete: judge });
    await api.act(asBrowser(session(name, { lookalikeFields: true }).driver), GOAL, { values: VALUES });
    // The fields alone moved, the password field now over the switch's top: its crop matches only the filled
    // email field, which looks as the empty fields do.
    const moved = session(name, { lookalikeFields: true, fieldsShift: 30, rebuiltFields: true });
    await expect(api.act(asBrowser(moved.driver), GOAL, { values: VALUES, timeout: 20_000 })).rejects.toThrow(
      /step 2 \(fill "Password" with value password\) found no control/,
    );
    expect(moved.app.email).toBe(VALUES.email);
    expect(moved.app.password).toBe("");
  });

  test("a removed control fails naming its step, and heals with autoHeal", async () => {
    configure({ decide: plan, complete: judge });
    await api.act(asBrowser(session(name).driver), GOAL, { values: VALUES });
    const calls = channel.count();
    const removed = session(name, { signInRenamed: true });
    await expect(api.act(asBrowser(removed.driver), GOAL, { values: VALUES, timeout: 20_000 })).rejects.toThrow(
      /step 4 \(tap "Sign in"\) found no control/,
    );
    expect(channel.count()).toBe(calls);
    if (name === "android") {
      // The failure's kept screenshot shows the form after steps 1-3: the typed fields are painted over.
      const [kept] = (await fs.readdir(resultsDir, { recursive: true })).map(String).filter((f) => f.endsWith(".png"));
      await expectGreyAtEmail(await fs.readFile(path.join(resultsDir, kept!)));
    }

    const healing = session(name, { signInRenamed: true });
    const healed = await api.act(asBrowser(healing.driver), GOAL, { values: VALUES, autoHeal: true });
    expect(healed.outcome).toBe("healed");
    expect(healed.steps.at(-1)).toMatchObject({ action: "tap", control: "Log in" });
    expect(healing.app.signedIn).toEqual({ ...VALUES, remember: false, country: "Germany" });
    const record = ActRecordSchema.parse(JSON.parse(await fs.readFile(await actFile(), "utf8")));
    expect(record.previous?.steps.at(-1)?.control?.label).toBe("Sign in");
    expect(record.steps.at(-1)?.control?.label).toBe("Log in");
    expect(record.review).toEqual({ state: "pending" });
    await expectNoValues(healed);
  });
});

describe("ai.act's policy (Android)", () => {
  /** Answers `decide` from a queue, then by the plan. */
  function queued(answers: Partial<ActionChoice>[][]) {
    return (r: AiRequestOf<"decide">): AiAnswers["decide"] => {
      const next = answers.shift();
      if (!next) return plan(r);
      return { choices: next as ActionChoice[], reason: "scripted", model: SCRIPTED_MODEL };
    };
  }

  test("refuses uncertain, unknown, repeated, double-filled and unconfirmed choices, and counts them as steps", async () => {
    const emailId = "c1";
    const passwordId = "c2";
    configure({
      decide: queued([
        [],
        [
          { action: "tap", control: "c5", probability: 0.7 },
          { action: "tap", control: "c4", probability: 0.5 },
        ],
        [{ action: "tap", control: "c99", probability: 0.9 }],
        [{ action: "fill", control: emailId, value: "phone", probability: 0.9 }],
        // The first clear focuses the field (a changed screen); the second leaves it as it was.
        [{ action: "clear", control: emailId, probability: 0.9 }],
        [{ action: "clear", control: emailId, probability: 0.9 }],
        [{ action: "clear", control: emailId, probability: 0.9 }],
        [{ action: "fill", control: emailId, value: "email", probability: 0.9 }],
        [{ action: "fill", control: passwordId, value: "email", probability: 0.9 }],
        [{ action: "done", probability: 0.4 }],
        [{ action: "done", probability: 0.85 }],
      ]),
      complete: judge,
    });
    const { driver, app } = session("android");
    const result = await android.act(asBrowser(driver), GOAL, { values: VALUES, maxSteps: 20 });
    const refused = result.history.filter((h) => h.outcome === "refused").map((h) => h.reason);
    expect(refused).toEqual([
      "the model gave no choice",
      expect.stringMatching(/^uncertain: 0.70 is below 0.8, and not at least 0.5 with 0.3 above the next \(0.50\)/),
      'no control "c99" was observed',
      expect.stringMatching(/^"fill" names no supplied value/),
      "the same action was already done on this unchanged screen",
      'the value "email" was already filled into another field in this call',
      '"done" at 0.40 is below 0.5',
      '"done", but the goal was not confirmed on this screen',
    ]);
    expect(result.outcome).toBe("learned");
    expect(app.signedIn).toEqual({ ...VALUES, remember: false, country: "Germany" });
    expect(result.history.filter((h) => h.outcome === "refused").map((h) => h.probability)).toEqual([
      undefined,
      0.7,
      0.9,
      0.9,
      0.9,
      0.9,
      0.4,
      0.85,
    ]);
    await expectNoValues(result);
  });

  test("takes a choice at 0.5 or more when 0.3 above the next", async () => {
    configure({
      decide: queued([
        [
          { action: "fill", control: "c1", value: "email", probability: 0.6 },
          { action: "tap", control: "c5", probability: 0.2 },
        ],
      ]),
      complete: judge,
    });
    const result = await android.act(asBrowser(session("android").driver), GOAL, { values: VALUES });
    expect(result.history[0]).toMatchObject({ outcome: "done", probability: 0.6 });
  });

  test("fails when maxSteps run out, after a final completion check", async () => {
    configure({ decide: plan, complete: judge });
    const { driver } = session("android");
    await expect(android.act(asBrowser(driver), GOAL, { values: VALUES, maxSteps: 2 })).rejects.toThrow(
      /the goal was not confirmed within maxSteps 2 \(2 actions done, 0 failed or refused\)/,
    );
    expect(channel.count("complete")).toBe(2);
    expect(await filesUnder(path.join(storageDir, "_ai_"))).toBe("");
  });

  test("ends at the model call budget", async () => {
    configure({ decide: plan, complete: judge }, { maxAiCalls: 3 });
    await expect(android.act(asBrowser(session("android").driver), GOAL, { values: VALUES })).rejects.toThrow(
      /maxAiCalls/,
    );
    expect(channel.count()).toBe(3);
  });

  test("selects a spinner's option", async () => {
    configure({
      decide: queued([[{ action: "select", control: "c4", option: "France", probability: 0.9 }]]),
      complete: judge,
    });
    const { driver, app } = session("android");
    const result = await android.act(asBrowser(driver), `${GOAL}, from France`, { values: VALUES });
    expect(result.steps[0]).toMatchObject({ action: "select", option: "France", control: "Country, Germany" });
    expect(app.signedIn?.country).toBe("France");
  });

  test("refuses bad input before any device or model call, naming no value", async () => {
    configure({ decide: plan, complete: judge });
    const { driver } = session("android");
    await expect(android.act(asBrowser(driver), GOAL, { values: { "1x": VALUES.password } })).rejects.toThrow(
      /value name "1x" must start with a letter/,
    );
    await expect(android.act(asBrowser(driver), GOAL, { maxSteps: 21 })).rejects.toThrow(/1 to 20/);
    await expect(android.act(asBrowser(driver), GOAL, { timeout: 300_001 })).rejects.toThrow(/at most|1 to 300000/);
    expect(driver.calls).toEqual([]);
  });

  test("mode replay with nothing stored fails without asking the model", async () => {
    configure({ decide: plan, complete: judge }, { mode: "replay" });
    await expect(android.act(asBrowser(session("android").driver), GOAL, { values: VALUES })).rejects.toThrow(
      /No stored act for ".*" with values email, password/,
    );
    expect(channel.count()).toBe(0);
  });
});

test("a typed value never reaches a model as pixels: filled fields are painted grey on every screen sent", async () => {
  configure({ decide: plan, complete: judge });
  await android.act(asBrowser(session("android").driver), GOAL, { values: VALUES });
  const sent = channel.requests.filter(
    (r) => (r.kind === "decide" || r.kind === "complete") && r.controls.some((c) => c.holds === "email"),
  ) as AiRequestOf<"decide" | "complete">[];
  expect(sent.length).toBeGreaterThan(0);
  for (const request of sent) await expectGreyAtEmail(Buffer.from(request.screen.data, "base64"));
});

describe("ai.act's records under review, its deadline and its device errors", () => {
  test("a healed act is pending review; revert restores the previous steps, accept marks it accepted", async () => {
    const { readStoreModel } = await import("../../src/cli/model.js");
    const { acceptValue, revertValue } = await import("../../src/cli/review/actions.js");
    configure({ decide: plan, complete: judge });
    await android.act(asBrowser(session("android").driver), GOAL, { values: VALUES });
    await android.act(asBrowser(session("android", { signInRenamed: true }).driver), GOAL, {
      values: VALUES,
      autoHeal: true,
    });
    const model = await readStoreModel(storageDir);
    expect(model.acts.map((a) => [a.subject, a.device, a.record.review?.state])).toEqual([
      [GOAL, "google-pixel-7_14", "pending"],
    ]);
    const key = model.acts[0]!.key;
    const by = { name: "QA <qa@example.test>", at: new Date().toISOString() };
    expect(await revertValue(model.store, key, by)).toMatchObject({ action: "reverted" });
    const reverted = ActRecordSchema.parse(JSON.parse(await fs.readFile(await actFile(), "utf8")));
    expect(reverted.steps.at(-1)?.control?.label).toBe("Sign in");
    expect(reverted.previous).toBeUndefined();
    expect(reverted.rejected).toHaveLength(1);
    // The first learned value is still pending: accepting it marks it accepted.
    expect(await acceptValue(model.store, key, by)).toMatchObject({ action: "accepted" });
    const accepted = ActRecordSchema.parse(JSON.parse(await fs.readFile(await actFile(), "utf8")));
    expect(accepted.review).toMatchObject({ state: "accepted", by: by.name });
  });

  test("the call's timeout ends a model request that never answers, with nothing done after", async () => {
    let aborted: AbortSignal | undefined;
    channel = new ScriptedChannel({});
    const hanging = {
      request: (_r: unknown, { signal }: { signal: AbortSignal }) => {
        aborted = signal;
        return new Promise<never>(() => undefined);
      },
    };
    configureAi({ channel: hanging as never, storageDir, mode: "auto", resultsDir, log: (e) => logs.push(e) });
    const { driver, app } = session("android");
    await expect(android.act(asBrowser(driver), GOAL, { values: VALUES, timeout: 2_500 })).rejects.toThrow(
      /did not finish within its 2500 ms timeout/,
    );
    expect(aborted?.aborted).toBe(true);
    const actions = driver.actions.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(driver.actions.length).toBe(actions);
    expect(app.email).toBe("");
  });

  test("a driver error while typing never shows the value", async () => {
    configure({ decide: plan, complete: judge });
    const { driver } = session("android");
    driver.elementSendKeys = async (_id: string, text: string) => {
      throw new Error(`invalid element state: cannot set the text '${text}'`);
    };
    const error = await android.act(asBrowser(driver), GOAL, { values: VALUES, maxSteps: 1 }).catch((e: Error) => e);
    expect((error as Error).message).toMatch(/not confirmed within maxSteps 1/);
    await expectNoValues({ message: (error as Error).message, stack: (error as Error).stack });
    expect(JSON.stringify(logs)).toContain("cannot set the text '[value]'");
  });

  test("press back is refused on iOS with a clear reason, and pressed on Android", async () => {
    const backThenPlan = () => {
      let first = true;
      return (r: AiRequestOf<"decide">): AiAnswers["decide"] => {
        if (!first) return plan(r);
        first = false;
        return { choices: [{ action: "press", key: "back", probability: 0.9 }], reason: "back", model: SCRIPTED_MODEL };
      };
    };
    configure({ decide: backThenPlan(), complete: judge });
    const onIos = await ios.act(asBrowser(session("ios").driver), GOAL, { values: VALUES, maxSteps: 6 });
    expect(onIos.history[0]).toMatchObject({ outcome: "failed", reason: expect.stringMatching(/no iOS equivalent/) });
    configure({ decide: backThenPlan(), complete: judge });
    const android7 = session("android");
    const onAndroid = await android.act(asBrowser(android7.driver), GOAL, { values: VALUES, maxSteps: 6 });
    expect(onAndroid.steps[0]).toEqual({ action: "press", control: "", key: "back" });
    expect(android7.app.keys).toEqual(["back"]);
  });
});

test("no listener stays on a signal after its step: no MaxListenersExceededWarning however many steps", async () => {
  const warnings: string[] = [];
  const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
  process.on("warning", onWarning);
  try {
    configure({ decide: plan, complete: judge });
    const signal = new AbortController().signal;
    for (let run = 0; run < 3; run++) {
      const { driver } = session("android");
      const done = await android.act(asBrowser(driver), GOAL, { values: VALUES, signal });
      expect(done.outcome).toBe(run === 0 ? "learned" : "replayed");
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(warnings.filter((w) => w.includes("MaxListenersExceeded"))).toEqual([]);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  } finally {
    process.off("warning", onWarning);
  }
});

test("a goal already reached when the call starts succeeds with nothing done and nothing stored", async () => {
  const done = (): AiAnswers["decide"] => ({
    choices: [{ action: "done", probability: 0.95 }],
    reason: "already signed in",
    model: SCRIPTED_MODEL,
  });
  configure({ decide: done, complete: judge });
  const { driver, app } = session("android");
  app.screen = "done";
  const result = await android.act(asBrowser(driver), GOAL, { values: VALUES });
  expect(result).toMatchObject({ outcome: "reached", steps: [] });
  expect(driver.actions).toEqual([]);
  expect(
    await fs.readdir(storageDir, { recursive: true }).then((f) => f.filter((n) => String(n).endsWith(".json"))),
  ).toEqual([]);
  expect(logs.at(-1)).toMatchObject({ api: "act", outcome: "reached" });
  expect(logs.at(-1)!.detail).toMatch(/judged reached before any step: nothing done, nothing stored/);
});
