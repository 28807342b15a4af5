/*
 * A channel over someone else's model: each turn is handed to a `send` function as MCP sampling's
 * `sampling/createMessage` parameters (a system prompt, user messages of one text or image block
 * each), and its reply's text is read with the same wire schemas as every provider's. `tapshot mcp`
 * uses it to ask the agent's own model when no provider is configured.
 */
import type { AiChannel, AiKind } from "../core/model/contract.js";
import { ProviderError } from "../core/ground/errors.js";
import { modelChannel, type ModelReply } from "./channel.js";
import type { ProviderIdentity } from "./failure.js";
import { imagePlan } from "./images.js";
import type { ImageOptions, RetryOptions } from "./options.js";
import type { Turn } from "./prompts.js";
import type { BoxConvention } from "./wire.js";

/** One block of a sampling message (MCP `TextContent` or `ImageContent`). */
export type SamplingContent = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string };

/** What {@link SamplingChannelOptions.send} gets: the parameters of one `sampling/createMessage` request. */
export interface SamplingRequest {
  systemPrompt: string;
  /** User messages of one block each, in order: a label, then its image, then the next label. */
  messages: { role: "user"; content: SamplingContent }[];
  maxTokens: number;
  /** `none`: the reply must not depend on other context the client holds. */
  includeContext: "none";
}

/** What the client answered: its reply's text and the model it reports (MCP `CreateMessageResult`). */
export interface SamplingReply {
  text: string;
  model: string;
  stopReason?: string;
}

/** Options of {@link samplingChannel}. */
export interface SamplingChannelOptions {
  /** Send one request to the client's model; throw (or reject) when the client refuses it. */
  send(request: SamplingRequest, signal: AbortSignal): Promise<SamplingReply>;
  /** The name errors give the channel. Default `"mcp-sampling"`. */
  provider?: string;
  /** Downscaling and encoding of sent images. Default JPEG, longest side 1280. */
  image?: ImageOptions;
  /** Default: one attempt (a refused request is not asked again). */
  retry?: RetryOptions;
}

/** Boxes in pixels of the sent image, `[xmin, ymin, xmax, ymax]`: what general chat models write most reliably. */
const BOXES: BoxConvention = { field: "bbox_2d", order: "xyxy", units: "pixels" };

/** The most tokens a reply may take; every answer is one short JSON object. */
const MAX_REPLY_TOKENS = 1024;

/** A channel whose every request is a sampling request handed to `send`. */
export function samplingChannel(options: SamplingChannelOptions): AiChannel {
  const id: ProviderIdentity = {
    provider: options.provider ?? "mcp-sampling",
    model: "the client's model",
    secrets: [],
  };
  async function send(turn: Turn, kind: AiKind, signal: AbortSignal): Promise<ModelReply> {
    let reply: SamplingReply;
    try {
      reply = await options.send(samplingRequest(turn), signal);
    } catch (error) {
      if (signal.aborted) throw error;
      throw new ProviderError(
        id.provider,
        id.model,
        `The client's model did not answer the "${kind}" request: ${(error as Error).message}`,
      );
    }
    if (reply.stopReason === "maxTokens") {
      throw new ProviderError(
        id.provider,
        reply.model,
        `The "${kind}" answer of ${reply.model} was cut at its length.`,
      );
    }
    return { text: withoutCodeFence(reply.text), model: reply.model };
  }
  return modelChannel({
    id,
    boxes: BOXES,
    image: imagePlan(options.image, { defaultFormat: "jpeg" }),
    refine: false,
    retry: options.retry ?? { attempts: 1 },
    send,
    classify: (error) => ({ detail: (error as Error).message, retryable: false, cause: error }),
  });
}

function samplingRequest(turn: Turn): SamplingRequest {
  const messages = turn.parts.map((part) => ({
    role: "user" as const,
    content:
      "text" in part
        ? ({ type: "text", text: part.text } as const)
        : ({ type: "image", data: part.image.sent.data, mimeType: part.image.sent.mimeType } as const),
  }));
  return { systemPrompt: turn.system, messages, maxTokens: MAX_REPLY_TOKENS, includeContext: "none" };
}

/** A chat model's reply often wraps its JSON in one Markdown code fence; the JSON inside is the answer. */
function withoutCodeFence(text: string): string {
  const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n\s*```\s*$/.exec(text);
  return fenced ? fenced[1]! : text;
}
