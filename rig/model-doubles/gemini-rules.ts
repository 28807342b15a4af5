/**
 * What the Gemini API refuses, per model, as its documentation and public error reports say.
 * The double checks every request against these rules before it answers, so a request the real
 * service would refuse fails here with the service's own status and words.
 *
 * This table is written from the sources below, not from tapshot's own model table
 * (src/providers/gemini-models.ts): a test compares the two through the wire.
 */

type Level = "MINIMAL" | "LOW" | "MEDIUM" | "HIGH";

/** How a served model takes thinking settings. */
type Thinking =
  { kind: "none" } | { kind: "budget"; min: number; max: number; off: boolean } | { kind: "level"; levels: Level[] };

interface ServedModel {
  thinking: Thinking;
  /**
   * Takes `generationConfig.mediaResolution`: every multimodal Gemini model does; only the per-part
   * setting is Gemini 3 and later (ai.google.dev/gemini-api/docs/media-resolution).
   */
  mediaResolution: boolean;
}

const ALL: Level[] = ["MINIMAL", "LOW", "MEDIUM", "HIGH"];

/**
 * The models the double serves.
 * - Gemini 2.0: no thinking; a thinkingConfig gets "Thinking is not supported for this model"
 *   (ai.google.dev/gemini-api/docs/thinking lists 2.5 and later as thinking models).
 * - Gemini 2.5: budgets only. Pro 128-32768, cannot be turned off ("Budget 0 is invalid. This model
 *   only works in thinking mode."); Flash 0-24576; Flash-Lite 0 or 512-24576; -1 is dynamic
 *   (ai.google.dev/gemini-api/docs/thinking, "Set budget"). A thinkingLevel gets "Thinking level is
 *   not supported for this model." (RooCodeInc/Roo-Code issue 10700, gemini-2.5-flash).
 * - Gemini 3 Pro: LOW, HIGH; MEDIUM gets "Thinking level MEDIUM is not supported for this model."
 *   (heyhuynhgiabuu/proxypal issue 170; jenslys/opencode-gemini-auth issue 14 on Vertex).
 *   Gemini 3.1 Pro: LOW, MEDIUM, HIGH (docs.cloud.google.com Gemini 3.5 Flash guide, comparison table).
 * - Gemini 3 Flash and 3.x Flash-Lite: all four levels (same table; vercel.com AI Gateway Google reasoning).
 * - Gemini 3.5 and 3.6 Flash: all four levels (docs.cloud.google.com "Developer's guide to Gemini 3.5 Flash",
 *   supported thinking levels; ai.google.dev says gemini-3.5-flash is forwarded to gemini-3.6-flash).
 * - Gemini 3.7 and 3.8 Flash: LOW, MEDIUM, HIGH; MINIMAL is refused with a 400 (docs.oxen.ai
 *   gemini-3-8-flash model page; dzivkovi/video-intel release v2.7.1).
 * - Gemma 4: MINIMAL and HIGH only, no budgets (earendil-works/pi issue 2812).
 */
const MODELS: Record<string, ServedModel> = {
  "gemini-2.0-flash": { thinking: { kind: "none" }, mediaResolution: true },
  "gemini-2.0-flash-lite": { thinking: { kind: "none" }, mediaResolution: true },
  "gemini-2.5-pro": { thinking: { kind: "budget", min: 128, max: 32768, off: false }, mediaResolution: true },
  "gemini-2.5-flash": { thinking: { kind: "budget", min: 0, max: 24576, off: true }, mediaResolution: true },
  "gemini-2.5-flash-lite": {
    thinking: { kind: "budget", min: 512, max: 24576, off: true },
    mediaResolution: true,
  },
  "gemini-3-pro-preview": { thinking: { kind: "level", levels: ["LOW", "HIGH"] }, mediaResolution: true },
  "gemini-3.1-pro-preview": {
    thinking: { kind: "level", levels: ["LOW", "MEDIUM", "HIGH"] },
    mediaResolution: true,
  },
  "gemini-3-flash-preview": { thinking: { kind: "level", levels: ALL }, mediaResolution: true },
  "gemini-3.1-flash-lite": { thinking: { kind: "level", levels: ALL }, mediaResolution: true },
  "gemini-3.5-flash": { thinking: { kind: "level", levels: ALL }, mediaResolution: true },
  "gemini-3.6-flash": { thinking: { kind: "level", levels: ALL }, mediaResolution: true },
  "gemini-3.7-flash": { thinking: { kind: "level", levels: ["LOW", "MEDIUM", "HIGH"] }, mediaResolution: true },
  "gemini-3.8-flash": { thinking: { kind: "level", levels: ["LOW", "MEDIUM", "HIGH"] }, mediaResolution: true },
  "gemma-4-31b-it": { thinking: { kind: "level", levels: ["MINIMAL", "HIGH"] }, mediaResolution: false },
};

