/**
 * A double that speaks the Gemini `generateContent` REST wire format (Gemini API and Vertex
 * AI paths). Point `gemini({ baseUrl })` (or `GOOGLE_GEMINI_BASE_URL`) at `baseUrl`. It reads
 * the images and the user's tagged text from the request, refuses what the real API refuses
 * (per-model thinking levels and budgets, image types, unknown models: ./gemini-rules.ts), and
 * answers from knowledge with
 * `box_2d` = [ymin, xmin, ymax, xmax] normalised to 0-1000, and names itself as the model
 * (`modelVersion: "double:gemini-wire/<requested model>"`).
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
import { refusalOf, servedModel, unknownModel } from "./gemini-rules.js";
import { startWireServer, type WireDouble, type WireResponse } from "./server.js";

/** Options of {@link startGeminiDouble}. */
export interface GeminiDoubleOptions {
  /** When set, requests without this `x-goog-api-key` get HTTP 400 "API key not valid", as Gemini answers. */
  apiKey?: string;
}

interface GeminiPart {
  text?: string;
  inlineData?: { mimeType: string; data: string };
}
interface GeminiBody {
  contents?: { parts?: GeminiPart[] }[];
  systemInstruction?: { parts?: GeminiPart[] } | string;
  generationConfig?: {
    responseJsonSchema?: unknown;
    responseSchema?: unknown;
    thinkingConfig?: { thinkingLevel?: string; thinkingBudget?: number };
    mediaResolution?: string;
  };
}

const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

function errorBody(status: number, message: string): WireResponse {
  return { status, body: { error: { code: status, message, status: STATUS_NAMES[status] ?? "UNKNOWN" } } };
}

/** [ymin, xmin, ymax, xmax] normalised to 0-1000 of the frame. */
function box2d(box: Box, frame: { width: number; height: number }): number[] {
  const nx = (v: number) => Math.round((v / frame.width) * 1000);
  const ny = (v: number) => Math.round((v / frame.height) * 1000);
  return [ny(box.y), nx(box.x), ny(box.y + box.height), nx(box.x + box.width)];
}

function wireText(answer: NeutralAnswer, kind: ReceivedRequest["kind"]): string {
  const fields: Record<string, unknown> = { ...answer.fields };
  if (kind === "locate") fields.box_2d = answer.box ? box2d(answer.box, answer.frame) : null;
  if (answer.varying) fields.varying = answer.varying.map((b) => box2d(b, answer.frame));
  return JSON.stringify(fields);
}

function candidateResponse(request: ReceivedRequest, text: string, finishReason = "STOP"): WireResponse {
  const usage = doubleUsage(request, text);
  return {
    status: 200,
    body: {
      candidates: [{ content: { role: "model", parts: text ? [{ text }] : [] }, finishReason, index: 0 }],
      usageMetadata: {
        promptTokenCount: usage.input,
        candidatesTokenCount: usage.output,
        totalTokenCount: usage.input + usage.output,
      },
      modelVersion: `double:gemini-wire/${request.model}`,
      responseId: `double-${Date.now()}`,
    },
  };
}

function partsOf(body: GeminiBody): RawPart[] {
  const system =
    typeof body.systemInstruction === "string"
      ? [{ text: body.systemInstruction }]
      : (body.systemInstruction?.parts ?? []);
  const all = [...system, ...(body.contents ?? []).flatMap((c) => c.parts ?? [])];
  return all.flatMap((p): RawPart[] => {
    if (typeof p.text === "string") return [{ text: p.text }];
    if (p.inlineData) return [{ mimeType: p.inlineData.mimeType, bytes: Buffer.from(p.inlineData.data, "base64") }];
    return [];
  });
}

async function playFault(fault: Fault, request: ReceivedRequest): Promise<WireResponse | "hang"> {
  if (fault === "hang") return "hang";
  if (fault === "garbage") return { status: 200, body: "<html>not json", raw: true };
  if (fault === "malformed")
    return candidateResponse(request, JSON.stringify({ reason: "double: malformed", found: "yes" }));
  if (fault === "not-json") return candidateResponse(request, "Sure! The button is at the bottom.");
  if (fault === "refusal") return candidateResponse(request, "", "SAFETY");
  if (fault === "blocked") {
    return {
      status: 200,
      body: { promptFeedback: { blockReason: "SAFETY" }, modelVersion: `double:gemini-wire/${request.model}` },
    };
  }
  const response = errorBody(fault.status, fault.message ?? `double: injected HTTP ${fault.status}`);
  if (fault.retryAfterSeconds !== undefined) response.headers = { "retry-after": String(fault.retryAfterSeconds) };
  return response;
}

/**
 * Start a Gemini-wire double on 127.0.0.1.
 *
 * ```ts
 * const double = await startGeminiDouble({ locate: (target, image) => ({ box: { x: 10, y: 20, width: 100, height: 40 } }) });
 * const channel = gemini({ apiKey: "test-key", baseUrl: double.baseUrl });
 * ```
 */
export async function startGeminiDouble(knowledge: Knowledge, options: GeminiDoubleOptions = {}): Promise<WireDouble> {
  const received: ReceivedRequest[] = [];
  const server = await startWireServer(async (raw, req: http.IncomingMessage, faults) => {
    const body = (raw ?? {}) as GeminiBody;
    const path = req.url ?? "";
    const model = /\/models\/([^/:]+):generateContent/.exec(path)?.[1] ?? "unknown";
    const schema = body.generationConfig?.responseJsonSchema ?? body.generationConfig?.responseSchema;
    const request = await interpret(partsOf(body), {
      kind: kindOfSchema(schema),
      path,
      headers: req.headers,
      body: raw,
      model,
    });
    received.push(request);
    if (!/:generateContent$/.test(path.split("?")[0]!)) return errorBody(404, `double: no route ${path}`);
    if (options.apiKey !== undefined && req.headers["x-goog-api-key"] !== options.apiKey) {
      return errorBody(400, "API key not valid. Please pass a valid API key.");
    }
    const served = servedModel(model);
    if (!served) {
      const { status, message } = unknownModel(model);
      return errorBody(status, message);
    }
    const refusal = refusalOf(
      served,
      body.generationConfig,
      request.images.map((i) => i.mimeType),
      path.includes("/projects/"),
    );
    if (refusal) return errorBody(refusal.status, refusal.message);
    const fault = faults.shift();
    if (fault) {
      request.fault = fault;
      return playFault(fault, request);
    }
    try {
      const answer = await answerFromKnowledge(knowledge, request);
      return candidateResponse(request, wireText(answer, request.kind));
    } catch (error) {
      if (error instanceof NoKnowledgeError) return errorBody(400, `double:gemini-wire: ${error.message}`);
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
