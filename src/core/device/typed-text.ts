/*
 * One rule for keeping typed text out of what a model reads (docs/api.md, "Semantic assertions"
 * and "ai.act"): a typed value found in other text is replaced, anywhere when it is
 * long enough, else as a whole word.
 */

/** Typed values shorter than this are replaced only as whole words elsewhere (a "1" is in many numbers). */
export const MIN_SUBSTRING = 3;

/** `s` as a regular expression that matches it literally. */
export const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** `text` with every one of `typed` replaced by `replacement`: anywhere when long enough, else as a whole word. */
export function scrubTyped(text: string, typed: readonly string[], replacement: string): string {
  let out = text;
  for (const value of [...typed].sort((a, b) => b.length - a.length)) {
    if (!value) continue;
    const pattern =
      value.length >= MIN_SUBSTRING
        ? new RegExp(escapeRegExp(value), "gi")
        : new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(value)}(?![\\p{L}\\p{N}])`, "giu");
    out = out.replace(pattern, replacement);
  }
  return out;
}
