/**
 * What the model is asked to answer (the wire schemas, one per request kind, with boxes in
 * the model's own coordinate convention) and how a wire answer becomes a tapshot answer
 * with boxes in pixels of the request's image. A wire answer that does not fit is an
 * AiAnswerError naming the kind and the zod issue, never a guess.
 */
import { describeZodError } from "../core/ground/zod-errors.js";
import { z } from "zod";
import {
  ACT_ACTIONS,
  PRESS_KEYS,
  type ActionChoice,
  type AiKind,
  type Box,
  type Usage,
} from "../core/model/contract.js";
import { AiAnswerError } from "../core/ground/errors.js";
import type { PreparedImage } from "./images.js";

/**
 * How a model writes a box. Gemini: `box_2d` as `[ymin, xmin, ymax, xmax]` normalised to 0-1000.
 * OpenAI-style: `bbox_2d` as `[xmin, ymin, xmax, ymax]`, in pixels of the sent image or 0-1000.
 */
export interface BoxConvention {
  field: "box_2d" | "bbox_2d";
  order: "yxyx" | "xyxy";
  /** `"pixels"`: absolute pixels of the sent image; `"normalized-1000"`: 0-1000 of its width and height. */
  units: "pixels" | "normalized-1000";
}

export const GEMINI_BOXES: BoxConvention = { field: "box_2d", order: "yxyx", units: "normalized-1000" };

/** One sentence telling the model how to write a box in the named image of the given size: one frame, stated once. */
export function describeBoxes(c: BoxConvention, size: { width: number; height: number }, image: string): string {
  const order = c.order === "yxyx" ? "[ymin, xmin, ymax, xmax]" : "[xmin, ymin, xmax, ymax]";
  const units =
    c.units === "pixels"
      ? `in pixels of image "${image}" (it is ${size.width}x${size.height} pixels; x to the right, y down, origin at its top left)`
      : `normalised to 0-1000 of the width and height of image "${image}" (origin at its top left)`;
  return `Write every box as ${c.field} = ${order}, ${units}.`;
}

const boxTuple = (c: BoxConvention) =>
  z
    .array(z.number())
    .length(4)
    .describe(`${c.order === "yxyx" ? "[ymin, xmin, ymax, xmax]" : "[xmin, ymin, xmax, ymax]"} (${c.units})`);

/** The JSON the model must answer for each kind, in the field order it should write them (reason first). */
export function wireSchemas(c: BoxConvention) {
  const box = boxTuple(c);
  return {
    locate: z.object({
      reason: z.string().describe("One short sentence: what you found, or why the element is not there."),
      found: z.boolean(),
      [c.field]: box.nullable().describe("The element's box; null when found is false."),
    }),
    check: z.object({
      reason: z.string().describe("One short sentence on what the screenshot shows."),
      pass: z.boolean(),
    }),
    judge: z.object({
      reason: z.string().describe("One short sentence on why the screenshot is or is not acceptable."),
      accept: z.boolean(),
      varying: z
        .array(box)
        .describe("Boxes of content that varies between runs (clock, dates, balances); may be empty."),
    }),
    compare: z.object({
      reason: z.string().describe("One short sentence on what differs."),
      realChange: z.boolean(),
      varying: z.array(box).describe("Boxes of content that varies between runs; may be empty."),
    }),
    // No minimum/maximum keywords (Azure refuses them, KEYWORDS_NOT_EVERYWHERE): the contract checks 0-1.
    satisfy: z.object({
      reason: z.string().describe("One short sentence on what the evidence shows about the statement."),
      probability: z
        .number()
        .describe("How likely the statement holds, from 0 (certainly false) to 1 (certainly true)."),
    }),
    decide: z.object({
      reason: z.string().describe("One short sentence on what the screen shows and what is left to do."),
      choices: z
        .array(
          z.object({
            action: z.enum(ACT_ACTIONS),
            control: z
              .string()
              .nullable()
              .describe("The control's id from the list; null for press, done, stuck, wait."),
            value: z.string().nullable().describe("fill: the name of a supplied value; otherwise null."),
            checked: z.boolean().nullable().describe("setChecked: the state to set; otherwise null."),
            option: z.string().nullable().describe("select: the label of the option to choose; otherwise null."),
            key: z.enum(PRESS_KEYS).nullable().describe("press: the key; otherwise null."),
            direction: z
              .enum(["up", "down", "left", "right"])
              .nullable()
              .describe("scroll: which way the content moves into view; otherwise null."),
            probability: z.number().describe("How likely this is the right next step, from 0 to 1."),
          }),
        )
        .describe("The next steps you considered, likeliest first, each with its probability."),
    }),
    complete: z.object({
      reason: z.string().describe("One short sentence on what the screen shows about the goal."),
      probability: z.number().describe("How likely the goal is reached on this screen, from 0 to 1."),
    }),
  } satisfies Record<AiKind, z.ZodType>;
}

