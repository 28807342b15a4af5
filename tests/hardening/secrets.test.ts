/**
 * Promises about secrets (docs/guarantees.md): no key, token or password reaches an error,
 * a log line, calls.jsonl, an artifact's name or a stored record, whoever wrote it there.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AiChannel } from "../../src/core/model/contract.js";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { redact } from "../../src/core/ground/secrets.js";
import { azureOpenai, gemini, openai } from "../../src/providers/index.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { FakeDevice, fakeAdapter, fakeDriver } from "../support/fake-device.js";
import { locateOnDevice, ScriptedChannel } from "../support/scripted-channel.js";
import { startOpenAiDouble, type WireDouble } from "../../rig/model-doubles/index.js";
import { checkoutKnowledge, fastRetry, noAbort, phoneScreen } from "../providers/fixtures.js";
import { runCli } from "../cli/run-cli.js";
import { useFaultyBucket } from "../support/s3-faults.js";

const api = createPlatformApi(fakeAdapter());
const OPENAI_KEY = "sk-proj-Abcdefghijklmnop0123456789";
const GOOGLE_KEY = "AIzaSyA0123456789abcdefghijklmnopqrs";
/** An Entra ID access token as a token endpoint returns it: a JWT, here echoed without "Bearer". */
const ENTRA_JWT = "eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJodHRwczovL2NvZ25pdGl2ZSJ9.c2lnbmF0dXJlLXBhcnQ";

let dir: string;
let logs: LogEntry[];
const doubles: WireDouble[] = [];

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-secrets-"));
  logs = [];
});
afterEach(async () => {
  resetAi();
  await Promise.all(doubles.splice(0).map((d) => d.close()));
  await fs.rm(dir, { recursive: true, force: true });
});

/** Every text tapshot wrote for a call: the error, the log entry, calls.jsonl, artifact names, stored files. */
async function everythingWritten(error: unknown): Promise<string> {
  const files = await fs.readdir(dir, { recursive: true });
  const contents = await Promise.all(
    files.map(async (f) => {
      const full = path.join(dir, f);
      return (await fs.stat(full)).isFile() && !f.endsWith(".png") ? fs.readFile(full, "utf8") : "";
    }),
  );
  const err = error as Error;
  return [err.message, err.stack, JSON.stringify(logs), files.join("\n"), ...contents].join("\n");
}

describe("a password in a server URL is refused before any request", () => {
  test.each([
    ["openai baseURL", () => openai({ apiKey: "k", baseURL: "http://user:hunter2pass@127.0.0.1:9/v1" })],
    ["gemini baseUrl", () => gemini({ apiKey: "k", baseUrl: "http://user:hunter2pass@127.0.0.1:9" })],
    [
      "azure endpoint",
      () => azureOpenai({ apiKey: "k", deployment: "d", endpoint: "https://user:hunter2pass@x.openai.azure.com" }),
    ],
  ])("%s with user:password@ is a ConfigError that says what to use instead", (_, build) => {
    let error: unknown;
    try {
      build();
    } catch (e) {
      error = e;
    }
    expect(error).toMatchObject({ code: "config", message: expect.stringMatching(/user name or password.*apiKey/) });
    expect(`${(error as Error).message}${(error as Error).stack}`).not.toContain("hunter2pass");
  });

  test("OPENAI_BASE_URL with a password is refused the same way", () => {
    const saved = process.env.OPENAI_BASE_URL;
    process.env.OPENAI_BASE_URL = "http://me:hunter2pass@127.0.0.1:9/v1";
    try {
      expect(() => openai({ apiKey: "k" })).toThrow(/OPENAI_BASE_URL with a user name or password/);
    } finally {
      if (saved === undefined) delete process.env.OPENAI_BASE_URL;
      else process.env.OPENAI_BASE_URL = saved;
    }
  });

  test("userinfo is removed from any URL tapshot prints, keeping the host", () => {
    expect(redact("fetch failed: connect ECONNREFUSED http://user:hunter2pass@10.0.0.1:8080/v1")).toBe(
      "fetch failed: connect ECONNREFUSED http://[redacted]@10.0.0.1:8080/v1",
    );
  });
});

