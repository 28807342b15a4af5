/**
 * `gemini()`: a channel over @google/genai `generateContent`, with the Gemini API key or
 * Vertex AI. Images go as inline parts, answers come as JSON constrained by
 * `responseJsonSchema`, boxes as `box_2d` = [ymin, xmin, ymax, xmax] normalised to 0-1000.
 */
import type { GoogleGenAI, MediaResolution } from "@google/genai";
import type { AiChannel, AiKind } from "../core/model/contract.js";
import { ConfigError } from "../core/ground/errors.js";
import { registerSecret } from "../core/ground/secrets.js";
import { modelChannel, type ModelReply } from "./channel.js";
import { missingSettingChannel } from "./missing-setting.js";
import { providerError, type Failure, type ProviderIdentity } from "./failure.js";
import { htmlAnswerIn, htmlFailure, htmlGuardedFetch } from "./html-answer.js";
import { imagePlan } from "./images.js";
import type { CommonProviderOptions } from "./options.js";
import type { Turn } from "./prompts.js";
import { GEMINI_BOXES, wireJsonSchema } from "./wire.js";
import {
  describeAccepted,
  geminiFamily,
  resolveThinking,
  thinkingConfigFor,
  type ThinkingOption,
} from "./gemini-models.js";
import { checkProviderOptions, checkServerUrl, GeminiOptionsSchema } from "./validate.js";

/** The default Gemini model: the current GA Flash, good at spatial understanding. */
export const DEFAULT_GEMINI_MODEL = "gemini-3.8-flash";

/** How much a Gemini model thinks before answering; `"model-default"` sends nothing. */
export type GeminiThinking = ThinkingOption;

/** Options of {@link gemini}. */
export interface GeminiOptions extends CommonProviderOptions {
  /** Gemini API key. Default `$GEMINI_API_KEY`, then `$GOOGLE_API_KEY`. Not used with `vertex`. */
  apiKey?: string;
  /**
   * Use Vertex AI (Application Default Credentials) instead of an API key. `project` defaults to
   * `$GOOGLE_CLOUD_PROJECT`, `location` to `$GOOGLE_CLOUD_LOCATION` or `"global"`.
   */
  vertex?: { project?: string; location?: string };
  /** Model name. Default {@link DEFAULT_GEMINI_MODEL}. */
  model?: string;
  /** Another endpoint for the Gemini REST API (a proxy, or a test double). */
  baseUrl?: string;
  /**
   * Thinking per request kind. Default: `locate` and `check` at the lowest level the model
   * accepts, the other kinds at the model's default. Gemini 3+ takes levels (which ones
   * depends on the model: a level it refuses is a ConfigError naming the ones it accepts), Gemini
   * 2.5 token budgets (docs/providers.md lists them), Gemini 2.0 none.
   */
  thinking?: Partial<Record<AiKind, GeminiThinking>>;
  /**
   * `mediaResolution` of the images, for the whole request: `"low"`, `"medium"` or `"high"` (fewer tokens per
   * image, or more detail); every multimodal Gemini model takes it. Default `"model-default"`: nothing is
   * sent, and Gemini 3 reads images at high resolution, which keeps boxes precise and small labels legible;
   * a learned value is paid for once and replayed. Refused on Gemma and on model names tapshot does not know.
   */
  mediaResolution?: "low" | "medium" | "high" | "model-default";
}

const MEDIA_RESOLUTIONS = {
  low: "MEDIA_RESOLUTION_LOW",
  medium: "MEDIA_RESOLUTION_MEDIUM",
  high: "MEDIA_RESOLUTION_HIGH",
} as const;

const REFUSALS = new Set([
  "SAFETY",
  "RECITATION",
  "BLOCKLIST",
  "PROHIBITED_CONTENT",
  "SPII",
  "IMAGE_SAFETY",
  "LANGUAGE",
]);

function retryDelayMs(body: unknown): number | undefined {
  const details = (body as { error?: { details?: { retryDelay?: string }[] } })?.error?.details ?? [];
  const delay = details.find((d) => typeof d?.retryDelay === "string")?.retryDelay;
  const seconds = delay ? Number.parseFloat(delay) : NaN;
  return Number.isFinite(seconds) ? seconds * 1000 : undefined;
}

/** A 400 whose message names thinking: the server refused the level or budget tapshot sent. */
const THINKING_REFUSED = /thinking/i;

