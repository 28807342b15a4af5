/*
 * Keeping typed text out of what a model reads (docs/api.md, "Semantic assertions" and "ai.act"):
 * a typed value found in other text is replaced by the one literal rule of
 * src/core/ground/literal-scrub.ts (anywhere when long enough, else as a whole word).
 */
import { LiteralScrubber, MIN_SUBSTRING, type Needle } from "../ground/literal-scrub.js";

export { MIN_SUBSTRING };

/** `s` as a regular expression that matches it literally (for patterns a user wrote, never for a value). */
export const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Scrubbers built lately: one observation scrubs every label with the same values, built once. */
const recent = new Map<string, LiteralScrubber>();
const RECENT_SCRUBBERS = 8;

/** The scrubber of `needles`, built once for the same needles in a row. */
export function scrubberOf(needles: readonly Needle[]): LiteralScrubber {
  const key = JSON.stringify(needles);
  let scrubber = recent.get(key);
  if (!scrubber) {
    scrubber = new LiteralScrubber(needles);
    if (recent.size >= RECENT_SCRUBBERS) recent.delete(recent.keys().next().value!);
    recent.set(key, scrubber);
  }
  return scrubber;
}

/** `text` with every one of `typed` replaced by `replacement`. */
export function scrubTyped(text: string, typed: readonly string[], replacement: string): string {
  return scrubberOf(typed.filter(Boolean).map((value) => ({ text: value, replacement }))).scrub(text);
}
