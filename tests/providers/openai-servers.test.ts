/**
 * What openai() and azureOpenai() send to each kind of server, against the strict OpenAI double,
 * which refuses or mishandles what the real server does (rig/model-doubles/openai-rules.ts):
 * Azure API versions per deployment and its unsupported schema keywords, and image types per server.
 */
import type { AiImage, Box } from "../../src/core/model/contract.js";
import { ConfigError, ProviderError } from "../../src/core/ground/errors.js";
import { azureOpenai, openai } from "../../src/providers/index.js";
import { startOpenAiDouble, type OpenAiDoubleOptions, type WireDouble } from "../../rig/model-doubles/index.js";
import { CHECKOUT, checkoutKnowledge, expectBoxNear, fastRetry, noAbort, phoneScreen } from "./fixtures.js";

const KEY = "sk-test-openai-key-0123456789abcdef";

let screen: AiImage;
const doubles: WireDouble[] = [];

beforeAll(async () => {
  screen = await phoneScreen();
});
afterEach(async () => {
  await Promise.all(doubles.splice(0).map((d) => d.close()));
});

async function start(options: OpenAiDoubleOptions = {}): Promise<WireDouble> {
  const double = await startOpenAiDouble(checkoutKnowledge(), { apiKey: KEY, ...options });
  doubles.push(double);
  return double;
}

const boxOf = (answer: unknown) => (answer as { box?: Box }).box;
const locate = { kind: "locate", prompt: "the checkout button" } as const;
const schemaSent = (double: WireDouble, i = 0) =>
  JSON.stringify((double.received[i]!.body as { response_format: unknown }).response_format);

