/*
 * A channel from environment variables, for runs without `configureAi`. The platform
 * entries register {@link envDefaultChannel}. Errors name the variable to set and never
 * print a value.
 */
import type { DefaultChannel } from "../core/config/config.js";
import type { AiChannel } from "../core/model/contract.js";
import { ConfigError } from "../core/ground/errors.js";
import { azureOpenai } from "./azure.js";
import { COORDINATES, type Coordinates } from "./coordinates.js";
import { gemini } from "./gemini.js";
import { openai } from "./openai.js";
import { ocr } from "./ocr/index.js";
import { nearestName } from "../core/ground/nearest.js";

/** Values of `TAPSHOT_PROVIDER`. */
export const PROVIDER_NAMES = ["gemini", "openai", "azure-openai", "ocr"] as const;
type ProviderName = (typeof PROVIDER_NAMES)[number];

const set = (value: string | undefined): string | undefined => (value?.trim() ? value.trim() : undefined);
const truthy = (value: string | undefined) => /^(1|true|yes|on)$/i.test(value?.trim() ?? "");

function flag(env: NodeJS.ProcessEnv, name: string): boolean | undefined {
  const value = set(env[name]);
  if (value === undefined) return undefined;
  if (/^(1|true|yes|on)$/i.test(value)) return true;
  if (/^(0|false|no|off)$/i.test(value)) return false;
  throw new ConfigError(`${name} must be "true" or "false".`);
}

function coordinates(env: NodeJS.ProcessEnv): Coordinates | undefined {
  const value = set(env.TAPSHOT_COORDINATES);
  if (value === undefined || (COORDINATES as readonly string[]).includes(value)) return value as Coordinates;
  throw new ConfigError(`TAPSHOT_COORDINATES must be one of ${COORDINATES.join(", ")}.`);
}

/** Which provider the keys point to when `TAPSHOT_PROVIDER` is not set. */
function inferProvider(env: NodeJS.ProcessEnv): ProviderName | undefined {
  const candidates: [ProviderName, string[]][] = [
    ["gemini", ["GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"]],
    ["openai", ["OPENAI_API_KEY"]],
    ["azure-openai", ["AZURE_OPENAI_API_KEY"]],
  ];
  const present = candidates
    .map(
      ([name, vars]) =>
        [name, vars.filter((v) => (v === "GOOGLE_GENAI_USE_VERTEXAI" ? truthy(env[v]) : set(env[v])))] as const,
    )
    .filter(([, vars]) => vars.length > 0);
  if (present.length === 0) return undefined;
  if (present.length > 1) {
    const vars = present.flatMap(([, v]) => v).join(", ");
    throw new ConfigError(
      `Keys of several model providers are set (${vars}); set TAPSHOT_PROVIDER to one of ${PROVIDER_NAMES.join(", ")}.`,
    );
  }
  return present[0]![0];
}

/**
 * Build a channel from `TAPSHOT_PROVIDER` (or, when it is unset, from the one provider whose
 * key is set), `TAPSHOT_MODEL` and the providers' usual variables. Returns `undefined` when
 * nothing is configured; throws a ConfigError naming the variable when something is missing.
 */
export function channelFromEnv(env: NodeJS.ProcessEnv): AiChannel | undefined {
  const provider = chosenProvider(env) ?? inferProvider(env);
  if (!provider) return undefined;
  const model = set(env.TAPSHOT_MODEL);
  const refine = flag(env, "TAPSHOT_REFINE");
  const common: Common = { ...(model ? { model } : {}), ...(refine !== undefined ? { refine } : {}) };
  return FROM_ENV[provider](env, common);
}

/** `TAPSHOT_MODEL` and `TAPSHOT_REFINE`, as every provider takes them. */
type Common = { model?: string; refine?: boolean };

/** `TAPSHOT_PROVIDER`, checked against the provider names; `undefined` when unset. */
function chosenProvider(env: NodeJS.ProcessEnv): ProviderName | undefined {
  const chosen = set(env.TAPSHOT_PROVIDER)?.toLowerCase();
  if (chosen === undefined || (PROVIDER_NAMES as readonly string[]).includes(chosen)) {
    return chosen as ProviderName | undefined;
  }
  const near = nearestName(chosen, PROVIDER_NAMES);
  throw new ConfigError(
    `TAPSHOT_PROVIDER is "${chosen}"${near ? ` (did you mean "${near}"?)` : ""}; ` +
      `it must be one of ${PROVIDER_NAMES.join(", ")}.`,
  );
}

/** Each provider's channel from its usual variables. */
const FROM_ENV: Record<ProviderName, (env: NodeJS.ProcessEnv, common: Common) => AiChannel> = {
  ocr: ocrFromEnv,
  gemini: geminiFromEnv,
  openai: openaiFromEnv,
  "azure-openai": azureFromEnv,
};

