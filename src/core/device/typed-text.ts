/*
 * Keeping typed text out of what a model reads (docs/api.md, "Semantic assertions" and "ai.act"):
 * a typed value found in other text is replaced by the one literal rule of
 * src/core/ground/literal-scrub.ts (anywhere when long enough, else as a whole word).
 */
import { MIN_SUBSTRING, scrubLiterals } from "../ground/literal-scrub.js";

export { MIN_SUBSTRING };

/** `s` as a regular expression that matches it literally (for patterns a user wrote, never for a value). */
export const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** `text` with every one of `typed` replaced by `replacement`. */
export function scrubTyped(text: string, typed: readonly string[], replacement: string): string {
  return scrubLiterals(
    text,
    typed.filter(Boolean).map((value) => ({ text: value, replacement })),
  );
}
