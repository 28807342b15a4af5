/**
 * Thinking settings per Gemini model family, against the strict Gemini double, which refuses
 * with HTTP 400 what the real API refuses (rig/model-doubles/gemini-rules.ts).
 */
import type { AiImage } from "../../src/core/model/contract.js";
import { ConfigError, ProviderError } from "../../src/core/ground/errors.js";
import { gemini } from "../../src/providers/index.js";
import { geminiFamily } from "../../src/providers/gemini-models.js";
import { startGeminiDouble, type WireDouble } from "../../rig/model-doubles/index.js";
import { checkoutKnowledge, fastRetry, noAbort, phoneScreen } from "./fixtures.js";

const KEY = "AIzaSyTEST-gemini-key-0123456789abcdef";

let double: WireDouble;
let screen: AiImage;

beforeAll(async () => {
  screen = await phoneScreen();
});
beforeEach(async () => {
  double = await startGeminiDouble(checkoutKnowledge(), { apiKey: KEY });
});
afterEach(() => double.close());

const channel = (extra: Parameters<typeof gemini>[0] = {}) =>
  gemini({ apiKey: KEY, baseUrl: double.baseUrl, retry: fastRetry, ...extra });
const thinkingSent = (i: number) =>
  (double.received[i]!.body as { generationConfig: { thinkingConfig?: unknown } }).generationConfig.thinkingConfig;

describe("the default thinking is one the model accepts", () => {
  test.each<[string, unknown, unknown]>([
    ["gemini-3.8-flash", { thinkingLevel: "LOW" }, { thinkingLevel: "LOW" }],
    ["gemini-flash-latest", { thinkingLevel: "LOW" }, { thinkingLevel: "LOW" }],
    ["gemini-3-flash-preview", { thinkingLevel: "MINIMAL" }, { thinkingLevel: "MINIMAL" }],
    ["gemini-3-pro-preview", { thinkingLevel: "LOW" }, { thinkingLevel: "LOW" }],
    ["gemini-3.1-flash-lite", { thinkingLevel: "MINIMAL" }, { thinkingLevel: "MINIMAL" }],
    ["gemini-2.5-flash", { thinkingBudget: 0 }, { thinkingBudget: 0 }],
    ["models/gemini-2.5-flash", { thinkingBudget: 0 }, { thinkingBudget: 0 }],
    ["gemini-2.5-pro", { thinkingBudget: 128 }, { thinkingBudget: 128 }],
    ["gemini-2.0-flash", undefined, undefined],
    ["gemma-4-31b-it", { thinkingLevel: "MINIMAL" }, { thinkingLevel: "MINIMAL" }],
  ])("%s: locate and check are answered; judge runs at the model's default", async (model, locate, check) => {
    const c = channel({ model });
    await expect(
      c.request({ kind: "locate", screen, prompt: "the checkout button" }, { signal: noAbort() }),
    ).resolves.toMatchObject({ found: true });
    await expect(
      c.request({ kind: "check", screen, statement: "the summary" }, { signal: noAbort() }),
    ).resolves.toMatchObject({ pass: true });
    await c.request({ kind: "judge", screen, prompt: "the cart", references: [] }, { signal: noAbort() });
    expect([thinkingSent(0), thinkingSent(1), thinkingSent(2)]).toEqual([locate, check, undefined]);
  });
});

describe("a level the model refuses is a ConfigError before any request", () => {
  test.each<[string, Record<string, string>, RegExp]>([
    [
      "gemini-3.8-flash",
      { locate: "minimal" },
      /thinking\.locate = "minimal".*Gemini 3\.8 Flash.*accepts "low", "medium", "high", "model-default"/,
    ],
    ["gemini-flash-latest", { check: "minimal" }, /thinking\.check = "minimal"/],
    ["gemini-3-pro-preview", { judge: "medium" }, /thinking\.judge = "medium".*accepts "low", "high", "model-default"/],
    ["gemini-2.0-flash", { compare: "high" }, /thinking\.compare = "high".*Gemini 2\.0 Flash.*does not think/],
    ["gemma-4-31b-it", { locate: "low" }, /accepts "minimal", "high", "model-default"/],
  ])("%s with %j", (model, thinking, message) => {
    const make = () => channel({ model, thinking });
    expect(make).toThrow(ConfigError);
    expect(make).toThrow(message);
    expect(double.calls()).toBe(0);
  });

  test("every level the options allow is accepted by the models that list it", async () => {
    for (const [model, levels] of [
      ["gemini-3-flash-preview", ["minimal", "low", "medium", "high"]],
      // Google's "Developer's guide to Gemini 3.5 Flash" lists MINIMAL, LOW, MEDIUM, HIGH; 3.5 is forwarded to 3.6.
      ["gemini-3.5-flash", ["minimal", "low", "medium", "high"]],
      ["gemini-3.6-flash", ["minimal", "low", "medium", "high"]],
      ["gemini-3.1-pro-preview", ["low", "medium", "high"]],
      ["gemini-2.5-flash-lite", ["minimal", "low", "medium", "high"]],
      ["gemini-2.5-pro", ["minimal", "low", "medium", "high"]],
    ] as const) {
      for (const level of levels) {
        await channel({ model, thinking: { check: level } }).request(
          { kind: "check", screen, statement: "the summary" },
          { signal: noAbort() },
        );
      }
    }
    expect(double.received.every((r) => r.fault === undefined)).toBe(true);
  });

  test('"model-default" sends no thinkingConfig', async () => {
    await channel({ thinking: { locate: "model-default" } }).request(
      { kind: "locate", screen, prompt: "the checkout button" },
      { signal: noAbort() },
    );
    expect(thinkingSent(0)).toBeUndefined();
  });
});

