/*
 * What each Gemini model family accepts, read from the model name: the bare id
 * (`gemini-3.8-flash`), a Gemini API resource name (`models/gemini-2.5-flash`), a Vertex AI
 * resource path (`projects/p/locations/l/publishers/google/models/gemini-2.5-pro`) or an alias
 * (`gemini-flash-latest`). docs/providers.md shows the table.
 */
// The Gemini double replicates it from the sources: rig/model-doubles/gemini-rules.ts (not shipped).
import type { AiKind } from "../core/model/contract.js";
import { ConfigError } from "../core/ground/errors.js";

/** A thinking level as tapshot's options name it. */
export type ThinkingLevelName = "minimal" | "low" | "medium" | "high";

const ALL_LEVELS: readonly ThinkingLevelName[] = ["minimal", "low", "medium", "high"];
const NO_MINIMAL: readonly ThinkingLevelName[] = ["low", "medium", "high"];

/** How a model family takes thinking settings. */
export type ThinkingControl =
  /** Gemini 1.x and 2.0: no thinking; any `thinkingConfig` budget or level is refused. */
  | { kind: "none" }
  /** Gemini 2.5: `thinkingBudget` in tokens; `off` is false where thinking cannot be turned off (Pro). */
  | { kind: "budget"; min: number; max: number; off: boolean }
  /** Gemini 3 and later, Gemma 4: `thinkingLevel`, one of `levels`. */
  | { kind: "level"; levels: readonly ThinkingLevelName[] }
  /** A name tapshot does not know (a tuned model, a proxy's own name): nothing is checked. */
  | { kind: "unknown" };

/** A Gemini model family, as far as the request tapshot builds depends on it. */
export interface GeminiFamily {
  /** The bare model id the name resolves to (`gemini-2.5-flash`), or the name itself when unknown. */
  id: string;
  /** Human-readable family, for messages: `Gemini 2.5 Flash`. */
  label: string;
  thinking: ThinkingControl;
  /**
   * Whether `mediaResolution` for the whole request (`generationConfig.mediaResolution`, what tapshot
   * sends) is accepted: by every multimodal Gemini model; only the per-part setting is Gemini 3 and
   * later (https://ai.google.dev/gemini-api/docs/media-resolution).
   */
  mediaResolution: boolean;
}

/** Aliases the Gemini API serves, resolved to the family they point at today. */
const ALIASES: Record<string, string> = {
  "gemini-flash-latest": "gemini-3.8-flash",
  "gemini-flash-lite-latest": "gemini-3.1-flash-lite",
  "gemini-pro-latest": "gemini-3.1-pro",
};

