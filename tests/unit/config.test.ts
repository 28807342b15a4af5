import { jest } from "@jest/globals";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { noChannelMessage, registerDefaultChannel, resolveConfig } from "../../src/core/config/config.js";
import { envDefaultChannel } from "../../src/providers/env.js";
import { consoleLogger, type LogEntry } from "../../src/core/ground/log.js";
import { ConfigError, FileStore, configureAi, resetAi, type Store } from "../../src/runner/index.js";
import { ScriptedChannel } from "../support/scripted-channel.js";

const ENV = ["TAPSHOT_STORAGE_DIR", "TAPSHOT_MODE", "TAPSHOT_LOG", "TAPSHOT_RESULTS_DIR", "TAPSHOT_PROVIDER"];
const saved: Record<string, string | undefined> = {};
beforeEach(() => {
  for (const name of ENV) {
    saved[name] = process.env[name];
    delete process.env[name];
  }
  resetAi();
});
afterEach(() => {
  for (const name of ENV) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
  resetAi();
  registerDefaultChannel(undefined);
});

const entry: LogEntry = {
  api: "tap",
  prompt: "p",
  device: "d",
  outcome: "replayed",
  aiCalls: 0,
  models: [],
  durationMs: 1,
};

function configError(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).code).toBe("config");
    return error as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("defaults for standalone use", () => {
  test("storage ./storage, mode auto, a console line per call, results in ./tapshot-results", () => {
    const config = resolveConfig(undefined);
    expect(config.store).toBeInstanceOf(FileStore);
    expect((config.store as FileStore).root).toBe(path.resolve("storage", "_ai_"));
    expect(config.mode).toBe("auto");
    expect(config.log).toBe(consoleLogger);
    expect(config.resultsDir).toBe("tapshot-results");
    expect(config.target).toBeUndefined();
  });

  test("one store object per storage directory", () => {
    expect(resolveConfig(undefined).store).toBe(resolveConfig(undefined).store);
  });

  test("with no channel, asking for one fails with a message that says how to configure one", () => {
    registerDefaultChannel(undefined);
    const bare = configError(() => resolveConfig(undefined).channel());
    expect(bare.message).toBe(noChannelMessage());
    expect(bare.message).toMatch(/configureAi\(\{ channel: gemini\(\) \}\) from tapshot\/runner/);
    expect(bare.message).toMatch(/mode "replay"/);
    // Core names no provider variable; the providers' default channel adds how to use them.
    expect(bare.message).not.toMatch(/API_KEY/);
    registerDefaultChannel(envDefaultChannel({}));
    const error = configError(() => resolveConfig(undefined).channel());
    expect(error.message).toMatch(/TAPSHOT_PROVIDER=gemini with GEMINI_API_KEY/);
  });

  test("resolving the config does not need a channel", () => {
    expect(() => resolveConfig(undefined)).not.toThrow();
  });
});

