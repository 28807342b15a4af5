/**
 * The backend `openai()` and `azureOpenai()` share: the Chat Completions API of the
 * `openai` SDK, with images as base64 data URLs with an explicit `detail` and structured
 * output built by `openai/helpers/zod`. Chat Completions (not Responses) because every
 * OpenAI-compatible server (vLLM, Ollama, LM Studio) and every Azure API version speaks it.
 */
import type OpenAI from "openai";
import { AI_KINDS, type AiChannel, type AiKind } from "../core/model/contract.js";
import { modelChannel, type ModelReply } from "./channel.js";
import { providerError, type Failure, type ProviderIdentity } from "./failure.js";
import { htmlAnswerIn, htmlFailure } from "./html-answer.js";
import { imagePlan } from "./images.js";
import type { CommonProviderOptions } from "./options.js";
import type { Turn } from "./prompts.js";
import { coordinatePlan, inferCoordinates, type Coordinates } from "./coordinates.js";
import { KEYWORDS_NOT_EVERYWHERE, wireSchemaName, wireSchemas, withoutKeywords, type BoxConvention } from "./wire.js";

export type { Coordinates } from "./coordinates.js";

/**
 * Who serves the Chat Completions API: OpenAI itself (api.openai.com), Azure OpenAI, or another
 * OpenAI-compatible server (vLLM, Ollama, LM Studio, llama.cpp, a gateway).
 */
export type ChatServer = "openai" | "azure" | "compatible";

/** Image detail for OpenAI vision input. */
export type ImageDetail = "low" | "high" | "auto";

/**
 * Reasoning effort for OpenAI reasoning models; leave unset for models without reasoning. Not every
 * model takes every value (the openai SDK's `ReasoningEffort`): gpt-5 pro models take only `high`,
 * gpt-5.1 and later refuse `minimal`.
 */
export type ReasoningEffort = "none" | "minimal" | "low" | "medium" | "high" | "xhigh" | "max";

/** OpenAI's reasoning models (o-series, gpt-5 family) take `reasoning_effort`; other models refuse it with a 400. */
const REASONING_MODEL = /^(o\d|gpt-5)/i;
/** gpt-5 pro models take only `high`, their default (the openai SDK's `ReasoningEffort` documentation). */
const HIGH_ONLY_MODEL = /^gpt-5(\.\d+)?-pro(-|$)/i;

/** Options shared by `openai()` and `azureOpenai()`. */
export interface ChatCompletionsOptions extends CommonProviderOptions {
  /**
   * How the model writes boxes (`bbox_2d` = [xmin, ymin, xmax, ymax]): a model family
   * (`"qwen2.5-vl"`, `"qwen3-vl"`, `"ui-tars-1"`, `"ui-tars-1.5"`) or a bare unit (`"pixels"` of the
   * sent image, `"normalized-1000"`). Default: `"pixels"` on OpenAI and Azure; on other servers the
   * family the model name names (`Qwen/Qwen2.5-VL-7B-Instruct` is `"qwen2.5-vl"`), else `"pixels"`.
   */
  coordinates?: Coordinates;
  /** Image `detail` sent with every image. Default `"high"`. */
  detail?: ImageDetail;
  /**
   * `reasoning_effort`: one value for every request kind, or one per kind (`"model-default"` sends none).
   * Default: `{ locate: "low" }` for OpenAI reasoning models (o-series, gpt-5*; on Azure, a deployment named
   * after one) on OpenAI and Azure, since a box does not improve with reasoning; nothing otherwise.
   */
  reasoningEffort?: ReasoningEffort | Partial<Record<AiKind, ReasoningEffort | "model-default">>;
}

/** Resolved by `openai()` or `azureOpenai()`: who is asked, and how to make the SDK client. */
export interface ChatCompletionsTarget {
  id: ProviderIdentity;
  /** The `model` field of each request (the deployment on Azure). */
  model: string;
  server: ChatServer;
  client: () => Promise<OpenAI>;
  /** What to change in the options when the server refused one of them; undefined for other failures. */
  fix?(failure: Failure, kind: AiKind): string | undefined;
}