describe("secrets echoed by a runner's own channel never reach a sink", () => {
  test.each([
    ["an OpenAI project key", OPENAI_KEY],
    ["a Google API key", GOOGLE_KEY],
    ["an Entra ID token without Bearer", ENTRA_JWT],
  ])("%s in a channel's error is redacted in the error, log, calls.jsonl and artifacts", async (_, secret) => {
    const channel: AiChannel = {
      request: async () => {
        throw new Error(`upstream said: invalid credential ${secret} (request id 42)`);
      },
    };
    configureAi({ channel, storageDir: dir, resultsDir: path.join(dir, "results"), log: (e) => logs.push(e) });
    const error = await api
      .tap(fakeDriver(new FakeDevice(screen())), `tap with ${secret} in the prompt`, { timeout: 5000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    const written = await everythingWritten(error);
    expect(written).toContain("upstream said: invalid credential [redacted]");
    expect(written).not.toContain(secret);
  });

  test("a key in a tap's prompt is not written into the stored record or calls.jsonl", async () => {
    const device = new FakeDevice(screen());
    configureAi({
      channel: new ScriptedChannel({ locate: locateOnDevice(device) }),
      storageDir: dir,
      resultsDir: path.join(dir, "results"),
      log: (e) => logs.push(e),
    });
    const result = await api.tap(fakeDriver(device), `the checkout button, key ${OPENAI_KEY}`);
    expect(result.outcome).toBe("learned");
    const written = await everythingWritten(new Error("none"));
    expect(written).toContain(`"prompt": "the checkout button, key [redacted]"`);
    expect(written).not.toContain(OPENAI_KEY);
  });

  test("a configured key that has no known shape is redacted too", async () => {
    const plainKey = "plain-team-key-7f3a9c2e";
    openai({ apiKey: plainKey, baseURL: "http://127.0.0.1:9/v1" });
    const channel: AiChannel = {
      request: async () => {
        throw new Error(`proxy rejected key ${plainKey}`);
      },
    };
    configureAi({ channel, storageDir: dir, resultsDir: path.join(dir, "results"), log: (e) => logs.push(e) });
    const error = await api
      .tap(fakeDriver(new FakeDevice(screen())), "the checkout button", { timeout: 5000 })
      .catch((e: unknown) => e);
    const written = await everythingWritten(error);
    expect(written).toContain("proxy rejected key [redacted]");
    expect(written).not.toContain(plainKey);
  });

  test("a token an Azure token provider fetched is redacted when the server echoes it", async () => {
    const token = "opaque-entra-token-5d41402abc4b2a76";
    const double = await startOpenAiDouble(checkoutKnowledge(), { apiKey: token });
    doubles.push(double);
    double.inject({ status: 403, message: `token ${token} lacks the Cognitive Services User role` });
    const channel = azureOpenai({
      endpoint: double.baseUrl,
      deployment: "vision",
      azureADTokenProvider: async () => token,
      retry: fastRetry,
    });
    const error = (await channel
      .request({ kind: "check", screen: await phoneScreen(), statement: "x" }, { signal: noAbort() })
      .catch((e: unknown) => e)) as Error;
    expect(error).toMatchObject({ code: "provider", message: expect.stringContaining("token [redacted] lacks") });
    expect(`${error.message}${error.stack}`).not.toContain(token);
  });
});

function screen() {
  return {
    background: "#ffffff",
    elements: [{ id: "checkout", x: 40, y: 520, width: 280, height: 56, fill: "#16a34a" }],
  };
}

describe("credentials the AWS SDK reads from the environment", () => {
  const bucket = useFaultyBucket();

  test("an AWS_SESSION_TOKEN the service echoes in its error is not printed by the tapshot command", async () => {
    const token = `IQoJb3JpZ2luX2VjE${"Ab9".repeat(30)}`;
    // A service refusing the session token, quoting it back (as a misconfigured proxy or service may).
    bucket.proxy.rule = ({ headers }) => ({
      kind: "answer",
      status: 403,
      body:
        '<?xml version="1.0" encoding="UTF-8"?><Error><Code>InvalidToken</Code>' +
        `<Message>The provided token is malformed or otherwise invalid: ${String(headers["x-amz-security-token"])}</Message>` +
        "<RequestId>faults</RequestId></Error>",
    });
    const { code, stderr } = await runCli(["list", "--store", `s3://${bucket.s3.bucket}/team`], {
      AWS_ENDPOINT_URL_S3: bucket.proxy.endpoint,
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: "ASIAEXAMPLEKEYID0000",
      AWS_SECRET_ACCESS_KEY: `secret-${"x".repeat(32)}`,
      AWS_SESSION_TOKEN: token,
      TAPSHOT_S3_PATH_STYLE: "1",
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    });
    expect(code).not.toBe(0);
    expect(stderr).toContain("InvalidToken");
    expect(stderr).toContain("[redacted]");
    expect(stderr).not.toContain(token);
    expect(stderr).not.toContain(token.slice(0, 40));
  });
});
