/*
 * How OpenAI-style models write box coordinates, per model family, and what tapshot sends so
 * that it reads them right. docs/providers.md lists the families.
 */
// The OpenAI double replicates them, with the sources: rig/model-doubles/frames.ts (not shipped).
import type { BoxConvention } from "./wire.js";

/**
 * A model family's box convention, or a bare unit:
 * - `"pixels"`: absolute pixels of the image sent (GPT models; images go at the size OpenAI keeps).
 * - `"normalized-1000"`: 0-1000 of the image's width and height.
 * - `"qwen2.5-vl"`, `"ui-tars-1.5"`: absolute pixels of the model's own resize, whose sides are
 *   multiples of 28; tapshot sends images whose sides already are, so the model sees the sent pixels.
 * - `"qwen3-vl"`, `"ui-tars-1"`: 0-1000.
 */
export type Coordinates = "pixels" | "normalized-1000" | "qwen2.5-vl" | "qwen3-vl" | "ui-tars-1" | "ui-tars-1.5";

/** Every value of {@link Coordinates}, for validation and messages. */
export const COORDINATES = ["pixels", "normalized-1000", "qwen2.5-vl", "qwen3-vl", "ui-tars-1", "ui-tars-1.5"] as const;

/** What a coordinates setting means for the request: the box units, and a side multiple images must have. */
export interface CoordinatePlan {
  units: BoxConvention["units"];
  /** Sides of every sent image are rounded to a multiple of this, so the model's own resize keeps them. */
  sideMultiple?: number;
}

/** Qwen2.5-VL's vision encoder takes 14 px patches merged 2x2: its preprocessor rounds sides to 28. */
const QWEN25_SIDE = 28;

/** The plan of a coordinates setting. */
export function coordinatePlan(coordinates: Coordinates): CoordinatePlan {
  switch (coordinates) {
    case "pixels":
      return { units: "pixels" };
    case "qwen2.5-vl":
    case "ui-tars-1.5":
      return { units: "pixels", sideMultiple: QWEN25_SIDE };
    default:
      return { units: "normalized-1000" };
  }
}

/**
 * The family a served model's name points to, for a server other than OpenAI when `coordinates` is
 * not set (`Qwen/Qwen2.5-VL-7B-Instruct`, `qwen3-vl:8b`, `ByteDance-Seed/UI-TARS-1.5-7B`); undefined
 * when the name says nothing.
 */
export function inferCoordinates(model: string): Coordinates | undefined {
  const name = model.toLowerCase();
  if (/ui-?tars-?1\.5/.test(name)) return "ui-tars-1.5";
  if (/ui-?tars/.test(name)) return "ui-tars-1";
  if (/qwen2\.5-?vl/.test(name)) return "qwen2.5-vl";
  if (/qwen3-?vl/.test(name)) return "qwen3-vl";
  return undefined;
}
