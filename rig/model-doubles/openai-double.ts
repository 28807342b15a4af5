/**
 * A double that speaks the OpenAI Chat Completions wire format, on the OpenAI path
 * (`/v1/chat/completions`, `/chat/completions`) and the Azure path
 * (`/openai/deployments/<deployment>/chat/completions?api-version=...`). Point
 * `openai({ baseURL: double.baseUrl + "/v1" })` or `azureOpenai({ endpoint: double.baseUrl })`
 * at it. It reads images (base64 data URLs) and the user's tagged text from the request,
 * refuses what the server it stands in for refuses (./openai-rules.ts: strict-mode schemas, Azure's
 * API versions per deployment and unsupported keywords, image types per server), answers JSON
 * matching the request's `response_format` schema with `bbox_2d` = [xmin, ymin, xmax, ymax] in the
 * frame of the model family it answers as (./frames.ts), and names itself as the model
 * (`model: "double:openai-wire/<requested model>"`).
 *
 * Only Chat Completions: the providers use it (every OpenAI-compatible server speaks it),
 * so a Responses request gets HTTP 404 here.
 */
import type http from "node:http";
import {
  answerFromKnowledge,
  doubleUsage,
  interpret,
  kindOfSchema,
  NoKnowledgeError,
  type Box,
  type Fault,
  type Knowledge,
  type NeutralAnswer,
  type RawPart,
  type ReceivedRequest,
} from "./knowledge.js";
import { frameOf, toFrame, type ModelFamily } from "./frames.js";
import {
  azureRefusal,
  imageHandling,
  parameterRefusal,
  schemaRefusal,
  type Refusal,
  type ServerKind,
} from "./openai-rules.js";
import { startWireServer, type WireDouble, type WireResponse } from "./server.js";

/** Options of {@link startOpenAiDouble}. */
export interface OpenAiDoubleOptions {
  /**
   * Shorthand for `family`: `"pixels"` answers as a GPT model, `"normalized-1000"` as Qwen3-VL.
   * Default `"pixels"`.
   */
  coordinates?: "pixels" | "normalized-1000";
  /** The model family whose box frame the double answers in (./frames.ts). Overrides `coordinates`. */
  family?: ModelFamily;
  /**
   * For a refinement crop, which frame the double answers in: `"crop"` (what tapshot asks for) or
   * `"screen"`, pixels of the whole screenshot, as a model that misreads the prompt would. Default `"crop"`.
   */
  refineFrame?: "crop" | "screen";
  /** The server on the OpenAI paths (`/v1/...`); the Azure paths (`/openai/...`) always follow Azure. Default `"openai"`. */
  server?: ServerKind;
  /** Azure: the model behind each deployment name; a deployment not listed serves the model it is named after. */
  deployments?: Record<string, string>;
  /** When set, requests must carry it (`Authorization: Bearer`, or Azure's `api-key`), else HTTP 401. */
  apiKey?: string;
}

interface ChatContentPart {
  type: string;
  text?: string;
  image_url?: { url: string; detail?: string };
}
interface ChatBody {
  model?: string;
  reasoning_effort?: string;
  messages?: { role: string; content: string | ChatContentPart[] }[];
  response_format?: {
    type: string;
    json_schema?: { name?: string; strict?: boolean; schema?: Record<string, unknown> };
  };
}

function errorBody(status: number, message: string): WireResponse {
  const type = status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error";
  return { status, body: { error: { message, type, param: null, code: null } } };
}

/** Azure's error body: `{ error: { code, message } }`. */
function refusalBody(refusal: Refusal, azure: boolean): WireResponse {
  if (!azure) return errorBody(refusal.status, refusal.message);
  return { status: refusal.status, body: { error: { code: refusal.code ?? "BadRequest", message: refusal.message } } };
}

function partsOf(body: ChatBody): RawPart[] {
  return (body.messages ?? []).flatMap((m): RawPart[] => {
    if (typeof m.content === "string") return [{ text: m.content }];
    return m.content.flatMap((p): RawPart[] => {
      if (p.type === "text" && typeof p.text === "string") return [{ text: p.text }];
      const url = p.image_url?.url ?? "";
      const data = /^data:([^;]+);base64,(.*)$/s.exec(url);
      return data ? [{ mimeType: data[1]!, bytes: Buffer.from(data[2]!, "base64") }] : [];
    });
  });
}

/**
 * Start an OpenAI-wire double on 127.0.0.1.
 *
 * ```ts
 * const double = await startOpenAiDouble({ locate: () => ({ box: { x: 10, y: 20, width: 100, height: 40 } }) });
 * const channel = openai({ apiKey: "test-key", baseURL: `${double.baseUrl}/v1` });
 * ```
 */
