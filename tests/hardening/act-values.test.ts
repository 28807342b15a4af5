/**
 * Values `ai.act` types stay secret on every path (docs/api.md "ai.act", "Values"), on the Appium
 * driver double with the login form (tests/support/login-app.ts) and the scripted channel:
 * driver errors that echo the text (as appium-uiautomator2-server words them), huge values, a goal
 * that holds a value, values by environment reference, WebdriverIO's masking, and a field's typed
 * text in a stored tap. Each check looks for the whole value and for every 16-character piece of it.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import * as android from "../../src/android/index.js";
import { InputError } from "../../src/core/ground/errors.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { LiteralScrubber } from "../../src/core/ground/literal-scrub.js";
import { findElement } from "../../src/core/device/element-queries.js";
import type { AiRequestOf } from "../../rig/scripted-channel.js";
import type { ActionChoice, AiAnswers } from "../../src/core/model/contract.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { AppiumDriverDouble, asBrowser, uiautomator2Script, w3cError } from "../support/appium-driver-double.js";
import { LoginApp } from "../support/login-app.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";
import { piecesOf } from "../support/value-pieces.js";

const GOAL = "sign in with the email and password, without remembering me";

let storageDir: string;
let resultsDir: string;
let logs: LogEntry[];
let channel: ScriptedChannel;

function plan(r: AiRequestOf<"decide">): AiAnswers["decide"] {
  const email = r.controls.find((c) => c.role === "field" && /email/i.test(c.label));
  const password = r.controls.find((c) => c.role === "field" && /password/i.test(c.label));
  const remember = r.controls.find((c) => c.role === "switch");
  const submit = r.controls.find((c) => c.role === "button" && /sign in/i.test(c.label));
  const choose = (choice: Omit<ActionChoice, "probability">): AiAnswers["decide"] => ({
    choices: [{ ...choice, probability: 0.95 }],
    reason: "the form's next empty part",
    model: SCRIPTED_MODEL,
  });
  if (email?.holds === "(empty)") return choose({ action: "fill", control: email.id, value: "email" });
  if (password?.holds === "(empty)") return choose({ action: "fill", control: password.id, value: "password" });
  if (remember?.checked) return choose({ action: "setChecked", control: remember.id, checked: false });
  return choose({ action: "tap", control: submit!.id });
}

function judge(r: AiRequestOf<"complete">): AiAnswers["complete"] {
  const reached = r.controls.some((c) => c.label === "Continue");
  return { probability: reached ? 0.97 : 0.1, reason: reached ? "signed in" : "still the form", model: SCRIPTED_MODEL };
}

function configure(script: ConstructorParameters<typeof ScriptedChannel>[0]) {
  channel = new ScriptedChannel(script);
  configureAi({ channel, storageDir, mode: "auto", resultsDir, log: (entry) => logs.push(entry) });
}

function session(): { driver: AppiumDriverDouble; app: LoginApp } {
  const app = new LoginApp("android");
  const script = uiautomator2Script();
  script.app = app;
  return { driver: new AppiumDriverDouble(script), app };
}

async function filesUnder(dir: string): Promise<string> {
  const names = await fs.readdir(dir, { recursive: true }).catch(() => [] as string[]);
  const texts: string[] = [];
  for (const name of names) {
    const file = path.join(dir, String(name));
    if ((await fs.stat(file)).isFile()) texts.push((await fs.readFile(file)).toString("utf8"));
  }
  return texts.join("\n");
}

/** Fails naming the place and the piece of a value that showed up there. */
async function expectNowhere(values: readonly string[], extra: Record<string, string> = {}) {
  const places: Record<string, string> = {
    requests: JSON.stringify(channel.requests),
    store: await filesUnder(storageDir),
    results: await filesUnder(resultsDir),
    logs: JSON.stringify(logs),
    ...extra,
  };
  for (const [where, text] of Object.entries(places)) {
    for (const value of values) {
      const found = piecesOf(value).find((piece) => text.includes(piece));
      expect({ where, found }).toEqual({ where, found: undefined });
    }
  }
}

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-values-"));
  resultsDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-values-results-"));
  logs = [];
});
afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
  await fs.rm(resultsDir, { recursive: true, force: true });
});

/**
 * appium-uiautomator2-server's answer to a set-text it could not do: handler/SendKeysToElement.java
 * throws InvalidElementStateException(String.format("Cannot set the element to '%s'. Did you interact
 * with the correct element?", text)), which the server sends as W3C "invalid element state" with that
 * message; WebdriverIO surfaces it as an Error of that name and message. `cut` answers as a driver
 * or proxy that shortens a long message does: its first 120 characters and "...".
 */
