/*
 * `openai()`: a channel to OpenAI, or through `baseURL` to any OpenAI-compatible server
 * (vLLM, Ollama, LM Studio) serving a vision model.
 */
import type { AiChannel } from "../core/model/contract.js";
import { missingSettingChannel } from "./missing-setting.js";
import { chatCompletionsChannel, loadOpenAi, type ChatCompletionsOptions } from "./chat-completions.js";
import { registerSecret } from "../core/ground/secrets.js";
import { htmlGuardedFetch } from "./html-answer.js";
import { checkProviderOptions, checkServerUrl, OpenAiOptionsSchema } from "./validate.js";

/** The default OpenAI model: the balanced GPT-5.6 tier, with vision input. */
export const DEFAULT_OPENAI_MODEL = "gpt-5.6-terra";

/** Options of {@link openai}. */
export interface OpenAiOptions extends ChatCompletionsOptions {
  /** API key. Default `$OPENAI_API_KEY`. Optional with `baseURL` (local servers rarely check it). */
  apiKey?: string;
  /** Model name. Default {@link DEFAULT_OPENAI_MODEL}; with `baseURL`, the name the server serves. */
  model?: string;
  /** An OpenAI-compatible server, e.g. `http://127.0.0.1:8000/v1` (vLLM). Default `$OPENAI_BASE_URL`. */
  baseURL?: string;
  /**
   * What serves `baseURL`: `"openai"` (OpenAI's API, or a proxy or gateway in front of it: WebP images,
   * the full strict-mode schema) or `"compatible"` (vLLM, Ollama, LM Studio, llama.cpp: JPEG images, a schema
   * without `minItems`/`maxItems`, `coordinates` inferred from the model name). Default `"openai"` for
   * api.openai.com or no `baseURL`, else `"compatible"`.
   */
  server?: "openai" | "compatible";
  /** OpenAI organization and project IDs, when the key needs them. */
  organization?: string;
  project?: string;
}

/** Whether a base URL is OpenAI's own API (no base URL is OpenAI's default, api.openai.com). */
function servesOpenAi(baseURL: string | undefined): boolean {
  if (!baseURL) return true;
  try {
    return new URL(baseURL).hostname === "api.openai.com";
  } catch {
    return false;
  }
}

/** A placeholder key for servers that ignore it; the SDK refuses to start without one. */
const NO_KEY = "no-key";

/**
 * A channel to an OpenAI model over Chat Completions, with structured output. `locate` runs
 * a refinement pass on a zoomed crop by default (`refine: false` turns it off).
 *
 * ```ts
 * configureAi({ channel: openai() });                                   // OpenAI, $OPENAI_API_KEY
 * configureAi({ channel: openai({ baseURL: "http://127.0.0.1:8000/v1", model: "Qwen/Qwen3-VL-8B-Instruct",
 *   coordinates: "normalized-1000", refine: false }) });               // vLLM
 * ```
 */
export function openai(options: OpenAiOptions = {}): AiChannel {
  checkProviderOptions("openai", OpenAiOptionsSchema, options);
  const baseURL = options.baseURL ?? process.env.OPENAI_BASE_URL;
  const apiKey = options.apiKey ?? process.env.OPENAI_API_KEY;
  checkServerUrl("openai", options.baseURL ? "baseURL" : "OPENAI_BASE_URL", baseURL);
  registerSecret(apiKey);
  // Built without a key all the same: mode replay never asks, the first request says what to set.
  if (!apiKey && !baseURL) {
    return missingSettingChannel(
      "openai() needs an API key: pass { apiKey } or set OPENAI_API_KEY; for an OpenAI-compatible server pass { baseURL }.",
    );
  }
  const model = options.model ?? DEFAULT_OPENAI_MODEL;
  let client: ReturnType<typeof create> | undefined;
  const create = async () => {
    const { OpenAI } = await loadOpenAi();
    return new OpenAI({
      apiKey: apiKey ?? NO_KEY,
      baseURL,
      organization: options.organization ?? null,
      project: options.project ?? null,
      maxRetries: 0,
      fetch: htmlGuardedFetch,
    });
  };
  return chatCompletionsChannel(
    {
      id: { provider: "openai", model, secrets: apiKey ? [apiKey] : [] },
      model,
      server: options.server ?? (servesOpenAi(baseURL) ? "openai" : "compatible"),
      client: () => (client ??= create()),
    },
    options,
  );
}