export async function startOpenAiDouble(knowledge: Knowledge, options: OpenAiDoubleOptions = {}): Promise<WireDouble> {
  const family: ModelFamily = options.family ?? (options.coordinates === "normalized-1000" ? "qwen3-vl" : "gpt");
  const serverKind = options.server ?? "openai";
  const received: ReceivedRequest[] = [];

  const bbox = (box: Box, image: { width: number; height: number }): number[] =>
    toFrame(box, image, frameOf(family, image));
  const wireText = (answer: NeutralAnswer, kind: ReceivedRequest["kind"]): string => {
    const fields: Record<string, unknown> = { ...answer.fields };
    if (kind === "locate") {
      const inScreen = options.refineFrame === "screen" ? answer.inScreen : undefined;
      fields.bbox_2d = inScreen?.box
        ? // The screenshot's own numbers, as the prompt gives them: its pixels, or 0-1000 of it.
          toFrame(
            inScreen.box,
            inScreen.screen,
            frameOf(family, inScreen.screen).units === "pixels"
              ? { units: "pixels", ...inScreen.screen }
              : { units: "normalized-1000" },
          )
        : answer.box
          ? bbox(answer.box, answer.frame)
          : null;
    }
    if (answer.varying) fields.varying = answer.varying.map((b) => bbox(b, answer.frame));
    return JSON.stringify(fields);
  };
  /** What a server that dropped every image answers: it saw only text. */
  const blind = (kind: ReceivedRequest["kind"]): string => {
    const reason = "double: no image reached the model";
    if (kind === "locate") return JSON.stringify({ reason, found: false, bbox_2d: null });
    if (kind === "check") return JSON.stringify({ reason, pass: false });
    if (kind === "judge") return JSON.stringify({ reason, accept: false, varying: [] });
    if (kind === "satisfy") return JSON.stringify({ reason, probability: 0.5 });
    if (kind === "complete") return JSON.stringify({ reason, probability: 0 });
    if (kind === "decide") return JSON.stringify({ reason, choices: [] });
    return JSON.stringify({ reason, realChange: true, varying: [] });
  };
  const completion = (
    request: ReceivedRequest,
    message: { content: string | null; refusal: string | null },
    finish = "stop",
  ): WireResponse => {
    const usage = doubleUsage(request, message.content ?? message.refusal ?? "");
    return {
      status: 200,
      body: {
        id: `chatcmpl-double-${Date.now()}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: `double:openai-wire/${request.model}`,
        choices: [{ index: 0, message: { role: "assistant", ...message }, finish_reason: finish, logprobs: null }],
        usage: {
          prompt_tokens: usage.input,
          completion_tokens: usage.output,
          total_tokens: usage.input + usage.output,
        },
      },
    };
  };
  const playFault = (fault: Fault, request: ReceivedRequest): WireResponse | "hang" => {
    if (fault === "hang") return "hang";
    if (fault === "garbage") return { status: 200, body: "<html>not json", raw: true };
    if (fault === "malformed") {
      return completion(request, {
        content: JSON.stringify({ reason: "double: malformed", found: "yes" }),
        refusal: null,
      });
    }
    if (fault === "not-json") return completion(request, { content: "Sure! It is at the bottom.", refusal: null });
    if (fault === "refusal" || fault === "blocked") {
      return completion(request, { content: null, refusal: "double: I can't help with that request." });
    }
    const response = errorBody(fault.status, fault.message ?? `double: injected HTTP ${fault.status}`);
    if (fault.retryAfterSeconds !== undefined) response.headers = { "retry-after": String(fault.retryAfterSeconds) };
    return response;
  };

  const server = await startWireServer(async (raw, req: http.IncomingMessage, faults) => {
    const body = (raw ?? {}) as ChatBody;
    const path = req.url ?? "";
    const deployment = /\/deployments\/([^/]+)\//.exec(path)?.[1];
    const model = body.model ?? deployment ?? "unknown";
    const [route = "", search = ""] = path.split("?");
    const azure = route.startsWith("/openai/");
    const request = await interpret(partsOf(body), {
      kind: kindOfSchema(body.response_format?.json_schema?.schema, body.response_format?.json_schema?.name),
      path,
      headers: req.headers,
      body: raw,
      model,
    });
    received.push(request);
    if (!/\/chat\/completions$/.test(route)) return errorBody(404, `double: no route ${path}`);
    if (options.apiKey !== undefined) {
      const sent = req.headers["api-key"] ?? req.headers.authorization?.replace(/^Bearer /, "");
      if (sent !== options.apiKey) return errorBody(401, "Incorrect API key provided.");
    }
    const kind = azure ? "azure" : serverKind;
    const served = azure ? (options.deployments?.[deployment ?? model] ?? deployment ?? model) : model;
    const refusal =
      (azure
        ? azureRefusal(route, new URLSearchParams(search), served, body.response_format?.type === "json_schema")
        : undefined) ??
      schemaRefusal(kind, body.response_format) ??
      parameterRefusal(kind, served, body);
    if (refusal) return refusalBody(refusal, azure);
    let dropped = false;
    for (const image of [...request.images]) {
      const handling = imageHandling(kind, image.mimeType);
      if (handling === "ok") continue;
      if (handling !== "drop") return refusalBody(handling, azure);
      request.images.splice(request.images.indexOf(image), 1);
      dropped = true;
    }
    if (dropped && !request.images.some((i) => i.name === "screen" || i.name === "crop")) {
      return completion(request, { content: blind(request.kind), refusal: null });
    }
    const fault = faults.shift();
    if (fault) {
      request.fault = fault;
      return playFault(fault, request);
    }
    try {
      const answer = await answerFromKnowledge(knowledge, request);
      return completion(request, { content: wireText(answer, request.kind), refusal: null });
    } catch (error) {
      if (error instanceof NoKnowledgeError) return errorBody(400, `double:openai-wire: ${error.message}`);
      throw error;
    }
  });
  return {
    baseUrl: server.baseUrl,
    requests: server.requests,
    received,
    calls: (kind) => (kind ? received.filter((r) => r.kind === kind).length : received.length),
    inject: server.inject,
    close: server.close,
  };
}