function failingSetText(driver: AppiumDriverDouble, { cut }: { cut: boolean }) {
  driver.elementSendKeys = async (_id: string, text: string) => {
    const message = `Cannot set the element to '${text}'. Did you interact with the correct element?`;
    throw w3cError("invalid element state", cut ? `${message.slice(0, 120)}...` : message);
  };
}

const TOKEN_200 = Array.from({ length: 200 }, (_, i) => "q7Zk2Rx9Lm4Tw8Pn"[(i * 7) % 16]! + (i % 10))
  .join("")
  .slice(0, 200);
const ECHOED: Record<string, string> = {
  "a multi-line value": "first-line-4471\nsecond-line-9982\nthird",
  "a 200-character token": TOKEN_200,
  "a value holding quotes": `pa"ss'wo\\rd-5521"x`,
};

describe("a driver error that echoes the typed text", () => {
  test.each(
    Object.entries(ECHOED).flatMap(([what, value]) => [
      { what, value, cut: false },
      { what, value, cut: true },
    ]),
  )("$what ($cut: cut) reaches no error, model history, log, calls.jsonl, record or result", async ({ value, cut }) => {
    configure({ decide: plan, complete: judge });
    const { driver } = session();
    failingSetText(driver, { cut });
    const values = { email: "qa-values@example.test", password: value };
    const error = (await android.act(asBrowser(driver), GOAL, { values, maxSteps: 3 }).catch((e) => e)) as Error;
    expect(error.message).toMatch(/not confirmed within maxSteps 3/);
    // The failure was seen: the model's next decide got it in its history, scrubbed.
    const histories = channel.requests.filter((r) => r.kind === "decide").map((r) => JSON.stringify(r));
    expect(histories.join("\n")).toMatch(/Cannot set the element to '\[value/);
    await expectNowhere(Object.values(values), { error: `${error.message}\n${error.stack}` });
  });
});

describe("value limits and the goal", () => {
  test.each([
    ["100,000 characters", 100_000],
    ["1 MB", 1_048_576],
  ])("a value of %s is an InputError naming the value and the limit, before any device action", async (_what, n) => {
    configure({ decide: plan, complete: judge });
    const { driver } = session();
    const huge = Array.from({ length: n }, (_, i) => String.fromCharCode(97 + ((i * 31) % 26))).join("");
    const error = (await android.act(asBrowser(driver), GOAL, { values: { token: huge } }).catch((e) => e)) as Error;
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toMatch(/value "token" is \d+ characters long; a value may be at most 65536/);
    expect(driver.calls).toEqual([]);
    await expectNowhere([huge.slice(0, 4096)], { error: `${error.message}\n${error.stack}` });
  });

  test("a value of exactly 64 KiB is typed", async () => {
    configure({ decide: plan, complete: judge });
    const { driver, app } = session();
    const long = "k".repeat(65_535) + "!";
    const done = await android.act(asBrowser(driver), GOAL, { values: { email: "a@b.test", password: long } });
    expect(done.outcome).toBe("learned");
    expect(app.signedIn?.password).toBe(long);
  });

  test("a goal that holds a value's text is refused before any device or model use, naming the value", async () => {
    configure({ decide: plan, complete: judge });
    const { driver } = session();
    const values = { email: "qa-7f3c@example.test", password: "pw-9Zq!x41K" };
    const error = (await android
      .act(asBrowser(driver), "sign in as QA-7f3c@example.test", { values })
      .catch((e) => e)) as Error;
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toBe(
      "act's goal holds the text of value `email`, which would reach the model and the store: say 'the email' instead.",
    );
    expect(driver.calls).toEqual([]);
    expect(channel.requests).toEqual([]);
    await expectNowhere(Object.values(values), { error: error.message });
  });
});

describe("values by reference and WebdriverIO's masking", () => {
  const VARIABLE = "TAPSHOT_TEST_SHOP_PASSWORD";
  afterEach(() => {
    delete process.env[VARIABLE];
  });

  test("{ env } reads the value where tapshot runs; every value is sent through addValue(text, { mask: true })", async () => {
    process.env[VARIABLE] = "env-secret-77Qx!";
    configure({ decide: plan, complete: judge });
    const { driver, app } = session();
    const values = { email: "qa-env@example.test", password: { env: VARIABLE } };
    const done = await android.act(asBrowser(driver), GOAL, { values });
    expect(done.outcome).toBe("learned");
    expect(app.signedIn).toMatchObject({ email: "qa-env@example.test", password: "env-secret-77Qx!" });
    expect(driver.masked).toBe(2);
    await expectNowhere(["env-secret-77Qx!", "qa-env@example.test"], { result: JSON.stringify(done) });
  });

  test("a variable that is not set is an InputError naming it, before any device action", async () => {
    configure({ decide: plan, complete: judge });
    const { driver } = session();
    const error = (await android
      .act(asBrowser(driver), GOAL, { values: { password: { env: VARIABLE } } })
      .catch((e) => e)) as Error;
    expect(error).toBeInstanceOf(InputError);
    expect(error.message).toMatch(new RegExp(`environment variable ${VARIABLE}, which is not set`));
    expect(driver.calls).toEqual([]);
  });

  test("a reference of another shape says what a value may be", async () => {
    configure({ decide: plan, complete: judge });
    const { driver } = session();
    const error = (await android
      .act(asBrowser(driver), GOAL, { values: { password: { file: "/etc/passwd" } as never } })
      .catch((e) => e)) as Error;
    expect(error.message).toBe(
      `act's value "password" must be a string, or { env: "VARIABLE" } to read it from the environment; got another object.`,
    );
  });
});

describe("a field's typed text is no part of a stored identity", () => {
  test("a tap on a filled field stores its id and class, not what was typed, and replays", async () => {
    const email = "typed-into-field-31@example.test";
    configure({
      decide: plan,
      complete: judge,
      locate: () => {
        const rect = new LoginApp("android").widgets().find((w) => w.key === "email")!.rect;
        return { found: true, box: rect, reason: "the email field", model: SCRIPTED_MODEL };
      },
    });
    const { driver, app } = session();
    app.email = email;
    const learned = await android.tap(asBrowser(driver), "the email field");
    expect(learned.outcome).toBe("learned");
    const stored = await filesUnder(storageDir);
    expect(stored).toContain("com.shop:id/email");
    expect(stored).toContain("android.widget.EditText");
    await expectNowhere([email]);
    const replayed = await android.tap(asBrowser(driver), "the email field");
    expect(replayed).toMatchObject({ outcome: "replayed", aiCalls: 0 });
  });

  test("a record stored with a field's text before is still found by its id and class", () => {
    const now = [
      {
        attributes: { "resource-id": "com.shop:id/email", class: "android.widget.EditText" },
        bounds: { x: 0, y: 0, width: 10, height: 10 },
      },
    ];
    const older = { attributes: { ...now[0]!.attributes, text: "what-was-typed-then" } };
    expect(findElement(now, older, "android")).toMatchObject({ kind: "unique", matched: ["resource-id"] });
  });
});

describe("the literal scrubber", () => {
  const scrubber = new LiteralScrubber([
    { text: "s3cr3t-(.*)+[x]", replacement: "[value a]" },
    { text: "ab", replacement: "[value b]" },
    { text: 'q"uote\nline-two-of-the-long-value', replacement: "[value c]" },
  ]);

  test("matches regular-expression characters literally, whatever their case", () => {
    expect(scrubber.scrub("got S3CR3T-(.*)+[X] here")).toBe("got [value a] here");
  });

  test("replaces a short value only as a whole word", () => {
    expect(scrubber.scrub("ab cab ab.")).toBe("[value b] cab [value b].");
  });

  test("finds a long value JSON-escaped, escaped twice, and cut at either end", () => {
    const value = 'q"uote\nline-two-of-the-long-value';
    const json = JSON.stringify({ message: value });
    expect(scrubber.scrub(json)).toBe('{"message":"[value c]"}');
    expect(scrubber.scrub(JSON.stringify(json))).not.toContain("line-two-of-the");
    expect(scrubber.scrub(`...${value.slice(10)}`)).toBe("...[value c]");
    expect(scrubber.scrub(`to '${value.slice(0, 9)}...`)).toBe("to '[value c]...");
  });

  test("a label that ends in a long value's first word is not taken for a cut value", () => {
    const labels = new LiteralScrubber([{ text: "password-9Zq41K!", replacement: "[value password]" }]);
    expect(labels.scrub("Enter password")).toBe("Enter password");
    expect(labels.scrub("to 'password-9...")).toBe("to '[value password]...");
  });

  test("a megabyte of text with a value at its end is scrubbed", () => {
    const text = "x".repeat(1_048_576) + "s3cr3t-(.*)+[x]";
    expect(scrubber.scrub(text).endsWith("[value a]")).toBe(true);
  });
});