/** The bare model id of any form of Gemini model name. */
export function bareModelId(model: string): string {
  const last = model.includes("/models/") ? model.slice(model.lastIndexOf("/models/") + 8) : model;
  const id = last.replace(/^models\//, "").replace(/^tunedModels\//, "");
  return ALIASES[id] ?? id;
}

function levelsFor(major: number, minor: number, tier: string): readonly ThinkingLevelName[] {
  if (tier === "flash-lite") return ALL_LEVELS;
  if (tier === "pro") return major === 3 && minor === 0 ? ["low", "high"] : NO_MINIMAL;
  // Flash: Gemini 3, 3.5 (forwarded to 3.6) and 3.6 Flash take all four (Google's "Developer's guide to
  // Gemini 3.5 Flash", docs.cloud.google.com, supported thinking levels); 3.7 and 3.8 refuse MINIMAL with a 400.
  return major === 3 && (minor === 0 || minor === 5 || minor === 6) ? ALL_LEVELS : NO_MINIMAL;
}

/** The family of a Gemini model name, with what its requests may carry. */
export function geminiFamily(model: string): GeminiFamily {
  const id = bareModelId(model);
  const gemma = /^gemma-(\d+)/.exec(id);
  if (gemma) {
    const major = Number(gemma[1]);
    return {
      id,
      label: `Gemma ${major}`,
      thinking: major >= 4 ? { kind: "level", levels: ["minimal", "high"] } : { kind: "none" },
      mediaResolution: false,
    };
  }
  const m = /^gemini-(\d+)(?:\.(\d+))?-(flash-lite|flash|pro)(?:-|$)/.exec(id);
  if (!m) return { id, label: id, thinking: { kind: "unknown" }, mediaResolution: false };
  const major = Number(m[1]);
  const minor = Number(m[2] ?? 0);
  const tier = m[3]!;
  const label = `Gemini ${major}.${minor} ${tier === "flash-lite" ? "Flash-Lite" : tier === "pro" ? "Pro" : "Flash"}`;
  if (major < 2 || (major === 2 && minor === 0)) {
    return { id, label, thinking: { kind: "none" }, mediaResolution: true };
  }
  if (major === 2) {
    const thinking: ThinkingControl =
      tier === "pro"
        ? { kind: "budget", min: 128, max: 32768, off: false }
        : { kind: "budget", min: tier === "flash-lite" ? 512 : 0, max: 24576, off: true };
    return { id, label, thinking, mediaResolution: true };
  }
  return { id, label, thinking: { kind: "level", levels: levelsFor(major, minor, tier) }, mediaResolution: true };
}

/** The levels a family accepts, as tapshot's option names (budgets: all four, mapped to tokens). */
export function acceptedLevels(thinking: ThinkingControl): readonly ThinkingLevelName[] {
  switch (thinking.kind) {
    case "none":
      return [];
    case "level":
      return thinking.levels;
    default:
      return ALL_LEVELS;
  }
}

/**
 * The thinking each kind gets when the options say nothing: `locate` and `check` the lowest
 * level the family accepts (a box or a yes/no on one screen does not improve with thinking, and
 * these are most of the calls), `judge`, `compare`, `satisfy`, `decide` and `complete` the model's own
 * default (they decide what becomes a baseline, a stored judgment or a learned step, and run once per
 * value). docs/providers.md states the same.
 */
export function defaultThinking(family: GeminiFamily): Partial<Record<AiKind, ThinkingLevelName>> {
  const lowest = acceptedLevels(family.thinking)[0];
  if (!lowest || family.thinking.kind === "unknown") return {};
  return { locate: lowest, check: lowest };
}

const WIRE_LEVELS = { minimal: "MINIMAL", low: "LOW", medium: "MEDIUM", high: "HIGH" } as const;

/** Token budgets a level stands for on Gemini 2.5: off (or the minimum), small, medium, the maximum. */
function budgetOf(level: ThinkingLevelName, c: Extract<ThinkingControl, { kind: "budget" }>): number {
  switch (level) {
    case "minimal":
      return c.off ? 0 : c.min;
    case "low":
      return Math.max(c.min, 1024);
    case "medium":
      return 8192;
    case "high":
      return c.max;
  }
}

/** The `thinkingConfig` for a family and level, or undefined to send none. */
export function thinkingConfigFor(
  family: GeminiFamily,
  level: ThinkingLevelName | undefined,
): Record<string, unknown> | undefined {
  if (!level) return undefined;
  const c = family.thinking;
  if (c.kind === "none") return undefined;
  if (c.kind === "budget") return { thinkingBudget: budgetOf(level, c) };
  return { thinkingLevel: WIRE_LEVELS[level] };
}

/** A level the options set, or `"model-default"` to send nothing for that kind. */
export type ThinkingOption = ThinkingLevelName | "model-default";

function quoteList(levels: readonly string[]): string {
  return [...levels, "model-default"].map((l) => `"${l}"`).join(", ");
}

/** What a family accepts, in words, for messages: `"low", "medium", "high" or "model-default"`. */
export function describeAccepted(family: GeminiFamily): string {
  const levels = acceptedLevels(family.thinking);
  return levels.length ? `accepts ${quoteList(levels)}` : 'does not think, so only "model-default"';
}

/**
 * The thinking per kind for a model: the family's defaults overridden by the options. A level the
 * family refuses is a ConfigError naming the option and what the family accepts, before any request.
 */
export function resolveThinking(
  model: string,
  family: GeminiFamily,
  options: Partial<Record<AiKind, ThinkingOption>> | undefined,
): Partial<Record<AiKind, ThinkingLevelName>> {
  const resolved: Partial<Record<AiKind, ThinkingLevelName>> = defaultThinking(family);
  for (const [kind, level] of Object.entries(options ?? {}) as [AiKind, ThinkingOption][]) {
    if (level === "model-default") {
      delete resolved[kind];
      continue;
    }
    const accepted = acceptedLevels(family.thinking);
    if (family.thinking.kind !== "unknown" && !accepted.includes(level)) {
      throw new ConfigError(
        `gemini() got thinking.${kind} = "${level}", which ${family.label} (model ${model}) refuses with HTTP 400; ` +
          `it ${describeAccepted(family)}.`,
      );
    }
    resolved[kind] = level;
  }
  return resolved;
}
