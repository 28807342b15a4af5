/**
 * The coordinate frame each vision-model family answers in, so that a double writes boxes the
 * way that family does. A box in pixels of the image the double received is converted into
 * the family's frame; a client that reads the frame wrong gets a box that is off.
 */
import type { Box } from "./knowledge.js";

/** Model families the OpenAI double can answer as. */
export type ModelFamily = "gpt" | "qwen2.5-vl" | "qwen3-vl" | "ui-tars-1" | "ui-tars-1.5";

/** A box frame: pixels of an image of this size, or 0-1000 of the image. */
export type Frame = { units: "pixels"; width: number; height: number } | { units: "normalized-1000" };

/**
 * Qwen2.5-VL's preprocessor resizes every image so that both sides are multiples of 28 (14 px patches,
 * merged 2x2) with the pixel count kept between 4*28*28 and 16384*28*28 (transformers
 * Qwen2VLImageProcessor `smart_resize`, used by Qwen2.5-VL and UI-TARS-1.5): each side is rounded to the
 * nearest multiple of 28, then scaled down (floor) or up (ceil) when the area leaves that range.
 */
export function qwenResize(width: number, height: number): { width: number; height: number } {
  const factor = 28;
  const min = 4 * factor * factor;
  const max = 16384 * factor * factor;
  let h = Math.max(factor, Math.round(height / factor) * factor);
  let w = Math.max(factor, Math.round(width / factor) * factor);
  if (h * w > max) {
    const beta = Math.sqrt((height * width) / max);
    h = Math.floor(height / beta / factor) * factor;
    w = Math.floor(width / beta / factor) * factor;
  } else if (h * w < min) {
    const beta = Math.sqrt(min / (height * width));
    h = Math.ceil((height * beta) / factor) * factor;
    w = Math.ceil((width * beta) / factor) * factor;
  }
  return { width: w, height: h };
}

/**
 * OpenAI high detail: the image is fitted into 2048x2048, then its short side scaled to 768
 * (platform.openai.com/docs/guides/images-vision, "Calculating costs"); a GPT model answers in pixels of that.
 */
export function gptResize(width: number, height: number): { width: number; height: number } {
  const fit = Math.min(1, 2048 / Math.max(width, height));
  const short = Math.min(1, 768 / (Math.min(width, height) * fit));
  return { width: Math.round(width * fit * short), height: Math.round(height * fit * short) };
}

/**
 * The frame a family answers in for an image of the given size.
 * - GPT models: pixels of the image as high detail resized it.
 * - Qwen2.5-VL and UI-TARS-1.5: absolute pixels of the `smart_resize`d image (Qwen2.5-VL technical report,
 *   "absolute coordinates"; UI-TARS-1.5 README, coordinates on the resized image).
 * - Qwen3-VL and UI-TARS (v1): 0-1000 relative coordinates (Qwen3-VL README, grounding; UI-TARS README, v1).
 */
export function frameOf(family: ModelFamily, image: { width: number; height: number }): Frame {
  switch (family) {
    case "gpt":
      return { units: "pixels", ...gptResize(image.width, image.height) };
    case "qwen2.5-vl":
    case "ui-tars-1.5":
      return { units: "pixels", ...qwenResize(image.width, image.height) };
    default:
      return { units: "normalized-1000" };
  }
}

/** A box in pixels of `image`, written as [xmin, ymin, xmax, ymax] in `frame`, rounded as models write it. */
export function toFrame(box: Box, image: { width: number; height: number }, frame: Frame): number[] {
  const [sx, sy] =
    frame.units === "pixels"
      ? [frame.width / image.width, frame.height / image.height]
      : [1000 / image.width, 1000 / image.height];
  return [box.x * sx, box.y * sy, (box.x + box.width) * sx, (box.y + box.height) * sy].map((v) => Math.round(v));
}