/** Read what @google/genai threw: an ApiError with `status` and a JSON body as message, or a fetch failure. */
function classify(error: unknown): Failure {
  const html = htmlAnswerIn(error);
  if (html) return htmlFailure(html);
  const e = error as { name?: string; status?: unknown; message?: string };
  if (e?.name === "AbortError") return { detail: "aborted", retryable: false, aborted: true, cause: error };
  if (typeof e?.status === "number") {
    let body: unknown;
    try {
      body = JSON.parse(e.message ?? "");
    } catch {
      body = undefined;
    }
    const message = (body as { error?: { message?: string } })?.error?.message ?? e.message ?? "";
    const status = e.status;
    return {
      status,
      detail: message,
      retryable: status === 408 || status === 429 || status >= 500,
      retryAfterMs: retryDelayMs(body),
      cause: error,
    };
  }
  const detail =
    error instanceof Error ? `${error.message}${error.cause ? ` (${String(error.cause)})` : ""}` : String(error);
  // fetch() fails with a TypeError when the connection does; anything else (a body that is not JSON) will not heal.
  return { detail, retryable: error instanceof TypeError, cause: error };
}

/**
 * The SDK's own fetch path looks up undici's global dispatcher on `globalThis`, which a VM
 * context (jest, where many Appium suites run) does not have; plain fetch works everywhere,
 * and the call's signal bounds the request. It also turns an HTML page into a clear failure.
 */
const callFetch = htmlGuardedFetch;

/** What {@link gemini} resolved from its options and the environment. */
interface GeminiSettings {
  options: GeminiOptions;
  model: string;
  apiKey: string | undefined;
  project: string | undefined;
  location: string | undefined;
  family: ReturnType<typeof geminiFamily>;
  thinking: ReturnType<typeof resolveThinking>;
  media: keyof typeof MEDIA_RESOLUTIONS | undefined;
  id: ProviderIdentity;
}

/**
 * A channel to Gemini. Sends each screenshot downscaled (long side 1280 px, WebP by default),
 * asks for JSON matching the kind's schema, and maps `box_2d` back to the request's pixels.
 *
 * ```ts
 * configureAi({ channel: gemini({ model: "gemini-3.8-flash" }) });
 * ```
 */
export function gemini(options: GeminiOptions = {}): AiChannel {
  const settings = geminiSettings(options);
  // Without a key (or project) the channel still builds: mode replay never asks, the first request says what to set.
  const missing = missingSetting(settings);
  if (missing) return missingSettingChannel(missing);
  const getClient = clientOf(settings);
  return modelChannel({
    id: settings.id,
    boxes: GEMINI_BOXES,
    image: imagePlan(options.image),
    refine: options.refine ?? false,
    retry: options.retry,
    send: async (turn, kind, signal) =>
      replyOf(settings, kind, await generate(settings, await getClient(), { turn, kind, signal })),
    classify: (error, kind) => withThinkingFix(settings, classify(error), kind),
  });
}

/** The options checked and resolved: model, credentials, thinking and media resolution. */
function geminiSettings(options: GeminiOptions): GeminiSettings {
  checkProviderOptions("gemini", GeminiOptionsSchema, options);
  const model = options.model ?? DEFAULT_GEMINI_MODEL;
  const { vertex } = options;
  const apiKey = vertex ? undefined : (options.apiKey ?? process.env.GEMINI_API_KEY ?? process.env.GOOGLE_API_KEY);
  const project = vertex ? (vertex.project ?? process.env.GOOGLE_CLOUD_PROJECT) : undefined;
  const location = vertex ? (vertex.location ?? process.env.GOOGLE_CLOUD_LOCATION ?? "global") : undefined;
  checkServerUrl("gemini", "baseUrl", options.baseUrl);
  registerSecret(apiKey);
  const family = geminiFamily(model);
  const thinking = resolveThinking(model, family, options.thinking);
  const media = options.mediaResolution === "model-default" ? undefined : options.mediaResolution;
  if (media && !family.mediaResolution) {
    throw new ConfigError(
      `gemini() got mediaResolution "${media}", which ${family.label} (model ${model}) does not accept; ` +
        `only Gemini models take it. Remove it or set it to "model-default".`,
    );
  }
  const id: ProviderIdentity = { provider: "gemini", model, secrets: apiKey ? [apiKey] : [] };
  return { options, model, apiKey, project, location, family, thinking, media, id };
}