type Sdk = typeof import("openai");
let sdk: Sdk | undefined;

/** Load the `openai` SDK on first use, so entries that never call a model do not pay for it. */
export async function loadOpenAi(): Promise<Sdk> {
  return (sdk ??= await import("openai"));
}

function header(headers: unknown, name: string): string | undefined {
  return (headers as Headers | undefined)?.get?.(name) ?? undefined;
}

function retryAfterMs(headers: unknown): number | undefined {
  const ms = Number.parseFloat(header(headers, "retry-after-ms") ?? "");
  if (Number.isFinite(ms)) return ms;
  const seconds = Number.parseFloat(header(headers, "retry-after") ?? "");
  return Number.isFinite(seconds) ? seconds * 1000 : undefined;
}

function classify(error: unknown): Failure {
  const html = htmlAnswerIn(error);
  if (html) return htmlFailure(html);
  if (sdk && error instanceof sdk.APIUserAbortError) return { detail: "aborted", retryable: false, aborted: true };
  if (sdk && error instanceof sdk.APIError && error.status !== undefined) {
    const body = error.error as { message?: string } | undefined;
    const status = error.status;
    return {
      status,
      detail: body?.message ?? error.message,
      retryable: status === 408 || status === 409 || status === 429 || status >= 500,
      retryAfterMs: retryAfterMs(error.headers),
      cause: error,
    };
  }
  const cause = (error as { cause?: unknown })?.cause;
  const detail = error instanceof Error ? `${error.message}${cause ? ` (${String(cause)})` : ""}` : String(error);
  // Connection failures are worth another try; a body the SDK cannot read is not.
  const retryable = !!sdk && error instanceof sdk.APIConnectionError;
  return { detail, retryable, cause: error };
}

/** The effort per kind from the options, or the default: low for `locate` on OpenAI's reasoning models. */
function reasoningEfforts(
  option: ChatCompletionsOptions["reasoningEffort"],
  target: ChatCompletionsTarget,
): Partial<Record<AiKind, ReasoningEffort>> {
  const chosen =
    typeof option === "string"
      ? Object.fromEntries(AI_KINDS.map((kind) => [kind, option]))
      : (option ?? (defaultsToLowLocate(target) ? { locate: "low" } : {}));
  return Object.fromEntries(Object.entries(chosen).filter(([, v]) => v !== "model-default"));
}

/** Whether the default low effort for `locate` applies: OpenAI reasoning models, except those that take only high. */
function defaultsToLowLocate(target: ChatCompletionsTarget): boolean {
  return target.server !== "compatible" && REASONING_MODEL.test(target.model) && !HIGH_ONLY_MODEL.test(target.model);
}

/** A 400 that names reasoning_effort: which option to change. */
function effortFix(failure: Failure, kind: AiKind, sent: ReasoningEffort | undefined): string | undefined {
  if (failure.status !== 400) return undefined;
  // OpenAI names the parameter on models without reasoning, and only the value on those that refuse one.
  const value = sent && failure.detail.includes(`Unsupported value: '${sent}' is not supported with the`);
  if (!value && !/reasoning_effort/i.test(failure.detail)) return undefined;
  const what = sent ? `tapshot sent reasoning_effort "${sent}" for "${kind}"` : `the "${kind}" request`;
  return (
    `${what}. Set the reasoningEffort option (e.g. { ${kind}: "model-default" }, which sends none) ` +
    `to what the model accepts; models without reasoning accept none.`
  );
}

/**
 * The `response_format` for a server: OpenAI's strict mode takes the schema as `openai/helpers/zod`
 * writes it; Azure refuses `minItems`/`maxItems` and other keywords, and OpenAI-compatible servers
 * may, so they get the schema without them (the answer is still checked by zod).
 */
