/**
 * Promises about provider faults (docs/guarantees.md): a server that answers with an HTML page
 * (a proxy's sign-in page, a wrong base URL) is named as such, with what it sent, and not retried.
 * The server here is a proxy's page, not a model; the SDKs are the real @google/genai and openai.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { AiChannel } from "../../src/core/model/contract.js";
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