/** The local OCR engine is never inferred from keys: it is chosen by name, optionally before a model. */
function ocrFromEnv(env: NodeJS.ProcessEnv): AiChannel {
  const name = set(env.TAPSHOT_OCR_FALLBACK)?.toLowerCase();
  if (name === "ocr") throw new ConfigError("TAPSHOT_OCR_FALLBACK must be gemini, openai or azure-openai.");
  const fallback = name ? channelFromEnv({ ...env, TAPSHOT_PROVIDER: name }) : undefined;
  return ocr(fallback ? { fallback } : {});
}

function geminiFromEnv(env: NodeJS.ProcessEnv, common: Common): AiChannel {
  const baseUrl = set(env.GOOGLE_GEMINI_BASE_URL);
  if (truthy(env.GOOGLE_GENAI_USE_VERTEXAI)) {
    const project = set(env.GOOGLE_CLOUD_PROJECT);
    if (!project) throw new ConfigError("GOOGLE_GENAI_USE_VERTEXAI is set but GOOGLE_CLOUD_PROJECT is not; set it.");
    const location = set(env.GOOGLE_CLOUD_LOCATION);
    return gemini({
      ...common,
      vertex: { project, ...(location ? { location } : {}) },
      ...(baseUrl ? { baseUrl } : {}),
    });
  }
  const apiKey = set(env.GEMINI_API_KEY) ?? set(env.GOOGLE_API_KEY);
  if (!apiKey) {
    throw new ConfigError(
      "TAPSHOT_PROVIDER is gemini but GEMINI_API_KEY is not set; set it (or GOOGLE_API_KEY), " +
        "or set GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT for Vertex AI.",
    );
  }
  return gemini({ ...common, apiKey, ...(baseUrl ? { baseUrl } : {}) });
}

function openaiFromEnv(env: NodeJS.ProcessEnv, common: Common): AiChannel {
  const apiKey = set(env.OPENAI_API_KEY);
  const baseURL = set(env.OPENAI_BASE_URL);
  if (!apiKey && !baseURL) {
    throw new ConfigError(
      "TAPSHOT_PROVIDER is openai but OPENAI_API_KEY is not set; set it, or set OPENAI_BASE_URL for an OpenAI-compatible server.",
    );
  }
  const coords = coordinates(env);
  return openai({
    ...common,
    ...(apiKey ? { apiKey } : {}),
    ...(baseURL ? { baseURL } : {}),
    ...(coords ? { coordinates: coords } : {}),
  });
}

function azureFromEnv(env: NodeJS.ProcessEnv, { model, refine }: Common): AiChannel {
  const apiKey = set(env.AZURE_OPENAI_API_KEY);
  const endpoint = set(env.AZURE_OPENAI_ENDPOINT);
  const deployment = set(env.AZURE_OPENAI_DEPLOYMENT) ?? model;
  const apiVersion = set(env.OPENAI_API_VERSION);
  const missing = [
    !apiKey && "AZURE_OPENAI_API_KEY",
    !endpoint && "AZURE_OPENAI_ENDPOINT",
    !deployment && "AZURE_OPENAI_DEPLOYMENT (or TAPSHOT_MODEL)",
  ].filter(Boolean);
  if (missing.length) {
    throw new ConfigError(
      `TAPSHOT_PROVIDER is azure-openai but ${missing.join(", ")} ${missing.length > 1 ? "are" : "is"} not set.`,
    );
  }
  const coords = coordinates(env);
  return azureOpenai({
    ...(refine !== undefined ? { refine } : {}),
    apiKey,
    endpoint,
    deployment,
    ...(apiVersion ? { apiVersion } : {}),
    ...(coords ? { coordinates: coords } : {}),
  });
}

/** Every variable {@link channelFromEnv} reads: the channel is rebuilt when one of them changes. */
const ENV_KEYS = [
  "TAPSHOT_PROVIDER",
  "TAPSHOT_MODEL",
  "TAPSHOT_COORDINATES",
  "TAPSHOT_REFINE",
  "TAPSHOT_OCR_FALLBACK",
  "GEMINI_API_KEY",
  "GOOGLE_API_KEY",
  "GOOGLE_GENAI_USE_VERTEXAI",
  "GOOGLE_CLOUD_PROJECT",
  "GOOGLE_CLOUD_LOCATION",
  "GOOGLE_GEMINI_BASE_URL",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "AZURE_OPENAI_API_KEY",
  "AZURE_OPENAI_ENDPOINT",
  "AZURE_OPENAI_DEPLOYMENT",
  "OPENAI_API_VERSION",
];

/**
 * The default channel the platform entries register: {@link channelFromEnv} over `process.env`,
 * built once and rebuilt when a variable it reads changes.
 */
export function envDefaultChannel(env: NodeJS.ProcessEnv = process.env): DefaultChannel {
  let built: { key: string; channel: AiChannel | undefined } | undefined;
  return {
    channel() {
      const key = ENV_KEYS.map((k) => env[k] ?? "").join("\u0000");
      if (built?.key !== key) built = { key, channel: channelFromEnv(env) };
      return built.channel;
    },
    howToConfigure:
      "set TAPSHOT_PROVIDER=gemini with GEMINI_API_KEY (or TAPSHOT_PROVIDER=openai with OPENAI_API_KEY; see docs/providers.md)",
  };
}
