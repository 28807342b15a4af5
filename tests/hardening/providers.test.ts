/**
 * Promises about provider faults (docs/guarantees.md): a server that answers with an HTML page
 * (a proxy's sign-in page, a wrong base URL) is named as such, with what it sent, and not retried.
 * The server here is a proxy's page, not a model; the SDKs are the real @google/genai and openai.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { ask, type AiChannel } from "../../src/core/model/contract.js";
import { Deadline } from "../../src/core/ground/deadline.js";
import { TimeoutError } from "../../src/core/ground/errors.js";
import { azureOpenai, gemini, openai } from "../../src/providers/index.js";
import { noAbort, phoneScreen } from "../providers/fixtures.js";

const PAGE =
  "<!doctype html>\n<html><head><title>Sign in to Corp Proxy</title></head><body>Please sign in</body></html>";
const retry = { attempts: 4, initialDelayMs: 5, maxDelayMs: 10 };

let server: http.Server;
let baseUrl: string;
let hits: number;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits++;
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": process.env.TAPSHOT_TEST_PAGE_TYPE ?? "text/html; charset=utf-8" });
      res.end(PAGE);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  hits = 0;
});

const channels: [string, () => AiChannel][] = [
  ["openai", () => openai({ apiKey: "sk-test-0123456789abcdef", baseURL: `${baseUrl}/v1`, retry })],
  ["azureOpenai", () => azureOpenai({ apiKey: "azure-key-0123456789", endpoint: baseUrl, deployment: "d", retry })],
  ["gemini", () => gemini({ apiKey: "gemini-key-0123456789", baseUrl, retry })],
];

describe.each(channels)("%s", (_, channel) => {
  test.each(["text/html; charset=utf-8", "application/json"])(
    "an HTML page served with status 200 as %s is named as such, with its first characters, and not retried",
    async (type) => {
      process.env.TAPSHOT_TEST_PAGE_TYPE = type;
      try {
        const error = (await channel()
          .request({ kind: "check", screen: await phoneScreen(), statement: "x" }, { signal: noAbort() })
          .catch((e: unknown) => e)) as Error;
        expect(error).toMatchObject({ code: "provider" });
        expect(error.message).toContain(
          'an HTML page instead of JSON (HTTP 200): "<!doctype html> <html><head><title>Sign in',
        );
        expect(error.message).toMatch(/proxy or sign-in page.*base URL or endpoint/);
        expect(error.message).not.toMatch(/no choices|attempts/);
        expect(hits).toBe(1);
      } finally {
        delete process.env.TAPSHOT_TEST_PAGE_TYPE;
      }
    },
  );
});

describe("a provider that does not answer in time is named in the call's error", () => {
  let slow: http.Server;
  let slowUrl: string;
  const held: http.ServerResponse[] = [];
  beforeAll(async () => {
    // "/slow" never answers; "/limited" answers 429 with a Retry-After longer than the call.
    slow = http.createServer((req, res) => {
      req.resume();
      if (req.url?.includes("/limited")) {
        res.writeHead(429, { "content-type": "application/json", "retry-after": "120" });
        // Gemini says how long to wait in a RetryInfo detail, which src/providers/gemini.ts reads.
        const retryInfo = { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: "120s" };
        const error = {
          code: 429,
          message: "Resource has been exhausted",
          status: "RESOURCE_EXHAUSTED",
          details: [retryInfo],
        };
        res.end(JSON.stringify({ error }));
      } else held.push(res);
    });
    await new Promise<void>((resolve) => slow.listen(0, "127.0.0.1", resolve));
    slowUrl = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    for (const res of held) res.destroy();
    slow.closeAllConnections();
    return new Promise<void>((resolve) => slow.close(() => resolve()));
  });

  const providers: [string, (path: string) => AiChannel, string][] = [
    [
      "openai",
      (p) => openai({ apiKey: "sk-test-0123456789abcdef", model: "gpt-test", baseURL: `${slowUrl}${p}/v1` }),
      "openai",
    ],
    [
      "gemini",
      (p) => gemini({ apiKey: "gemini-key-0123456789", model: "gemini-test", baseUrl: `${slowUrl}${p}` }),
      "gemini",
    ],
  ];
  const check = async () => ({ kind: "check" as const, screen: await phoneScreen(), statement: "x" });

  test.each(providers)(
    "%s: a request still unanswered at the deadline is a TimeoutError naming provider and model",
    async (_, channel, name) => {
      const deadline = new Deadline(3000, 'tap "x"');
      try {
        const error = (await ask(channel("/slow"), await check(), { signal: deadline.signal }).catch(
          (e: unknown) => e,
        )) as Error;
        expect(error).toBeInstanceOf(TimeoutError);
        expect(error.message).toMatch(
          new RegExp(`within its 3000 ms timeout\\. The ${name} provider \\(model \\w+-test\\) had not answered yet`),
        );
      } finally {
        deadline.dispose();
      }
    },
  );

  test.each(providers)(
    "%s: HTTP 429 with a Retry-After past the deadline ends as a ProviderError saying so",
    async (_, channel, name) => {
      const deadline = new Deadline(3000, 'tap "x"');
      try {
        const error = (await ask(channel("/limited"), await check(), { signal: deadline.signal }).catch(
          (e: unknown) => e,
        )) as Error;
        expect(error).toMatchObject({ code: "provider", status: 429 });
        expect(error.message).toMatch(
          new RegExp(
            `^The ${name} provider \\(model \\w+-test\\) kept failing with HTTP 429 .*until the call was stopped: tap "x" did not finish within its 3000 ms timeout`,
          ),
        );
      } finally {
        deadline.dispose();
      }
    },
  );
});