/**
 * JSON Schema keywords that Azure OpenAI structured outputs refuse (docs/providers.md, "Structured
 * output") and that OpenAI-compatible servers may refuse or ignore. The wire schemas use only
 * `minItems`/`maxItems` of these (a box has four numbers); zod still checks that on the answer.
 */
export const KEYWORDS_NOT_EVERYWHERE = [
  "minItems",
  "maxItems",
  "uniqueItems",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "multipleOf",
] as const;

/** A copy of a JSON Schema without `keywords` (property names are kept: only schema keywords go). */
export function withoutKeywords(schema: unknown, keywords: readonly string[]): unknown {
  if (Array.isArray(schema)) return schema.map((s) => withoutKeywords(s, keywords));
  if (!schema || typeof schema !== "object") return schema;
  return Object.fromEntries(
    Object.entries(schema).flatMap(([key, value]) => {
      if (key === "properties" && value && typeof value === "object") {
        const props = Object.entries(value).map(([name, sub]) => [name, withoutKeywords(sub, keywords)]);
        return [[key, Object.fromEntries(props)]];
      }
      return keywords.includes(key) ? [] : [[key, withoutKeywords(value, keywords)]];
    }),
  );
}

/**
 * The wire JSON schema of a kind as plain JSON Schema (for Gemini's `responseJsonSchema`), titled
 * `<kind>_answer` as the Chat Completions schemas are named: `satisfy` and `complete` have the same
 * fields, and a reader of the request (the wire doubles) tells them apart by it. Every keyword used
 * (`type`, `title`, `description`, `enum`, `items`, `anyOf`, `properties`, `additionalProperties`,
 * `required`, and a box's `minItems`/`maxItems`) is one Gemini documents as supported there
 * (docs/providers.md, "Structured output").
 */
export function wireJsonSchema(kind: AiKind, c: BoxConvention): Record<string, unknown> {
  const { $schema: _drop, ...schema } = z.toJSONSchema(wireSchemas(c)[kind]) as Record<string, unknown>;
  return { title: wireSchemaName(kind), ...schema };
}

/** The name of a kind's wire schema: `response_format.json_schema.name`, and the title of Gemini's schema. */
export function wireSchemaName(kind: AiKind): string {
  return `${kind}_answer`;
}

/** A pixel box may overshoot the image by rounding; more than this means another frame. */
const OVERSHOOT = 1.02;

function beyond(x1: number, y1: number, size: { width: number; height: number }): boolean {
  return x1 > size.width * OVERSHOOT || y1 > size.height * OVERSHOOT;
}

/** A pixel box that lies beyond the image it refers to: the model answered in another frame. */
export class BeyondImageError extends AiAnswerError {}

/** A box the model gave, as four numbers in its convention. */
type WireBox = number[];

/**
 * Map a wire box to pixels of the request's image. `image.region` is what the sent image
 * shows (the whole screen, or a crop of it); the result is clamped to that region.
 */
export function toPixelBox(kind: AiKind, wire: WireBox, c: BoxConvention, image: PreparedImage): Box {
  const [a, b, p, q] = wire as [number, number, number, number];
  const [x0, y0, x1, y1] = c.order === "yxyx" ? [b, a, q, p] : [a, b, p, q];
  if (x1 <= x0 || y1 <= y0) {
    throw new AiAnswerError(
      kind,
      `The model gave an empty or inverted "${kind}" box ${c.field}=[${wire.join(", ")}]; expected ${c.order === "yxyx" ? "[ymin, xmin, ymax, xmax]" : "[xmin, ymin, xmax, ymax]"}.`,
    );
  }
  if (c.units === "pixels" && beyond(x1, y1, image.sent)) {
    throw new BeyondImageError(
      kind,
      `The model's "${kind}" box ${c.field}=[${wire.join(", ")}] reaches beyond the ${image.sent.width}x${image.sent.height} ` +
        `image it was sent, so it does not write pixels of that image. Set the coordinates option to the model's family ` +
        `("qwen3-vl", "ui-tars-1" or "normalized-1000" for 0-1000 boxes; "qwen2.5-vl" or "ui-tars-1.5" for pixels of its own resize).`,
    );
  }
  const sx = c.units === "pixels" ? image.sent.width : 1000;
  const sy = c.units === "pixels" ? image.sent.height : 1000;
  const { region } = image;
  const clampX = (v: number) => region.x + Math.min(region.width, Math.max(0, (v / sx) * region.width));
  const clampY = (v: number) => region.y + Math.min(region.height, Math.max(0, (v / sy) * region.height));
  const left = clampX(x0);
  const top = clampY(y0);
  const width = clampX(x1) - left;
  const height = clampY(y1) - top;
  if (width <= 0 || height <= 0) {
    throw new AiAnswerError(kind, `The model's "${kind}" box ${c.field}=[${wire.join(", ")}] lies outside the image.`);
  }
  return { x: left, y: top, width, height };
}