function responseFormat<T extends { json_schema: { schema?: unknown } }>(format: T, server: ChatServer): T {
  if (server === "openai") return format;
  const schema = withoutKeywords(format.json_schema.schema, KEYWORDS_NOT_EVERYWHERE) as Record<string, unknown>;
  return { ...format, json_schema: { ...format.json_schema, schema } };
}

const MAX_SHORT_SIDE = 768;
const LOW_DETAIL_SIDE = 512;

/** Build the channel for a resolved target. */
export function chatCompletionsChannel(target: ChatCompletionsTarget, options: ChatCompletionsOptions): AiChannel {
  const { id } = target;
  const detail = options.detail ?? "high";
  const effort = reasoningEfforts(options.reasoningEffort, target);
  const coordinates =
    options.coordinates ?? (target.server === "compatible" ? inferCoordinates(target.model) : undefined) ?? "pixels";
  const { units, sideMultiple } = coordinatePlan(coordinates);
  const boxes: BoxConvention = { field: "bbox_2d", order: "xyxy", units };
  // WebP for OpenAI and Azure; local servers (Ollama, llama.cpp, LM Studio) mishandle it, JPEG works everywhere.
  const defaultFormat = target.server === "compatible" ? "jpeg" : "webp";
  // OpenAI shrinks high-detail images to a 768 px short side and low-detail ones to 512 px;
  // sending them at that size keeps pixel answers in the pixels the model saw.
  const plan =
    detail === "low"
      ? imagePlan(
          { ...options.image, maxSide: Math.min(options.image?.maxSide ?? LOW_DETAIL_SIDE, LOW_DETAIL_SIDE) },
          { sideMultiple, defaultFormat },
        )
      : imagePlan(options.image, { maxShortSide: MAX_SHORT_SIDE, sideMultiple, defaultFormat });

  async function send(turn: Turn, kind: AiKind, signal: AbortSignal): Promise<ModelReply> {
    const client = await target.client();
    const { zodResponseFormat } = await import("openai/helpers/zod");
    const content: OpenAI.Chat.ChatCompletionContentPart[] = turn.parts.map((p) =>
      "text" in p
        ? { type: "text", text: p.text }
        : {
            type: "image_url",
            image_url: { url: `data:${p.image.sent.mimeType};base64,${p.image.sent.data}`, detail },
          },
    );
    const completion = await client.chat.completions.create(
      {
        model: target.model,
        messages: [
          { role: "system", content: turn.system },
          { role: "user", content },
        ],
        response_format: responseFormat(
          zodResponseFormat(wireSchemas(boxes)[kind], wireSchemaName(kind)),
          target.server,
        ),
        ...(effort[kind] ? { reasoning_effort: effort[kind] } : {}),
      },
      { signal },
    );
    const choice = completion.choices?.[0];
    if (!choice) throw providerError(id, `gave no choices for the "${kind}" request.`);
    const message = choice.message;
    if (message?.refusal) throw providerError(id, `refused the "${kind}" request: ${message.refusal}`);
    if (choice.finish_reason === "content_filter") {
      throw providerError(id, `refused the "${kind}" request (finish reason content_filter).`);
    }
    if (choice.finish_reason === "length") {
      throw providerError(id, `stopped before its "${kind}" answer was complete (finish reason length).`);
    }
    if (!message?.content) throw providerError(id, `gave an empty "${kind}" answer.`);
    const usage = completion.usage;
    return {
      text: message.content,
      model: completion.model,
      usage: usage ? { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens } : undefined,
    };
  }

  return modelChannel({
    id,
    boxes,
    image: plan,
    refine: options.refine ?? true,
    retry: options.retry,
    send,
    classify(error, kind) {
      const failure = classify(error);
      const fix = target.fix?.(failure, kind) ?? effortFix(failure, kind, effort[kind]);
      return fix ? { ...failure, fix } : failure;
    },
  });
}
