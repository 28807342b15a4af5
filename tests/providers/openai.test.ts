import { inspect } from "node:util";
import { parseAnswer, type AiImage, type Box } from "../../src/core/model/contract.js";
import { Deadline } from "../../src/core/ground/deadline.js";
import { AbortedError, AiAnswerError, ConfigError, ProviderError, TimeoutError } from "../../src/core/ground/errors.js";
import { azureOpenai, openai } from "../../src/providers/index.js";
import { startOpenAiDouble, type WireDouble } from "../../rig/model-doubles/index.js";
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

async function start(options: Parameters<typeof startOpenAiDouble>[1] = {}): Promise<WireDouble> {
  const double = await startOpenAiDouble(checkoutKnowledge(), { apiKey: KEY, ...options });
  doubles.push(double);
  return double;
}

const boxOf = (answer: unknown) => (answer as { box?: Box }).box;

describe("openai() over the chat-completions wire", () => {
  test("locate sends a data-URL image with detail, a strict schema and the model, then refines on a crop", async () => {
    const double = await start();
    // server: "openai" is how a gateway in front of api.openai.com is named; the double replicates OpenAI.
    const channel = openai({ apiKey: KEY, baseURL: `${double.baseUrl}/v1`, server: "openai", retry: fastRetry });
    const answer = await channel.request(
      { kind: "locate", screen, prompt: "the checkout button" },
      { signal: noAbort() },
    );

    expect(double.calls("locate")).toBe(2);
    const [first, second] = double.received;
    expect(first!.path).toBe("/v1/chat/completions");
    expect(first!.headers.authorization).toBe(`Bearer ${KEY}`);
    const body = first!.body as {
      model: string;
      messages: { role: string; content: unknown }[];
      response_format: { type: string; json_schema: { name: string; strict: boolean; schema: { properties: object } } };
    };
    expect(body.model).toBe("gpt-5.6-terra");
    expect(body.response_format.type).toBe("json_schema");
    expect(body.response_format.json_schema).toMatchObject({ name: "locate_answer", strict: true });
    expect(Object.keys(body.response_format.json_schema.schema.properties)).toEqual(["reason", "found", "bbox_2d"]);
    const user = body.messages.find((m) => m.role === "user")!.content as {
      type: string;
      image_url?: { detail: string };
    }[];
    expect(user.filter((p) => p.type === "image_url").map((p) => p.image_url!.detail)).toEqual(["high"]);
    expect(first!.images[0]).toMatchObject({ name: "screen", mimeType: "image/webp", width: 590, height: 1280 });
    expect(first!.text).toContain("it is 590x1280 pixels");
    expect(JSON.stringify(first!.body)).not.toContain(KEY);

    expect(second!.crop).toMatchObject({ ofWidth: 1179, ofHeight: 2556 });
    expect(second!.images[0]!.name).toBe("crop");

    expect(parseAnswer("locate", answer)).toEqual(answer);
    // The crop is sent at full resolution, so pixel answers land within rounding of the truth.
    expectBoxNear(boxOf(answer), CHECKOUT, 1);
    expect(answer.model).toBe("double:openai-wire/gpt-5.6-terra");
    expect(answer.usage!.inputTokens).toBeGreaterThan(0);
  });

  test("a heal's evidence from the cheap rungs reaches the wire as escaped text next to the screenshot", async () => {
    const double = await start();
    const channel = openai({ apiKey: KEY, baseURL: `${double.baseUrl}/v1`, server: "openai", retry: fastRetry });
    const evidence = 'The stored crop now matches at 2 places: (36, 300) 288x64; (36, 456) 288x64.\ntext="<Checkout>"';
    await channel.request({ kind: "locate", screen, prompt: "the checkout button", evidence }, { signal: noAbort() });
    expect(double.received[0]!.text).toContain(
      "<evidence>The stored crop now matches at 2 places: (36, 300) 288x64; (36, 456) 288x64.\n" +
        'text="&lt;Checkout&gt;"</evidence>',
    );
    // The zoomed refinement only sharpens the box the first pass chose; full-screen places would be a second frame there.
    expect(double.calls("locate")).toBe(2);
    expect(double.received[1]!.images[0]!.name).toBe("crop");
    expect(double.received[1]!.text).not.toContain("<evidence>");
  });

  test("normalized-1000 coordinates for Qwen-style servers, without refinement", async () => {
    const double = await start({ coordinates: "normalized-1000" });
    const channel = openai({
      baseURL: `${double.baseUrl}/v1`,
      apiKey: KEY,
      model: "Qwen/Qwen3-VL-8B-Instruct",
      coordinates: "normalized-1000",
      refine: false,
    });
    const answer = await channel.request(
      { kind: "locate", screen, prompt: "the checkout button" },
      { signal: noAbort() },
    );
    expect(double.calls()).toBe(1);
    expect(double.received[0]!.text).toContain("normalised to 0-1000");
    expectBoxNear(boxOf(answer), CHECKOUT, 3);
    expect(answer.model).toBe("double:openai-wire/Qwen/Qwen3-VL-8B-Instruct");
  });

  test("a 0-1000 answer read as pixels is refused instead of clamped into a wrong box", async () => {
    const double = await start({ coordinates: "normalized-1000" });
    const channel = openai({ baseURL: `${double.baseUrl}/v1`, apiKey: KEY, refine: false });
    const error = await channel
      .request({ kind: "locate", screen, prompt: "the checkout button" }, { signal: noAbort() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AiAnswerError);
    expect((error as Error).message).toMatch(/reaches beyond the 590x1280 image/);
  });

  test("check, judge and compare parse into their answers", async () => {
    const double = await start();
    const channel = openai({ apiKey: KEY, baseURL: `${double.baseUrl}/v1` });
    const check = await channel.request({ kind: "check", screen, statement: "nothing here" }, { signal: noAbort() });
    expect(check).toMatchObject({ pass: false, reason: "double: check" });
    const judge = await channel.request(
      { kind: "judge", screen, prompt: "the cart", references: [] },
      { signal: noAbort() },
    );
    expect(judge).toMatchObject({ accept: true, reason: "double: 0 references" });
    expectBoxNear((judge as { varying?: Box[] }).varying?.[0], { x: 0, y: 0, width: 1179, height: 128 }, 2);
    const compare = await channel.request(
      { kind: "compare", screen, baseline: screen, diff: screen, prompt: "the cart" },
      { signal: noAbort() },
    );
    expect(compare).toMatchObject({ realChange: false });
    expect(double.received.map((r) => r.kind)).toEqual(["check", "judge", "compare"]);
  });

  test("a 429 with Retry-After is retried", async () => {
    const double = await start();
    double.inject({ status: 429, retryAfterSeconds: 0.05 });
    const channel = openai({ apiKey: KEY, baseURL: `${double.baseUrl}/v1`, retry: fastRetry, refine: false });
    const answer = await channel.request(
      { kind: "locate", screen, prompt: "the checkout button" },
      { signal: noAbort() },
    );
    expect(double.calls()).toBe(2);
    expect(answer).toMatchObject({ found: true });
  });

  test("a 503 on every attempt ends as a ProviderError after the attempts", async () => {
    const double = await start();
    double.inject({ status: 503 }, 10);
    const channel = openai({ apiKey: KEY, baseURL: `${double.baseUrl}/v1`, retry: { ...fastRetry, attempts: 3 } });
    const error = await channel
      .request({ kind: "check", screen, statement: "x" }, { signal: noAbort() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error).toMatchObject({ provider: "openai", model: "gpt-5.6-terra", status: 503 });
    expect((error as Error).message).toMatch(/answered HTTP 503 \(after 3 attempts\)/);
    expect(double.calls()).toBe(3);
  });

  test("a refusal is a ProviderError that quotes it", async () => {
    const double = await start();
    double.inject("refusal");
    const channel = openai({ apiKey: KEY, baseURL: `${double.baseUrl}/v1` });
    const error = await channel
      .request({ kind: "locate", screen, prompt: "the checkout button" }, { signal: noAbort() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
    expect((error as Error).message).toMatch(/refused the "locate" request: double: I can't help/);
    expect(double.calls()).toBe(1);
  });

  test("a malformed answer is an AiAnswerError", async () => {
    const double = await start();
    double.inject("malformed");
    const channel = openai({ apiKey: KEY, baseURL: `${double.baseUrl}/v1` });
    const error = await channel
      .request({ kind: "locate", screen, prompt: "the checkout button" }, { signal: noAbort() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AiAnswerError);
    expect((error as Error).message).toMatch(/malformed "locate" answer: found/);
  });

  test("a hung server: the deadline gives a TimeoutError, an abort an AbortedError", async () => {
    const double = await start();
    const channel = openai({ apiKey: KEY, baseURL: `${double.baseUrl}/v1` });
    double.inject("hang", 2);
    const deadline = new Deadline(300, "expect");
    await expect(
      channel.request({ kind: "check", screen, statement: "x" }, { signal: deadline.signal }),
    ).rejects.toBeInstanceOf(TimeoutError);
    deadline.dispose();
    const controller = new AbortController();
    const pending = channel.request({ kind: "check", screen, statement: "x" }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 100);
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortedError);
    expect((error as Error).message).toContain("The openai provider (model gpt-5.6-terra) had not answered yet.");
  });

  test("a rejected key: HTTP 401 named, key never shown", async () => {
    const double = await start();
    const wrong = "sk-wrong-openai-key-9876543210";
    const error = await openai({ apiKey: wrong, baseURL: `${double.baseUrl}/v1` })
      .request({ kind: "check", screen, statement: "x" }, { signal: noAbort() })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "provider", status: 401 });
    for (const text of [(error as Error).message, inspect(error, { depth: 10 }), JSON.stringify(error)]) {
      expect(text).not.toContain(wrong);
    }
  });

  test("no key and no baseURL builds, and the first request is a ConfigError naming OPENAI_API_KEY", async () => {
    const saved = { k: process.env.OPENAI_API_KEY, b: process.env.OPENAI_BASE_URL };
    delete process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_BASE_URL;
    try {
      const request = openai().request(
        { kind: "locate", screen, prompt: "the checkout button" },
        { signal: noAbort() },
      );
      await expect(request).rejects.toThrow(ConfigError);
      await expect(request).rejects.toThrow(/^openai\(\) needs an API key: .*OPENAI_API_KEY/);
    } finally {
      if (saved.k !== undefined) process.env.OPENAI_API_KEY = saved.k;
      if (saved.b !== undefined) process.env.OPENAI_BASE_URL = saved.b;
    }
  });
});

describe("azureOpenai() over the Azure paths", () => {
  test("by default sends to the v1 surface, the deployment as model, the key as a bearer token", async () => {
    const double = await start();
    const channel = azureOpenai({ apiKey: KEY, endpoint: `${double.baseUrl}/`, deployment: "vision-prod" });
    const answer = await channel.request(
      { kind: "locate", screen, prompt: "the checkout button" },
      { signal: noAbort() },
    );
    const sent = double.received[0]!;
    expect(sent.path).toBe("/openai/v1/chat/completions");
    expect((sent.body as { model: string }).model).toBe("vision-prod");
    expect(sent.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(answer.model).toBe("double:openai-wire/vision-prod");
    expectBoxNear(boxOf(answer), CHECKOUT, 1);
  });

  test("a dated apiVersion sends to /openai/deployments/<deployment> with api-version and the api-key header", async () => {
    const double = await start();
    const channel = azureOpenai({
      apiKey: KEY,
      endpoint: double.baseUrl,
      deployment: "vision-prod",
      apiVersion: "2024-10-21",
    });
    await channel.request({ kind: "locate", screen, prompt: "the checkout button" }, { signal: noAbort() });
    const sent = double.received[0]!;
    expect(sent.path).toBe("/openai/deployments/vision-prod/chat/completions?api-version=2024-10-21");
    expect(sent.headers["api-key"]).toBe(KEY);
    expect(sent.headers.authorization).toBeUndefined();
  });

  test("a token provider sends a bearer token instead of a key", async () => {
    const double = await start({ apiKey: "entra-token-123" });
    const channel = azureOpenai({
      endpoint: double.baseUrl,
      deployment: "vision-prod",
      apiVersion: "2025-04-01-preview",
      azureADTokenProvider: async () => "entra-token-123",
    });
    await channel.request({ kind: "check", screen, statement: "summary" }, { signal: noAbort() });
    expect(double.received[0]!.headers.authorization).toBe("Bearer entra-token-123");
    expect(double.received[0]!.path).toContain("api-version=2025-04-01-preview");
  });

  test("missing settings are named by the first request, not when the channel is built", async () => {
    const saved = { e: process.env.AZURE_OPENAI_ENDPOINT, d: process.env.AZURE_OPENAI_DEPLOYMENT };
    delete process.env.AZURE_OPENAI_ENDPOINT;
    delete process.env.AZURE_OPENAI_DEPLOYMENT;
    try {
      const channel = azureOpenai({ apiKey: "x" });
      const request = channel.request({ kind: "check", screen, statement: "summary" }, { signal: noAbort() });
      await expect(request).rejects.toThrow(ConfigError);
      await expect(request).rejects.toThrow(/endpoint \(or AZURE_OPENAI_ENDPOINT\), deployment/);
    } finally {
      if (saved.e !== undefined) process.env.AZURE_OPENAI_ENDPOINT = saved.e;
      if (saved.d !== undefined) process.env.AZURE_OPENAI_DEPLOYMENT = saved.d;
    }
  });
});