/** Parse the model's text as the wire JSON of `kind`, or throw an AiAnswerError naming the issue. */
export function parseWire(kind: AiKind, text: string, c: BoxConvention): Record<string, unknown> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    const excerpt = text.length > 120 ? `${text.slice(0, 120)}...` : text;
    throw new AiAnswerError(kind, `The model's "${kind}" answer is not JSON: ${JSON.stringify(excerpt)}.`);
  }
  const result = wireSchemas(c)[kind].safeParse(json);
  if (!result.success) {
    throw new AiAnswerError(kind, `The model gave a malformed "${kind}" answer: ${describeZodError(result.error)}.`, {
      cause: result.error,
    });
  }
  return result.data as Record<string, unknown>;
}

/** What a wire answer becomes before the model name and usage are added. */
export type AnswerCore =
  | { found: boolean; box?: Box; reason: string }
  | { pass: boolean; reason: string }
  | { accept: boolean; varying?: Box[]; reason: string }
  | { realChange: boolean; varying?: Box[]; reason: string }
  | { probability: number; reason: string }
  | { choices: ActionChoice[]; reason: string };

/** Turn a parsed wire answer into the tapshot answer fields, mapping boxes through `image`. */
export function fromWire(
  kind: AiKind,
  wire: Record<string, unknown>,
  c: BoxConvention,
  image: PreparedImage,
): AnswerCore {
  const reason = wire.reason as string;
  const boxes = (list: unknown) => (list as WireBox[]).map((b) => toPixelBox(kind, b, c, image));
  switch (kind) {
    case "locate": {
      const found = wire.found as boolean;
      const box = wire[c.field] as WireBox | null;
      if (found && !box) throw new AiAnswerError(kind, `The model said found but gave no ${c.field}.`);
      return found ? { found, box: toPixelBox(kind, box!, c, image), reason } : { found, reason };
    }
    case "check":
      return { pass: wire.pass as boolean, reason };
    case "judge": {
      const varying = boxes(wire.varying);
      return { accept: wire.accept as boolean, reason, ...(varying.length ? { varying } : {}) };
    }
    case "compare": {
      const varying = boxes(wire.varying);
      return { realChange: wire.realChange as boolean, reason, ...(varying.length ? { varying } : {}) };
    }
    case "satisfy":
    case "decide":
    case "complete":
      return fromBoxlessWire(kind, wire);
  }
}

/** The kinds whose answers carry no boxes, so no image frame is needed to read them. */
export type BoxlessKind = "satisfy" | "decide" | "complete";

/**
 * Turn a parsed wire answer of a kind without boxes into the tapshot answer fields. A `decide`
 * choice loses its null fields (strict structured output writes null for each unused one); the
 * contract then checks the probabilities' range and the choices' count.
 */
export function fromBoxlessWire(kind: BoxlessKind, wire: Record<string, unknown>): AnswerCore {
  const reason = wire.reason as string;
  if (kind === "decide") {
    return { choices: (wire.choices as Record<string, unknown>[]).map(withoutNulls) as ActionChoice[], reason };
  }
  return { probability: wire.probability as number, reason };
}

/** Add token counts, leaving out what neither side knows. */
export function addUsage(a: Usage | undefined, b: Usage | undefined): Usage | undefined {
  if (!a) return b;
  if (!b) return a;
  const sum = (x?: number, y?: number) => (x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0));
  const inputTokens = sum(a.inputTokens, b.inputTokens);
  const outputTokens = sum(a.outputTokens, b.outputTokens);
  return {
    ...(inputTokens !== undefined ? { inputTokens } : {}),
    ...(outputTokens !== undefined ? { outputTokens } : {}),
  };
}

/** A wire object without its null fields (structured outputs write null for an unused field). */
function withoutNulls(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null));
}