/** `-latest` aliases point at the newest model of a tier (ai.google.dev/gemini-api/docs/models, "Latest"). */
const ALIASES: Record<string, string> = {
  "gemini-flash-latest": "gemini-3.8-flash",
  "gemini-pro-latest": "gemini-3.1-pro-preview",
  "gemini-flash-lite-latest": "gemini-3.1-flash-lite",
};

/**
 * Image MIME types Gemini takes inline: PNG, JPEG, WEBP, HEIC, HEIF
 * (ai.google.dev/gemini-api/docs/image-understanding, "Supported image formats").
 */
const IMAGE_TYPES = new Set(["image/png", "image/jpeg", "image/webp", "image/heic", "image/heif"]);

/** `generationConfig.mediaResolution` values (@google/genai `MediaResolution` enum). */
const MEDIA_RESOLUTIONS = new Set([
  "MEDIA_RESOLUTION_UNSPECIFIED",
  "MEDIA_RESOLUTION_LOW",
  "MEDIA_RESOLUTION_MEDIUM",
  "MEDIA_RESOLUTION_HIGH",
]);

/** A refusal: HTTP status and the service's message. */
export interface Refusal {
  status: number;
  message: string;
}

/** The model a request path names, resolved through aliases; undefined when it is not served. */
export function servedModel(name: string): ServedModel | undefined {
  return MODELS[ALIASES[name] ?? name];
}

/** 404 for a model the API does not serve, in its words ("models/x is not found for API version v1beta..."). */
export function unknownModel(name: string): Refusal {
  return {
    status: 404,
    message: `models/${name} is not found for API version v1beta, or is not supported for generateContent.`,
  };
}

interface GenerationConfig {
  thinkingConfig?: { thinkingLevel?: string; thinkingBudget?: number };
  mediaResolution?: string;
}

/** The first rule a request breaks, or undefined. `vertex` picks Vertex AI's wording. */
export function refusalOf(
  model: ServedModel,
  config: GenerationConfig | undefined,
  imageTypes: string[],
  vertex: boolean,
): Refusal | undefined {
  const bad = imageTypes.find((t) => !IMAGE_TYPES.has(t));
  if (bad) return { status: 400, message: `Unsupported MIME type: ${bad}` };
  const media = config?.mediaResolution;
  if (media !== undefined) {
    if (!MEDIA_RESOLUTIONS.has(media))
      return { status: 400, message: `Invalid value at 'generation_config.media_resolution' (${media})` };
    if (!model.mediaResolution) return { status: 400, message: "Media resolution is not supported for this model." };
  }
  const t = config?.thinkingConfig;
  if (!t || (t.thinkingLevel === undefined && t.thinkingBudget === undefined)) return undefined;
  const level = t.thinkingLevel;
  const budget = t.thinkingBudget;
  // "You cannot use both thinkingLevel and thinkingBudget in the same request" (ai.google.dev thinking docs).
  if (level !== undefined && budget !== undefined) {
    return { status: 400, message: "thinking_budget and thinking_level are not supported together." };
  }
  const rule = model.thinking;
  if (rule.kind === "none") return { status: 400, message: "Thinking is not supported for this model." };
  if (rule.kind === "budget") {
    if (level !== undefined) return { status: 400, message: "Thinking level is not supported for this model." };
    if (budget === -1) return undefined;
    if (budget === 0 && !rule.off) {
      return { status: 400, message: "Budget 0 is invalid. This model only works in thinking mode." };
    }
    if (budget !== 0 && (budget! < rule.min || budget! > rule.max)) {
      return {
        status: 400,
        message: `The thinking budget ${budget} is invalid. Please choose a value between ${rule.min} and ${rule.max}.`,
      };
    }
    return undefined;
  }
  if (budget !== undefined && level === undefined) return undefined; // accepted for backwards compatibility
  if (!rule.levels.includes(level as Level)) {
    return {
      status: 400,
      message: vertex
        ? `Unable to submit request because thinking_level ${level} is not supported by this model.`
        : `Thinking level ${level} is not supported for this model.`,
    };
  }
  return undefined;
}