describe("a 400 that names thinking says which option to change", () => {
  test("a ConfigError naming the kind's thinking option and what the model accepts, not retried", async () => {
    double.inject({ status: 400, message: "Thinking level LOW is not supported for this model." });
    const error = await channel()
      .request({ kind: "locate", screen, prompt: "the checkout button" }, { signal: noAbort() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      /answered HTTP 400: Thinking level LOW is not supported for this model\. tapshot sent thinking "low" for "locate"; Gemini 3\.8 Flash accepts .*Set gemini\(\{ thinking: \{ locate: \.\.\. \} \}\)/,
    );
    expect(double.calls()).toBe(1);
  });

  test("other 400s stay ProviderErrors", async () => {
    double.inject({ status: 400, message: "Request contains an invalid argument." });
    const error = await channel()
      .request({ kind: "check", screen, statement: "x" }, { signal: noAbort() })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProviderError);
  });
});

describe("model names in every form", () => {
  test.each<[string, string, string]>([
    ["gemini-2.5-flash", "gemini-2.5-flash", "budget"],
    ["models/gemini-2.5-pro", "gemini-2.5-pro", "budget"],
    ["projects/p/locations/global/publishers/google/models/gemini-2.5-flash", "gemini-2.5-flash", "budget"],
    [
      "projects/p/locations/us-central1/publishers/google/models/gemini-3.1-pro-preview",
      "gemini-3.1-pro-preview",
      "level",
    ],
    ["gemini-flash-latest", "gemini-3.8-flash", "level"],
    ["gemini-2.0-flash-001", "gemini-2.0-flash-001", "none"],
    ["tunedModels/my-model-abc", "my-model-abc", "unknown"],
  ])("%s is %s (%s)", (name, id, kind) => {
    const family = geminiFamily(name);
    expect(family.id).toBe(id);
    expect(family.thinking.kind).toBe(kind);
  });
});

describe("mediaResolution", () => {
  test("is sent only when set, and only to models that take it", async () => {
    await channel().request({ kind: "check", screen, statement: "the summary" }, { signal: noAbort() });
    await channel({ mediaResolution: "medium" }).request(
      { kind: "check", screen, statement: "the summary" },
      { signal: noAbort() },
    );
    const sent = (i: number) =>
      (double.received[i]!.body as { generationConfig: { mediaResolution?: string } }).generationConfig.mediaResolution;
    expect([sent(0), sent(1)]).toEqual([undefined, "MEDIA_RESOLUTION_MEDIUM"]);
    expect(() => channel({ model: "gemma-3-27b-it", mediaResolution: "low" })).toThrow(
      /mediaResolution "low", which Gemma 3 .* does not accept/,
    );
  });

  test("for the whole request it is sent to Gemini 2.5 too: every multimodal model takes it", async () => {
    // https://ai.google.dev/gemini-api/docs/media-resolution: per part Gemini 3 only; for the whole
    // generateContent request, all multimodal models.
    await channel({ model: "gemini-2.5-flash", mediaResolution: "low" }).request(
      { kind: "check", screen, statement: "the summary" },
      { signal: noAbort() },
    );
    const body = double.received.at(-1)!.body as { generationConfig: { mediaResolution?: string } };
    expect(body.generationConfig.mediaResolution).toBe("MEDIA_RESOLUTION_LOW");
  });
});
