/**
 * What OpenAI, Azure OpenAI and OpenAI-compatible servers refuse or mishandle, as their
 * documentation and public error reports say. The OpenAI double checks every request against
 * these rules before it answers, with the real service's status and words.
 */

/** A refusal: HTTP status and the service's message (`code` for Azure's error bodies). */
export interface Refusal {
  status: number;
  message: string;
  code?: string;
}

/** The OpenAI-compatible servers the double can stand in for. */
export type ServerKind = "openai" | "vllm" | "ollama" | "llama.cpp" | "lm-studio";

/**
 * What a server does with an image type it cannot decode.
 * - OpenAI and Azure take PNG, JPEG, WEBP and non-animated GIF (platform.openai.com/docs/guides/images-vision,
 *   "Image input requirements").
 * - vLLM decodes with Pillow, which reads WebP.
 * - Ollama answers 400 "invalid image input" to WebP (ollama/ollama issue 11410, qwen2.5vl on /v1/chat/completions).
 * - llama.cpp's llama-server decodes with stb_image, which has no WebP ("llama-server does not currently support
 *   WebP image payloads", ollama/ollama pull 17755): builds drop the image and answer without it, newer ones
 *   answer 400 "Failed to load image or audio file" (cline/cline issue 8977). The double drops it.
 * - LM Studio's llama.cpp engine likewise fails on WebP; the double answers 400 like llama-server.
 */
export function imageHandling(server: ServerKind | "azure", mimeType: string): "ok" | "drop" | Refusal {
  const base = ["image/png", "image/jpeg", "image/gif"];
  if (server === "openai" || server === "azure" || server === "vllm") {
    return [...base, "image/webp"].includes(mimeType)
      ? "ok"
      : { status: 400, message: "You uploaded an unsupported image. Please make sure your image is valid." };
  }
  if (base.includes(mimeType)) return "ok";
  if (server === "ollama") return { status: 400, message: "invalid image input" };
  if (server === "llama.cpp") return "drop";
  return { status: 400, message: "Failed to load image or audio file" };
}

type Schema = Record<string, unknown>;

/**
 * Strict mode (`strict: true`) takes a subset of JSON Schema (platform.openai.com/docs/guides/structured-outputs,
 * "Supported schemas"): the root is an object, not anyOf; every object sets `additionalProperties: false` and lists
 * every property in `required`. Its messages name the schema and the context path.
 */
function strictModeRefusal(name: string, schema: Schema, path: string[] = []): Refusal | undefined {
  const at = (p: string[]) => `In context=(${p.map((s) => `'${s}'`).join(", ")})`;
  const refuse = (p: string[], what: string): Refusal => ({
    status: 400,
    message: `Invalid schema for response_format '${name}': ${at(p)}, ${what}`,
  });
  if (path.length === 0 && schema.type !== "object")
    return refuse(path, "schema must be a JSON Schema of 'type: \"object\"'.");
  if (schema.type === "object" || schema.properties) {
    if (schema.additionalProperties !== false) {
      return refuse(path, "'additionalProperties' is required to be supplied and to be false.");
    }
    const keys = Object.keys((schema.properties as Schema | undefined) ?? {});
    const required = (schema.required as string[] | undefined) ?? [];
    const missing = keys.find((k) => !required.includes(k));
    if (missing) {
      return refuse(
        path,
        `'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`,
      );
    }
  }
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties") {
      for (const [prop, sub] of Object.entries(value as Schema)) {
        const r = strictModeRefusal(name, sub as Schema, [...path, "properties", prop]);
        if (r) return r;
      }
    } else if (key === "items" && value && typeof value === "object") {
      const r = strictModeRefusal(name, value as Schema, [...path, "items"]);
      if (r) return r;
    } else if ((key === "anyOf" || key === "oneOf" || key === "allOf") && Array.isArray(value)) {
      for (const [i, sub] of value.entries()) {
        const r = strictModeRefusal(name, sub as Schema, [...path, key, String(i)]);
        if (r) return r;
      }
    }
  }
  return undefined;
}

/**
 * Keywords Azure OpenAI structured outputs do not support (learn.microsoft.com/azure/ai-foundry/openai/how-to/
 * structured-outputs, "Unsupported type-specific keywords"): strings minLength, maxLength, pattern, format;
 * numbers minimum, maximum, multipleOf; objects patternProperties, unevaluatedProperties, propertyNames,
 * minProperties, maxProperties; arrays unevaluatedItems, contains, minContains, maxContains, minItems, maxItems,
 * uniqueItems. Azure refuses them with 400 in OpenAI's wording ("... 'minItems' is not permitted.").
 */
const AZURE_UNSUPPORTED = [
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "multipleOf",
  "patternProperties",
  "unevaluatedProperties",
  "propertyNames",
  "minProperties",
  "maxProperties",
  "unevaluatedItems",
  "contains",
  "minContains",
  "maxContains",
  "minItems",
  "maxItems",
  "uniqueItems",
];

