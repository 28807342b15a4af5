/**
 * Validation of provider options with zod: a typo or a wrong type is a ConfigError that
 * names the provider and the option, before any request is made.
 */
import { describeZodError } from "../core/ground/zod-errors.js";
import { z } from "zod";
import { ConfigError } from "../core/ground/errors.js";
import { hasUserinfo, redact } from "../core/ground/secrets.js";
import { COORDINATES } from "./coordinates.js";
import { AI_KINDS } from "../core/model/contract.js";

const text = z.string().min(1, "must not be empty");
const positiveInt = z.number().int().positive();
const httpUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL, e.g. http://127.0.0.1:8000/v1" });

const common = {
  image: z
    .object({
      maxSide: z.number().int().min(64, "must be at least 64 pixels").optional(),
      format: z.enum(["webp", "jpeg", "png"]).optional(),
      quality: z.number().int().min(1).max(100).optional(),
    })
    .strict()
    .optional(),
  retry: z
    .object({
      attempts: positiveInt.optional(),
      initialDelayMs: z.number().nonnegative().optional(),
      maxDelayMs: z.number().nonnegative().optional(),
    })
    .strict()
    .optional(),
  refine: z.boolean().optional(),
};

const chatCompletions = {
  ...common,
  coordinates: z.enum(COORDINATES).optional(),
  detail: z.enum(["low", "high", "auto"]).optional(),
  reasoningEffort: z
    .union([
      z.enum(["none", "minimal", "low", "medium", "high", "xhigh", "max"]),
      z.partialRecord(
        z.enum(AI_KINDS),
        z.enum(["none", "minimal", "low", "medium", "high", "xhigh", "max", "model-default"]),
      ),
    ])
    .optional(),
};

const thinkingLevel = z.enum(["minimal", "low", "medium", "high", "model-default"]);

export const GeminiOptionsSchema = z
  .object({
    ...common,
    apiKey: text.optional(),
    vertex: z.object({ project: text.optional(), location: text.optional() }).strict().optional(),
    model: text.optional(),
    baseUrl: httpUrl.optional(),
    thinking: z.partialRecord(z.enum(AI_KINDS), thinkingLevel).optional(),
    mediaResolution: z.enum(["low", "medium", "high", "model-default"]).optional(),
  })
  .strict();

export const OpenAiOptionsSchema = z
  .object({
    ...chatCompletions,
    apiKey: text.optional(),
    model: text.optional(),
    baseURL: httpUrl.optional(),
    server: z.enum(["openai", "compatible"]).optional(),
    organization: text.optional(),
    project: text.optional(),
  })
  .strict();

export const AzureOpenAiOptionsSchema = z
  .object({
    ...chatCompletions,
    endpoint: httpUrl.optional(),
    deployment: text.optional(),
    apiVersion: text.optional(),
    apiKey: text.optional(),
    azureADTokenProvider: z.custom<() => Promise<string>>((v) => typeof v === "function").optional(),
  })
  .strict();

/** Check `options` against `schema`, or throw a ConfigError naming `provider()` and the option. */
export function checkProviderOptions<T>(provider: string, schema: z.ZodType<T>, options: unknown): T {
  const result = schema.safeParse(options ?? {});
  if (!result.success) {
    // The issue names the path and the problem, never the value (it may be a key).
    throw new ConfigError(`${provider}() got invalid options: ${describeZodError(result.error)}.`);
  }
  return result.data;
}

/**
 * Refuse a server URL with a user name or password in it (`http://user:secret@host/v1`): the
 * provider APIs take keys as headers, so it can never succeed, and URLs are printed in errors.
 */
export function checkServerUrl(provider: string, option: string, url: string | undefined): void {
  if (url === undefined || !hasUserinfo(url)) return;
  throw new ConfigError(
    `${provider}() got a ${option} with a user name or password in it (${redact(url)}). ` +
      `Remove "user:password@" from the URL and pass the key as apiKey (or its environment variable); ` +
      `the key is sent as a header and never printed.`,
  );
}
