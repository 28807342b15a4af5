/**
 * `tapshot/providers`: model channels for `configureAi({ channel })`.
 *
 * ```ts
 * import { configureAi } from "tapshot/runner";
 * import { gemini, openai, azureOpenai } from "tapshot/providers";
 * configureAi({ channel: gemini() });                                        // $GEMINI_API_KEY
 * configureAi({ channel: openai({ model: "gpt-5.6-terra" }) });              // $OPENAI_API_KEY
 * configureAi({ channel: openai({ baseURL: "http://127.0.0.1:11434/v1", model: "qwen3-vl", coordinates: "normalized-1000" }) });
 * configureAi({ channel: azureOpenai({ endpoint, deployment: "gpt-5-mini" }) });
 * ```
 */
export { gemini, DEFAULT_GEMINI_MODEL } from "./gemini.js";
export type { GeminiOptions, GeminiThinking } from "./gemini.js";
export { openai, DEFAULT_OPENAI_MODEL } from "./openai.js";
export type { OpenAiOptions } from "./openai.js";
export { azureOpenai, DEFAULT_AZURE_API_VERSION } from "./azure.js";
export type { AzureOpenAiOptions } from "./azure.js";
export type { ChatCompletionsOptions, Coordinates, ImageDetail, ReasoningEffort } from "./chat-completions.js";
export type { CommonProviderOptions, ImageOptions, RetryOptions } from "./options.js";
export { channelFromEnv, PROVIDER_NAMES } from "./env.js";
export { samplingChannel } from "./sampling.js";
export type { SamplingChannelOptions, SamplingContent, SamplingReply, SamplingRequest } from "./sampling.js";
export { ocr, OCR_MODEL, OCR_PACKAGES } from "./ocr/index.js";
/** Load the local OCR engine ahead of the first request (a warm-up; benchmarks time it). */
export { loadOcrEngine } from "./ocr/engine.js";
export type { OcrOptions } from "./ocr/index.js";
