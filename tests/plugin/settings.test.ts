/**
 * The plugin's configuration (server arguments over TAPSHOT_* over defaults, per-session
 * capabilities), its parameter checks, and how tapshot's errors become W3C errors.
 */
import { resetConfig, resolveConfig, setConfig } from "../../src/core/config/config.js";
import { ConfigError, ElementNotFoundError, InputError, TimeoutError } from "../../src/core/ground/errors.js";
import { S3Store } from "../../src/core/store/s3-store.js";
import {
  ACT_SCRIPT,
  executeParams,
  MATCH_SCREENSHOT_SCRIPT,
  SATISFY_SCRIPT,
  TAP_SCRIPT,
  TapshotPlugin,
} from "../../src/plugin/plugin.js";
import { pluginConfig, sessionTarget } from "../../src/plugin/settings.js";
import { toW3CError, TapshotW3CError } from "../../src/plugin/w3c-error.js";

/** A plugin session object as src/plugin/driver-session.ts builds it: only its capabilities matter here. */
const session = (caps: Record<string, unknown>) => ({ capabilities: caps });

afterEach(() => resetConfig());

describe("server arguments and environment", () => {
  test("storage: a folder, or an s3:// store that wins over it", () => {
    expect(pluginConfig({ storageDir: "/srv/storage" }, {}).storageDir).toBe("/srv/storage");
    const s3 = pluginConfig({ storageDir: "/srv/storage" }, { TAPSHOT_STORE: "s3://team-tapshot/storage" });
    expect(s3.store).toBeInstanceOf(S3Store);
    expect(s3.storageDir).toBeUndefined();
    expect(() => pluginConfig({ store: "team-tapshot" }, {})).toThrow(
      new ConfigError(
        '--plugin-tapshot-store is "team-tapshot", not a bucket URL: use s3://<bucket>/<prefix> (the folder in the ' +
          "bucket that holds _ai_/), or a storage folder with --plugin-tapshot-storage-dir.",
      ),
    );
  });

  test("bad mode, provider or a model without provider are ConfigErrors naming the argument", () => {
    expect(() => pluginConfig({ mode: "learn" }, {})).toThrow(
      new ConfigError('--plugin-tapshot-mode is "learn"; use "auto" or "replay".'),
    );
    expect(() => pluginConfig({ provider: "claude" }, {})).toThrow(
      new ConfigError('--plugin-tapshot-provider is "claude"; use one of gemini, openai, azure-openai, ocr.'),
    );
    expect(() => pluginConfig({ model: "gemini-2.5-flash" }, {})).toThrow(
      new ConfigError("--plugin-tapshot-model needs --plugin-tapshot-provider (the provider the model belongs to)."),
    );
    // The provider's key stays in the environment; a missing one is the provider's usual error.
    expect(() => pluginConfig({ provider: "gemini" }, {})).toThrow(/GEMINI_API_KEY is not set/);
    expect(pluginConfig({ provider: "ocr" }, {}).channel).toBeDefined();
  });

  test("each session of the server has its own AI budget", () => {
    setConfig(pluginConfig({}, { TAPSHOT_MAX_AI_CALLS: "3" }));
    expect(resolveConfig(session({})).maxAiCallsPer).toBe("session");
    resetConfig();
    expect(resolveConfig(session({})).maxAiCallsPer).toBe("run");
  });

  test("a session's tapshot:mode wins over the server's mode, which wins over TAPSHOT_MODE", () => {
    setConfig(pluginConfig({ mode: "replay" }, {}));
    expect(resolveConfig(session({})).mode).toBe("replay");
    expect(resolveConfig(session({ "tapshot:mode": "auto" })).mode).toBe("auto");
    expect(() => resolveConfig(session({ "tapshot:mode": "learn" }))).toThrow(
      new ConfigError('The capability tapshot:mode is "learn"; use "auto" or "replay".'),
    );
    setConfig(pluginConfig({}, {}));
    const before = process.env.TAPSHOT_MODE;
    process.env.TAPSHOT_MODE = "replay";
    try {
      expect(resolveConfig(session({})).mode).toBe("replay");
    } finally {
      if (before === undefined) delete process.env.TAPSHOT_MODE;
      else process.env.TAPSHOT_MODE = before;
    }
  });

  test("tapshot:target names the session's device; a bad one says what is wrong", () => {
    setConfig(pluginConfig({}, {}));
    const target = { platform: "ios", model: "iPhone 15", osVersion: "17.5" };
    expect(resolveConfig(session({ "tapshot:target": target })).target).toEqual(target);
    expect(resolveConfig(session({})).target).toBeUndefined();
    expect(() => sessionTarget({ "tapshot:target": { model: "" } })).toThrow(
      /^The capability tapshot:target is invalid: model: .*Use an object such as/,
    );
  });

  test("tapshot:project names the session's project; a server requiring one refuses a session without it", () => {
    setConfig(pluginConfig({}, {}));
    expect(resolveConfig(session({ "tapshot:project": "shop-team" }))).toMatchObject({
      project: "shop-team",
      readOldLayout: true,
    });
    expect(resolveConfig(session({})).project).toBeUndefined();
    expect(() => resolveConfig(session({ "tapshot:project": "../other" }))).toThrow(
      /^The capability tapshot:project "\.\.\/other" is not a project name: it holds a path separator\. Use 1-64/,
    );
    expect(() => resolveConfig(session({ "tapshot:project": 7 }))).toThrow(/tapshot:project is 7; use a string/);

    setConfig(pluginConfig({ requireProject: true }, {}));
    expect(resolveConfig(session({ "tapshot:project": "shop-team" }))).toMatchObject({ readOldLayout: false });
    expect(() => resolveConfig(session({}))).toThrow(
      /^This Appium server requires a project for tapshot \(--plugin-tapshot-require-project\).*"tapshot:project": "<project>"/,
    );
  });
});

