import { ConfigError } from "../../src/core/ground/errors.js";
import { channelFromEnv } from "../../src/providers/index.js";
import { startGeminiDouble, startOpenAiDouble } from "../../rig/model-doubles/index.js";
import { checkoutKnowledge, noAbort, phoneScreen } from "./fixtures.js";

const GEMINI_KEY = "AIzaSyENV-gemini-key-0123456789abcdef";
const OPENAI_KEY = "sk-env-openai-key-0123456789abcdef";

function configError(env: NodeJS.ProcessEnv): ConfigError {
  try {
    channelFromEnv(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error("expected a ConfigError");
}

describe("channelFromEnv", () => {
  test("nothing set: no channel", () => {
    expect(channelFromEnv({})).toBeUndefined();
    expect(
      channelFromEnv({ TAPSHOT_MODEL: "gemini-3.8-flash", OPENAI_BASE_URL: "http://127.0.0.1:1/v1" }),
    ).toBeUndefined();
  });

  test("GEMINI_API_KEY alone gives a Gemini channel using TAPSHOT_MODEL and GOOGLE_GEMINI_BASE_URL", async () => {
    const double = await startGeminiDouble(checkoutKnowledge(), { apiKey: GEMINI_KEY });
    try {
      const channel = channelFromEnv({
        GEMINI_API_KEY: GEMINI_KEY,
        TAPSHOT_MODEL: "gemini-3.7-flash",
        GOOGLE_GEMINI_BASE_URL: double.baseUrl,
      });
      const answer = await channel!.request(
        { kind: "check", screen: await phoneScreen(), statement: "summary" },
        { signal: noAbort() },
      );
      expect(double.received[0]!.path).toContain("/models/gemini-3.7-flash:generateContent");
      expect(answer.model).toBe("double:gemini-wire/gemini-3.7-flash");
    } finally {
      await double.close();
    }
  });

  test("TAPSHOT_PROVIDER=openai with OPENAI_BASE_URL, TAPSHOT_COORDINATES and TAPSHOT_REFINE", async () => {
    const double = await startOpenAiDouble(checkoutKnowledge(), { coordinates: "normalized-1000" });
    try {
      const channel = channelFromEnv({
        TAPSHOT_PROVIDER: "openai",
        OPENAI_BASE_URL: `${double.baseUrl}/v1`,
        TAPSHOT_MODEL: "qwen3-vl",
        TAPSHOT_COORDINATES: "normalized-1000",
        TAPSHOT_REFINE: "false",
      });
      const answer = await channel!.request(
        { kind: "locate", screen: await phoneScreen(), prompt: "the checkout button" },
        { signal: noAbort() },
      );
      expect(double.calls()).toBe(1);
      expect(answer).toMatchObject({ found: true, model: "double:openai-wire/qwen3-vl" });
    } finally {
      await double.close();
    }
  });

  test("an unknown TAPSHOT_PROVIDER echoes the bad value, names the choices, and suggests the nearest", () => {
    expect(configError({ TAPSHOT_PROVIDER: "claude" }).message).toBe(
      'TAPSHOT_PROVIDER is "claude"; it must be one of gemini, openai, azure-openai, ocr.',
    );
    expect(configError({ TAPSHOT_PROVIDER: "gemni" }).message).toBe(
      'TAPSHOT_PROVIDER is "gemni" (did you mean "gemini"?); it must be one of gemini, openai, azure-openai, ocr.',
    );
  });

  test("a provider without its key names the key variable", () => {
    expect(configError({ TAPSHOT_PROVIDER: "openai" }).message).toMatch(/OPENAI_API_KEY is not set/);
    expect(configError({ TAPSHOT_PROVIDER: "gemini" }).message).toMatch(/GEMINI_API_KEY is not set/);
    expect(configError({ TAPSHOT_PROVIDER: "gemini", GOOGLE_GENAI_USE_VERTEXAI: "true" }).message).toMatch(
      /GOOGLE_CLOUD_PROJECT is not/,
    );
    const azure = configError({ TAPSHOT_PROVIDER: "azure-openai", AZURE_OPENAI_API_KEY: "az-secret-value-123" });
    expect(azure.message).toMatch(/AZURE_OPENAI_ENDPOINT, AZURE_OPENAI_DEPLOYMENT \(or TAPSHOT_MODEL\) are not set/);
    expect(azure.message).not.toContain("az-secret-value-123");
  });

  test("keys of two providers without TAPSHOT_PROVIDER: names the variables, never the values", () => {
    const error = configError({ GEMINI_API_KEY: GEMINI_KEY, OPENAI_API_KEY: OPENAI_KEY });
    expect(error.message).toMatch(/GEMINI_API_KEY, OPENAI_API_KEY.*set TAPSHOT_PROVIDER/);
    expect(error.message).not.toContain(GEMINI_KEY);
    expect(error.message).not.toContain(OPENAI_KEY);
    expect(
      channelFromEnv({ GEMINI_API_KEY: GEMINI_KEY, OPENAI_API_KEY: OPENAI_KEY, TAPSHOT_PROVIDER: "openai" }),
    ).toBeDefined();
  });

  test("invalid TAPSHOT_COORDINATES and TAPSHOT_REFINE are named", () => {
    expect(configError({ OPENAI_API_KEY: OPENAI_KEY, TAPSHOT_COORDINATES: "relative" }).message).toMatch(
      /TAPSHOT_COORDINATES must be/,
    );
    expect(configError({ OPENAI_API_KEY: OPENAI_KEY, TAPSHOT_REFINE: "maybe" }).message).toMatch(
      /TAPSHOT_REFINE must be/,
    );
  });

  test("Azure from its variables", () => {
    const channel = channelFromEnv({
      AZURE_OPENAI_API_KEY: "az-key",
      AZURE_OPENAI_ENDPOINT: "https://example.openai.azure.com",
      AZURE_OPENAI_DEPLOYMENT: "gpt-vision",
    });
    expect(typeof channel?.request).toBe("function");
  });

  test("TAPSHOT_PROVIDER=ocr is the local OCR engine, before TAPSHOT_OCR_FALLBACK's model", async () => {
    expect(channelFromEnv({ TAPSHOT_PROVIDER: "ocr" })).toBeDefined();
    expect(configError({ TAPSHOT_PROVIDER: "ocr", TAPSHOT_OCR_FALLBACK: "ocr" }).message).toMatch(
      /TAPSHOT_OCR_FALLBACK must be gemini, openai or azure-openai/,
    );
    expect(configError({ TAPSHOT_PROVIDER: "ocr", TAPSHOT_OCR_FALLBACK: "gemini" }).message).toMatch(/GEMINI_API_KEY/);

    const double = await startGeminiDouble(checkoutKnowledge(), { apiKey: GEMINI_KEY });
    try {
      const channel = channelFromEnv({
        TAPSHOT_PROVIDER: "ocr",
        TAPSHOT_OCR_FALLBACK: "gemini",
        GEMINI_API_KEY: GEMINI_KEY,
        GOOGLE_GEMINI_BASE_URL: double.baseUrl,
      });
      // No quoted text: OCR declines, and the fallback model answers (its name says so).
      const answer = await channel!.request(
        { kind: "check", screen: await phoneScreen(), statement: "the order summary is shown" },
        { signal: noAbort() },
      );
      expect(answer.model).toMatch(/^double:gemini-wire\//);
      expect(double.calls("check")).toBe(1);
    } finally {
      await double.close();
    }
  });
});