describe("Azure: an API version that serves reasoning deployments", () => {
  test("the default reaches a gpt-5-mini deployment (a dated 2024-10-21 would be refused)", async () => {
    const double = await start();
    const channel = azureOpenai({ apiKey: KEY, endpoint: double.baseUrl, deployment: "gpt-5-mini", refine: false });
    const answer = await channel.request({ ...locate, screen }, { signal: noAbort() });
    expectBoxNear(boxOf(answer), CHECKOUT, 1);
    expect(double.received[0]!.path).toBe("/openai/v1/chat/completions");
  });

  test("a version too old for the deployment is a ConfigError naming apiVersion and what to set, not retried", async () => {
    const double = await start({ deployments: { reasoning: "o4-mini" } });
    const channel = azureOpenai({
      apiKey: KEY,
      endpoint: double.baseUrl,
      deployment: "reasoning",
      apiVersion: "2024-10-21",
      retry: fastRetry,
    });
    const error = await channel
      .request({ kind: "check", screen, statement: "the summary" }, { signal: noAbort() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      /answered HTTP 400: Model \{modelName\} is enabled only for api versions 2024-12-01-preview and later\. azureOpenai\(\) sent api-version 2024-10-21.*Set the apiVersion option \(or OPENAI_API_VERSION\) to "v1", the default, or to 2024-12-01-preview or later\./,
    );
    expect(double.calls()).toBe(1);
  });

  test("a dated version new enough works on the deployments path", async () => {
    const double = await start({ deployments: { reasoning: "o4-mini" } });
    const channel = azureOpenai({
      apiKey: KEY,
      endpoint: double.baseUrl,
      deployment: "reasoning",
      apiVersion: "2025-04-01-preview",
    });
    await expect(
      channel.request({ kind: "check", screen, statement: "the summary" }, { signal: noAbort() }),
    ).resolves.toMatchObject({ pass: true });
  });

  test("an Entra ID token goes as a bearer token on the v1 surface", async () => {
    const double = await start({ apiKey: "entra-token-123" });
    const channel = azureOpenai({
      endpoint: double.baseUrl,
      deployment: "gpt-5-mini",
      azureADTokenProvider: async () => "entra-token-123",
    });
    await channel.request({ kind: "check", screen, statement: "the summary" }, { signal: noAbort() });
    expect(double.received[0]!.headers.authorization).toBe("Bearer entra-token-123");
    expect(double.received[0]!.path).toBe("/openai/v1/chat/completions");
  });
});

describe("schema keywords a server refuses are not sent; zod still checks the answer", () => {
  test.each<[string, string | undefined]>([
    ["v1", undefined],
    ["a dated version", "2025-04-01-preview"],
  ])("Azure (%s) gets locate, judge and compare schemas without minItems/maxItems", async (_what, apiVersion) => {
    const double = await start();
    const channel = azureOpenai({
      apiKey: KEY,
      endpoint: double.baseUrl,
      deployment: "vision-prod",
      ...(apiVersion ? { apiVersion } : {}),
    });
    const answer = await channel.request({ ...locate, screen }, { signal: noAbort() });
    expectBoxNear(boxOf(answer), CHECKOUT, 1);
    await channel.request({ kind: "judge", screen, prompt: "the cart", references: [] }, { signal: noAbort() });
    await channel.request(
      { kind: "compare", screen, baseline: screen, diff: screen, prompt: "the cart" },
      { signal: noAbort() },
    );
    for (let i = 0; i < double.received.length; i++) expect(schemaSent(double, i)).not.toMatch(/minItems|maxItems/);
  });

  test("an OpenAI-compatible server gets the schema without them, OpenAI itself with them", async () => {
    const local = await start({ server: "vllm" });
    await openai({ baseURL: `${local.baseUrl}/v1`, apiKey: KEY, refine: false }).request(
      { ...locate, screen },
      { signal: noAbort() },
    );
    expect(schemaSent(local)).not.toMatch(/minItems/);
    const hosted = await start();
    await openai({ baseURL: `${hosted.baseUrl}/v1`, apiKey: KEY, server: "openai", refine: false }).request(
      { ...locate, screen },
      { signal: noAbort() },
    );
    expect(schemaSent(hosted)).toMatch(/"minItems":4/);
  });
});

describe("image formats per server", () => {
  test("a llama.cpp server, which drops WebP and answers without it, gets JPEG and finds the element", async () => {
    const double = await start({ server: "llama.cpp", apiKey: undefined });
    const answer = await openai({ baseURL: `${double.baseUrl}/v1`, model: "gpt-oss-vision", refine: false }).request(
      { ...locate, screen },
      { signal: noAbort() },
    );
    expect(double.received[0]!.images.map((i) => i.mimeType)).toEqual(["image/jpeg"]);
    expectBoxNear(boxOf(answer), CHECKOUT, 3);
  });

  test("the same server with image.format webp answers blind: the double shows what the real one does", async () => {
    const double = await start({ server: "llama.cpp", apiKey: undefined });
    const answer = await openai({
      baseURL: `${double.baseUrl}/v1`,
      refine: false,
      image: { format: "webp" },
    }).request({ ...locate, screen }, { signal: noAbort() });
    expect(answer).toMatchObject({ found: false, reason: "double: no image reached the model" });
  });

  test("Ollama refuses WebP with 400 invalid image input; the default reaches it", async () => {
    const double = await start({ server: "ollama", apiKey: undefined });
    const base = { baseURL: `${double.baseUrl}/v1`, refine: false } as const;
    const error = await openai({ ...base, image: { format: "webp" } })
      .request({ kind: "check", screen, statement: "the summary" }, { signal: noAbort() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toContain("HTTP 400: invalid image input");
    await expect(
      openai(base).request({ kind: "check", screen, statement: "the summary" }, { signal: noAbort() }),
    ).resolves.toMatchObject({ pass: true });
  });

  test("OpenAI itself and Azure keep WebP", async () => {
    const hosted = await start();
    await openai({ baseURL: `${hosted.baseUrl}/v1`, apiKey: KEY, server: "openai" }).request(
      { kind: "check", screen, statement: "x" },
      { signal: noAbort() },
    );
    const azure = await start();
    await azureOpenai({ apiKey: KEY, endpoint: azure.baseUrl, deployment: "vision-prod" }).request(
      { kind: "check", screen, statement: "x" },
      { signal: noAbort() },
    );
    expect([hosted, azure].map((d) => d.received[0]!.images[0]!.mimeType)).toEqual(["image/webp", "image/webp"]);
  });
});

describe("reasoning_effort", () => {
  const bodies = (double: WireDouble) =>
    double.received.map((r) => (r.body as { reasoning_effort?: string }).reasoning_effort);

  test("reasoning models get low effort for locate and their default for the rest", async () => {
    const double = await start();
    const channel = openai({ apiKey: KEY, baseURL: `${double.baseUrl}/v1`, server: "openai", refine: false });
    await channel.request({ ...locate, screen }, { signal: noAbort() });
    await channel.request({ kind: "check", screen, statement: "the summary" }, { signal: noAbort() });
    expect(bodies(double)).toEqual(["low", undefined]);
  });

  test("models without reasoning get none; setting one anyway is a ConfigError naming reasoningEffort", async () => {
    const double = await start();
    const base = {
      apiKey: KEY,
      baseURL: `${double.baseUrl}/v1`,
      server: "openai",
      model: "gpt-4.1",
      refine: false,
    } as const;
    await openai(base).request({ ...locate, screen }, { signal: noAbort() });
    expect(bodies(double)).toEqual([undefined]);
    const error = await openai({ ...base, reasoningEffort: { check: "high" } })
      .request({ kind: "check", screen, statement: "the summary" }, { signal: noAbort() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      /reasoning_effort' is not supported with this model\. tapshot sent reasoning_effort "high" for "check"\. Set the reasoningEffort option/,
    );
  });

  test("gpt-5 pro models, which take only high effort, get no default low effort for locate", async () => {
    // The openai SDK's ReasoningEffort: "The gpt-5-pro model defaults to (and only supports) high".
    const double = await start();
    const channel = openai({
      apiKey: KEY,
      baseURL: `${double.baseUrl}/v1`,
      server: "openai",
      model: "gpt-5-pro",
      refine: false,
    });
    await channel.request({ ...locate, screen }, { signal: noAbort() });
    expect(bodies(double)).toEqual([undefined]);
  });

  test("a value the model refuses (minimal on gpt-5.1) is a ConfigError naming reasoningEffort; xhigh is accepted", async () => {
    const double = await start();
    const base = {
      apiKey: KEY,
      baseURL: `${double.baseUrl}/v1`,
      server: "openai",
      model: "gpt-5.1",
      refine: false,
    } as const;
    const error = await openai({ ...base, reasoningEffort: "minimal" })
      .request({ kind: "check", screen, statement: "x" }, { signal: noAbort() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      /'minimal' is not supported with the 'gpt-5\.1' model.*tapshot sent reasoning_effort "minimal" for "check"\. Set the reasoningEffort option/,
    );
    await openai({ ...base, reasoningEffort: "xhigh" }).request(
      { kind: "check", screen, statement: "x" },
      { signal: noAbort() },
    );
    expect(bodies(double).at(-1)).toBe("xhigh");
  });

  test("one value applies to every kind; model-default sends none", async () => {
    const double = await start();
    const base = { apiKey: KEY, baseURL: `${double.baseUrl}/v1`, server: "openai", refine: false } as const;
    await openai({ ...base, reasoningEffort: "medium" }).request(
      { kind: "check", screen, statement: "x" },
      { signal: noAbort() },
    );
    await openai({ ...base, reasoningEffort: { locate: "model-default" } }).request(
      { ...locate, screen },
      { signal: noAbort() },
    );
    expect(bodies(double)).toEqual(["medium", undefined]);
  });
});