describe("execute parameters", () => {
  test("one object with the method's parameters", () => {
    expect(executeParams(TAP_SCRIPT, [{ prompt: "the checkout button", timeout: 5000 }])).toEqual({
      prompt: "the checkout button",
      timeout: 5000,
    });
    expect(() => executeParams(TAP_SCRIPT, [{ prompt: "a" }, { prompt: "b" }])).toThrow(
      new InputError(
        'tapshot: tap takes one object of parameters, e.g. { "prompt": "the checkout button" }; it got ' +
          '[{"prompt":"a"},{"prompt":"b"}].',
      ),
    );
    expect(() => executeParams(MATCH_SCREENSHOT_SCRIPT, [{ name: "cart" }])).toThrow(
      new InputError('tapshot: matchScreenshot needs prompt, e.g. { "name": "cart", "prompt": "the cart" }.'),
    );
    expect(() => executeParams(MATCH_SCREENSHOT_SCRIPT, [{ name: "cart", prompt: "p", signal: 1 }])).toThrow(
      /has no parameter signal; its parameters are name, prompt, autoHeal, threshold/,
    );
  });

  test("tapshot: satisfy takes toSatisfy's options a client can send, and names its own example", () => {
    const params = { statement: "the total is 42", screenshot: true, ignore: ["Order #"], selector: "~total" };
    expect(executeParams(SATISFY_SCRIPT, [params])).toEqual(params);
    expect(() => executeParams(SATISFY_SCRIPT, [{ selector: "~total" }])).toThrow(
      new InputError('tapshot: satisfy needs statement, e.g. { "statement": "the cart shows 2 items" }.'),
    );
    expect(() => executeParams(SATISFY_SCRIPT, [{ statement: "s", signal: 1 }])).toThrow(
      /has no parameter signal; its parameters are statement, selector, not, threshold, context, screenshot, ignore, timeout/,
    );
  });

  test("tapshot: act takes ai.act's options a client can send; its errors never show a value", () => {
    const params = {
      goal: "sign in",
      values: { email: "a@b.c", password: "pw" },
      maxSteps: 6,
      timeout: 9000,
      autoHeal: true,
    };
    expect(executeParams(ACT_SCRIPT, [params])).toEqual(params);
    expect(TapshotPlugin.executeMethodMap[ACT_SCRIPT]).toEqual({
      command: "act",
      params: { required: ["goal"], optional: ["values", "maxSteps", "timeout", "autoHeal"] },
    });
    expect(() => executeParams(ACT_SCRIPT, [{ values: { email: "a@b.c" } }])).toThrow(
      new InputError(
        'tapshot: act needs goal, e.g. { "goal": "sign in", "values": { "email": "…", "password": "…" } }.',
      ),
    );
    expect(() => executeParams(ACT_SCRIPT, [{ goal: "sign in", signal: 1 }])).toThrow(
      new InputError(
        "tapshot: act has no parameter signal; its parameters are goal, values, maxSteps, timeout, autoHeal.",
      ),
    );
    // Two objects, or a bare string, are described by their shape: the password sent is not in the message.
    const twice = () => executeParams(ACT_SCRIPT, [params, { goal: "x", values: { password: "Hunter2-secret" } }]);
    expect(twice).toThrow(
      new InputError(
        'tapshot: act takes one object of parameters, e.g. { "goal": "sign in", "values": { "email": "…", "password": "…" } }; ' +
          "it got 2 arguments (an object, an object).",
      ),
    );
    expect(() => executeParams(ACT_SCRIPT, ["Hunter2-secret"])).toThrow(/it got 1 argument \(a string\)\.$/);
    expect(() => executeParams(ACT_SCRIPT, ["Hunter2-secret"])).not.toThrow(/Hunter2/);
  });
});

describe("W3C errors", () => {
  test("tapshot's message as is, a W3C code clients throw on, tapshot's code first in the stack trace", () => {
    const notFound = new ElementNotFoundError('tap "the gift button": the model did not find it.');
    notFound.artifacts = ["/results/run/tap__screenshot.png"];
    const sent = toW3CError(notFound) as TapshotW3CError;
    expect(Object.hasOwn(sent, "error") && Object.hasOwn(sent, "w3cStatus")).toBe(true); // what Appium checks
    expect([sent.error, sent.w3cStatus, sent.message]).toEqual([
      "unknown error",
      500,
      'tap "the gift button": the model did not find it.',
    ]);
    expect(sent.stacktrace.split("\n").slice(0, 2)).toEqual([
      "tapshot-error-code: not-found",
      "tapshot-artifacts: /results/run/tap__screenshot.png",
    ]);
    expect(sent.data).toEqual({ code: "not-found", artifacts: ["/results/run/tap__screenshot.png"] });
    expect((toW3CError(new InputError("bad")) as TapshotW3CError).error).toBe("invalid argument");
    expect((toW3CError(new InputError("bad")) as TapshotW3CError).w3cStatus).toBe(400);
    expect((toW3CError(new TimeoutError("late")) as TapshotW3CError).error).toBe("timeout");
    const other = new Error("socket hang up");
    expect(toW3CError(other)).toBe(other);
  });
});