/** What to set when the credentials are missing, or `undefined`. */
function missingSetting({ options, apiKey, project }: GeminiSettings): string | undefined {
  if (!options.vertex && !apiKey) {
    return (
      "gemini() needs an API key: pass { apiKey }, or set GEMINI_API_KEY (or GOOGLE_API_KEY); " +
      "for Vertex AI pass { vertex: { project } } or set GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT."
    );
  }
  if (options.vertex && !project) {
    return "gemini({ vertex }) needs a Google Cloud project: pass vertex.project or set GOOGLE_CLOUD_PROJECT.";
  }
  return undefined;
}

/** The SDK's client, made on first use (the SDK is loaded only when a request is sent). */
function clientOf({ options, apiKey, project, location }: GeminiSettings): () => Promise<GoogleGenAI> {
  let client: Promise<GoogleGenAI> | undefined;
  return () =>
    (client ??= import("@google/genai").then(
      ({ GoogleGenAI }) =>
        new GoogleGenAI({
          ...(options.vertex ? { vertexai: true, project, location } : { apiKey }),
          httpOptions: { ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}), fetch: callFetch },
        }),
    ));
}

type GenerateResponse = Awaited<ReturnType<GoogleGenAI["models"]["generateContent"]>>;

/** One `generateContent` request: the turn's parts, the kind's JSON schema, thinking and media resolution. */
function generate(
  { model, family, thinking, media }: GeminiSettings,
  ai: GoogleGenAI,
  { turn, kind, signal }: { turn: Turn; kind: AiKind; signal: AbortSignal },
): Promise<GenerateResponse> {
  const parts = turn.parts.map((p) =>
    "text" in p ? { text: p.text } : { inlineData: { mimeType: p.image.sent.mimeType, data: p.image.sent.data } },
  );
  const thinkingCfg = thinkingConfigFor(family, thinking[kind]);
  return ai.models.generateContent({
    model,
    contents: [{ role: "user", parts }],
    config: {
      systemInstruction: turn.system,
      responseMimeType: "application/json",
      responseJsonSchema: wireJsonSchema(kind, GEMINI_BOXES),
      ...(thinkingCfg ? { thinkingConfig: thinkingCfg } : {}),
      ...(media ? { mediaResolution: MEDIA_RESOLUTIONS[media] as MediaResolution } : {}),
      abortSignal: signal,
    },
  });
}

/** The answer's text and usage; a blocked, refused, cut or empty answer is a provider error. */
function replyOf({ id }: GeminiSettings, kind: AiKind, response: GenerateResponse): ModelReply {
  const blocked = response.promptFeedback?.blockReason;
  if (blocked) {
    const why = response.promptFeedback?.blockReasonMessage;
    throw providerError(id, `blocked the "${kind}" request (${blocked}${why ? `: ${why}` : ""}).`);
  }
  const candidate = response.candidates?.[0];
  const finish = candidate?.finishReason;
  if (finish && REFUSALS.has(finish)) {
    throw providerError(id, `refused to answer the "${kind}" request (finish reason ${finish}).`);
  }
  if (finish === "MAX_TOKENS") {
    throw providerError(id, `stopped before its "${kind}" answer was complete (finish reason MAX_TOKENS).`);
  }
  const text = (candidate?.content?.parts ?? [])
    .filter((p) => !p.thought && typeof p.text === "string")
    .map((p) => p.text)
    .join("");
  if (!text) throw providerError(id, `gave no answer to the "${kind}" request (finish reason ${finish ?? "none"}).`);
  const usage = response.usageMetadata;
  return {
    text,
    model: response.modelVersion,
    usage: usage
      ? {
          inputTokens: usage.promptTokenCount,
          outputTokens:
            usage.candidatesTokenCount === undefined && usage.thoughtsTokenCount === undefined
              ? undefined
              : (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
        }
      : undefined,
  };
}

/** A 400 that names thinking says which setting was sent and which the model accepts. */
function withThinkingFix({ thinking, family }: GeminiSettings, failure: Failure, kind: AiKind): Failure {
  if (failure.status !== 400 || !THINKING_REFUSED.test(failure.detail)) return failure;
  const sent = thinking[kind];
  const what = sent
    ? `tapshot sent thinking "${sent}" for "${kind}"`
    : `tapshot sent no thinking setting for "${kind}"`;
  return {
    ...failure,
    fix: `${what}; ${family.label} ${describeAccepted(family)}. Set gemini({ thinking: { ${kind}: ... } }) to one of those.`,
  };
}