describe("environment variables", () => {
  test("TAPSHOT_STORAGE_DIR, TAPSHOT_MODE, TAPSHOT_RESULTS_DIR", async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-config-"));
    try {
      process.env.TAPSHOT_STORAGE_DIR = dir;
      process.env.TAPSHOT_MODE = "replay";
      process.env.TAPSHOT_RESULTS_DIR = path.join(dir, "results");
      const config = resolveConfig(undefined);
      expect((config.store as FileStore).root).toBe(path.join(dir, "_ai_"));
      expect(config.mode).toBe("replay");
      expect(config.resultsDir).toBe(path.join(dir, "results"));
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });

  test("an invalid TAPSHOT_MODE is a ConfigError naming it and the valid values", () => {
    process.env.TAPSHOT_MODE = "record";
    expect(configError(() => resolveConfig(undefined)).message).toBe(
      'TAPSHOT_MODE is "record"; use "auto", "replay" or "update".',
    );
  });

  test("TAPSHOT_LOG=silent logs nothing; json logs one JSON line on stderr", () => {
    const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      process.env.TAPSHOT_LOG = "silent";
      resolveConfig(undefined).log(entry);
      expect(warn).not.toHaveBeenCalled();
      process.env.TAPSHOT_LOG = "json";
      resolveConfig(undefined).log(entry);
      expect(warn.mock.calls).toEqual([[JSON.stringify(entry)]]);
      process.env.TAPSHOT_LOG = "line";
      expect(resolveConfig(undefined).log).toBe(consoleLogger);
    } finally {
      warn.mockRestore();
    }
  });

  test("an invalid TAPSHOT_LOG is a ConfigError naming it", () => {
    process.env.TAPSHOT_LOG = "quiet";
    expect(configError(() => resolveConfig(undefined)).message).toMatch(/TAPSHOT_LOG is "quiet"; use "line"/);
  });

  test("empty variables count as unset", () => {
    process.env.TAPSHOT_MODE = "";
    process.env.TAPSHOT_STORAGE_DIR = "";
    process.env.TAPSHOT_LOG = "";
    const config = resolveConfig(undefined);
    expect(config.mode).toBe("auto");
    expect((config.store as FileStore).root).toBe(path.resolve("storage", "_ai_"));
  });

  test("configureAi wins over the environment", () => {
    process.env.TAPSHOT_MODE = "replay";
    process.env.TAPSHOT_STORAGE_DIR = "/from/env";
    configureAi({ mode: "auto", storageDir: "/from/config" });
    const config = resolveConfig(undefined);
    expect(config.mode).toBe("auto");
    expect((config.store as FileStore).root).toBe(path.resolve("/from/config", "_ai_"));
  });

  test("the environment's channel is used when none is configured, and rebuilt when a variable changes", () => {
    const env: NodeJS.ProcessEnv = {};
    registerDefaultChannel(envDefaultChannel(env));
    expect(() => resolveConfig(undefined).channel()).toThrow(ConfigError);
    Object.assign(env, { TAPSHOT_PROVIDER: "openai", OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
    const first = resolveConfig(undefined).channel();
    expect(resolveConfig(undefined).channel()).toBe(first);
    env.TAPSHOT_MODEL = "qwen2.5-vl-7b-instruct";
    expect(resolveConfig(undefined).channel()).not.toBe(first);
    const configured = new ScriptedChannel();
    configureAi({ channel: configured });
    expect(resolveConfig(undefined).channel()).toBe(configured);
  });
});

describe("configureAi", () => {
  test("sets the channel, storage, target, log, reporter and mode", () => {
    const channel = new ScriptedChannel();
    const log = jest.fn<(e: LogEntry) => void>();
    const reportArtifact = () => "https://runner.example/artifact/1";
    configureAi({
      channel,
      storageDir: "/shared/team-storage",
      target: { model: "Pixel 8", osVersion: "15" },
      log,
      reportArtifact,
      mode: "replay",
      resultsDir: false,
    });
    const config = resolveConfig(undefined);
    expect(config.channel()).toBe(channel);
    expect((config.store as FileStore).root).toBe(path.resolve("/shared/team-storage", "_ai_"));
    expect(config.target).toEqual({ model: "Pixel 8", osVersion: "15" });
    config.log(entry);
    expect(log).toHaveBeenCalledWith(entry);
    expect(config.reportArtifact).toBe(reportArtifact);
    expect(config.mode).toBe("replay");
    expect(config.resultsDir).toBeUndefined();
  });

  test("merges: options left out keep their value", () => {
    const channel = new ScriptedChannel();
    configureAi({ channel, mode: "replay" });
    configureAi({ storageDir: "/elsewhere" });
    const config = resolveConfig(undefined);
    expect(config.channel()).toBe(channel);
    expect(config.mode).toBe("replay");
    expect((config.store as FileStore).root).toBe(path.resolve("/elsewhere", "_ai_"));
  });

  test("log: false silences logging", () => {
    const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
    try {
      configureAi({ log: false });
      resolveConfig(undefined).log(entry);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  test("a target function gets the driver; its answer is validated", () => {
    const driver = { sessionId: "abc" };
    const seen: unknown[] = [];
    configureAi({
      target: (d) => {
        seen.push(d);
        return { platform: "ios", model: "iPhone 15 Pro" };
      },
    });
    expect(resolveConfig(driver).target).toEqual({ platform: "ios", model: "iPhone 15 Pro" });
    expect(seen).toEqual([driver]);
    configureAi({ target: () => ({ model: "" }) as never });
    expect(configError(() => resolveConfig(driver)).message).toMatch(/configureAi's target returned model:/);
  });

  test("osVersionKey is resolved as set; unset means each platform's default", () => {
    expect(resolveConfig(undefined).osVersionKey).toBeUndefined();
    configureAi({ osVersionKey: "full" });
    expect(resolveConfig(undefined).osVersionKey).toBe("full");
  });

  test("a custom store wins over storageDir", () => {
    const store = new FileStore("/somewhere");
    configureAi({ store: store as Store, storageDir: "/ignored" });
    expect(resolveConfig(undefined).store).toBe(store);
  });

  test("a storageDir given in a later call replaces an earlier custom store", () => {
    configureAi({ store: new FileStore("/somewhere") as Store });
    configureAi({ storageDir: "/elsewhere" });
    expect(resolveConfig(undefined).store.location).toBe(path.resolve("/elsewhere", "_ai_"));
  });

  test("no reporter unless the runner gives one: the run folder's copy is the call's own (tests/unit/artifacts.test.ts)", () => {
    expect(resolveConfig(undefined).reportArtifact).toBeUndefined();
  });

  test("resetAi forgets everything", () => {
    configureAi({ mode: "replay", channel: new ScriptedChannel() });
    resetAi();
    expect(resolveConfig(undefined).mode).toBe("auto");
    expect(() => resolveConfig(undefined).channel()).toThrow(ConfigError);
  });

  test.each<[string, unknown, RegExp]>([
    ["mode", { mode: "record" }, /^configureAi got invalid options: mode: /],
    ["channel", { channel: {} }, /channel: channel must be an object with a request\(request, \{ signal \}\) method/],
    ["channel", { channel: null }, /channel: channel must be an object/],
    ["storageDir", { storageDir: "" }, /storageDir: storageDir must not be empty/],
    ["storageDir", { storageDir: 42 }, /storageDir: /],
    ["store", { store: { read() {} } }, /store: store must implement read, write, remove, list, lock/],
    ["target", { target: { model: "Pixel", color: "red" } }, /target/],
    ["target", { target: { platform: "windows" } }, /target/],
    ["osVersionKey", { osVersionKey: "patch" }, /osVersionKey: .*"major"\|"major\.minor"\|"full"/],
    ["log", { log: true }, /log/],
    ["reportArtifact", { reportArtifact: "./out" }, /reportArtifact: reportArtifact must be a function/],
    ["resultsDir", { resultsDir: "" }, /resultsDir: resultsDir must not be empty/],
    [
      "an unknown option",
      { storage: "./x" },
      /^configureAi got unknown option "storage" \(did you mean "storageDir"\?\); known: channel, storageDir, /,
    ],
    [
      "a mistyped option",
      { storagDir: "./x" },
      /^configureAi got unknown option "storagDir" \(did you mean "storageDir"\?\); known: channel, storageDir, store, /,
    ],
  ])("invalid %s is a ConfigError naming it", (_what, options, message) => {
    const error = configError(() => configureAi(options as never));
    expect(error.message).toMatch(message);
  });

  test("an invalid call changes nothing", () => {
    configureAi({ mode: "replay" });
    expect(() => configureAi({ mode: "auto", storageDir: "" })).toThrow(ConfigError);
    expect(resolveConfig(undefined).mode).toBe("replay");
  });

  test("options that are not an object are a ConfigError", () => {
    expect(() => configureAi(null as never)).toThrow(/configureAi got invalid options/);
    expect(() => configureAi("gemini" as never)).toThrow(ConfigError);
  });
});