function unsupportedKeyword(name: string, schema: unknown, path: string[] = []): Refusal | undefined {
  if (!schema || typeof schema !== "object") return undefined;
  for (const [key, value] of Object.entries(schema as Schema)) {
    if (AZURE_UNSUPPORTED.includes(key) && path.at(-1) !== "properties") {
      const context = path.map((s) => `'${s}'`).join(", ");
      return {
        status: 400,
        message: `Invalid schema for response_format '${name}': In context=(${context}), '${key}' is not permitted.`,
      };
    }
    const r = unsupportedKeyword(name, value, [...path, key]);
    if (r) return r;
  }
  return undefined;
}

interface ResponseFormat {
  type?: string;
  json_schema?: { name?: string; strict?: boolean; schema?: Schema };
}

/** The schema rules of a server for a request's `response_format`. */
export function schemaRefusal(server: ServerKind | "azure", format: ResponseFormat | undefined): Refusal | undefined {
  const js = format?.type === "json_schema" ? format.json_schema : undefined;
  if (!js?.schema) return undefined;
  const name = js.name ?? "response";
  if (server === "azure") {
    const keyword = unsupportedKeyword(name, js.schema);
    if (keyword) return keyword;
  }
  if ((server === "openai" || server === "azure") && js.strict) return strictModeRefusal(name, js.schema);
  return undefined;
}

/**
 * Azure deployments and API versions (learn.microsoft.com/azure/ai-foundry/openai/api-version-lifecycle).
 * - The v1 surface `/openai/v1/chat/completions` takes the deployment as `model` and no dated version; `api-version`
 *   may only be `preview` (or `v1`) there.
 * - The dated surface `/openai/deployments/<name>/chat/completions` needs `api-version`.
 * - `response_format` json_schema needs 2024-08-01-preview or later ("response_format value as json_schema is enabled
 *   only for api versions 2024-08-01-preview and later", learn.microsoft.com Q&A 2278693).
 * - Reasoning models (o1, o3, o4-mini, gpt-5 family) need 2024-12-01-preview or later; Azure answers with the model
 *   name left as a placeholder: "Model {modelName} is enabled only for api versions 2024-12-01-preview and later"
 *   (microsoft/semantic-kernel issue 12268, langchain4j/langchain4j issue 2636).
 */
export function azureRefusal(
  path: string,
  query: URLSearchParams,
  model: string,
  hasJsonSchema: boolean,
): Refusal | undefined {
  const version = query.get("api-version");
  if (path.startsWith("/openai/v1/")) {
    if (version !== null && version !== "preview" && version !== "v1") {
      return { status: 400, code: "BadRequest", message: `API version not supported: ${version} on the v1 API.` };
    }
    return undefined;
  }
  if (!version) return { status: 404, code: "404", message: "Resource not found" };
  const date = version.slice(0, 10);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) {
    return { status: 404, code: "404", message: "Resource not found" };
  }
  if (/^(o\d|gpt-5)/.test(model) && date < "2024-12-01") {
    return {
      status: 400,
      code: "BadRequest",
      message: "Model {modelName} is enabled only for api versions 2024-12-01-preview and later",
    };
  }
  if (hasJsonSchema && date < "2024-08-01") {
    return {
      status: 400,
      code: "BadRequest",
      message: "response_format value as json_schema is enabled only for api versions 2024-08-01-preview and later",
    };
  }
  return undefined;
}

/**
 * `reasoning_effort` is a parameter of reasoning models only (platform.openai.com/docs/guides/reasoning: o-series
 * and gpt-5 family); OpenAI and Azure refuse it on other models in the wording they use for any such parameter:
 * "Unsupported parameter: 'reasoning_effort' is not supported with this model." OpenAI-compatible servers
 * (vLLM, Ollama) accept and ignore it.
 */
export function parameterRefusal(
  server: ServerKind | "azure",
  model: string,
  body: { reasoning_effort?: unknown },
): Refusal | undefined {
  if (server !== "openai" && server !== "azure") return undefined;
  if (body.reasoning_effort === undefined) return undefined;
  if (/^(o\d|gpt-5)/.test(model)) return effortValueRefusal(model, String(body.reasoning_effort));
  return {
    status: 400,
    code: "unsupported_parameter",
    message: "Unsupported parameter: 'reasoning_effort' is not supported with this model.",
  };
}

/**
 * The values a reasoning model takes, from the openai SDK's `ReasoningEffort` documentation
 * (node_modules/openai/resources/shared.d.ts) and the reasoning guide it links: gpt-5 pro models take
 * only `high`; gpt-5.1 and later do not take `minimal`. The refusal's wording is OpenAI's
 * (openai/openai-agents-python issue 2089: "Unsupported value: 'minimal' is not supported with the
 * 'gpt-5.1' model. Supported values are: ...").
 */
function effortValueRefusal(model: string, effort: string): Refusal | undefined {
  const later = /^gpt-5\.\d/.test(model);
  const supported = /^gpt-5(\.\d+)?-pro(-|$)/.test(model)
    ? ["high"]
    : later
      ? ["none", "low", "medium", "high", "xhigh"]
      : ["minimal", "low", "medium", "high"];
  if (supported.includes(effort)) return undefined;
  const listed = supported.map((v) => `'${v}'`);
  const values = listed.length > 1 ? `${listed.slice(0, -1).join(", ")}, and ${listed.at(-1)}` : listed[0];
  return {
    status: 400,
    code: "unsupported_value",
    message: `Unsupported value: '${effort}' is not supported with the '${model}' model. Supported values are: ${values}.`,
  };
}
