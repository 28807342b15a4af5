/*
 * The one rule for finding a typed value in other text (docs/api.md "ai.act", "Values"): literal
 * search, never a RegExp built from a value, in time linear in the text's length.
 *
 * A value is looked for in every form a sink may hold it in: as typed, JSON-escaped (a newline as
 * `\n`, quotes as `\"`), JSON-escaped twice (an error message inside a JSON body inside a log
 * line), and with its single quotes backslash-escaped (a driver's `'…'`). A long value is found by
 * its pieces: every run of text made of its {@link PIECE}-character pieces is replaced, so a value
 * a driver's message cut at either end (or in the middle) is still found, and a leading piece of
 * {@link MIN_CUT} characters or more right before a cut (an ellipsis) is replaced
 * too. A value of 3 to 15 characters is replaced wherever it shows; a shorter one as a whole word
 * only (a "1" is in many numbers). Case is ignored where lower-casing keeps the text's length.
 */

/** A value to find, and what replaces it. */
export interface Needle {
  text: string;
  replacement: string;
}

/** Values of this many characters or more are found by their pieces of this length. */
export const PIECE = 16;
/** Values shorter than this are replaced only as whole words. */
export const MIN_SUBSTRING = 3;
/** A value's leading piece of this many characters or more is replaced where a message was cut after it. */
export const MIN_CUT = 8;
/** What a message cut short ends in: an ellipsis. */
const CUT_MARKERS = ["...", "…"];

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** The forms a value may take in text a sink holds, without duplicates or empty ones. */
export function formsOf(value: string): string[] {
  const json = JSON.stringify(value).slice(1, -1);
  const jsonTwice = JSON.stringify(json).slice(1, -1);
  const singleQuoted = value.replace(/\\/g, "\\\\").replace(/'/g, "\\'");
  return [...new Set([value, json, jsonTwice, singleQuoted])].filter(Boolean);
}

/** A set of values, compiled once, that {@link LiteralScrubber.scrub} replaces in any text. */
export class LiteralScrubber {
  /** Each piece of a long value's forms, lower-cased, to the replacement of its value. */
  private readonly pieces = new Map<string, string>();
  /** Short values' forms, lower-cased, longest first. */
  private readonly whole: { form: string; replacement: string }[] = [];
  /** The leading pieces a cut message may end in ({@link MIN_CUT} to {@link PIECE} - 1 characters). */
  private readonly leads = new Map<string, string>();

  constructor(needles: readonly Needle[]) {
    for (const { text, replacement } of needles) this.add(text, replacement);
  }

  /** Whether there is nothing to look for. */
  get empty(): boolean {
    return this.pieces.size === 0 && this.whole.length === 0 && this.leads.size === 0;
  }

  /** Look for `text` too, replacing it by `replacement`. */
  add(text: string, replacement: string): void {
    for (const form of formsOf(text)) {
      const lower = form.toLowerCase();
      for (let k = MIN_CUT; k < Math.min(lower.length, PIECE); k++) {
        if (!this.leads.has(lower.slice(0, k))) this.leads.set(lower.slice(0, k), replacement);
      }
      if (lower.length < PIECE) {
        if (!this.whole.some((w) => w.form === lower)) this.whole.push({ form: lower, replacement });
        continue;
      }
      for (let i = 0; i + PIECE <= lower.length; i++) {
        const piece = lower.slice(i, i + PIECE);
        if (!this.pieces.has(piece)) this.pieces.set(piece, replacement);
      }
    }
    this.whole.sort((a, b) => b.form.length - a.form.length);
  }

  /** The replacement of the first value `text` holds, if any. */
  firstIn(text: string): string | undefined {
    return this.spans(text)[0]?.replacement;
  }

  /** `text` with every value it holds replaced. */
  scrub(text: string): string {
    if (this.empty || !text) return text;
    const spans = this.spans(text);
    if (!spans.length) return text;
    let out = "";
    let at = 0;
    for (const span of spans) {
      out += text.slice(at, span.start) + span.replacement;
      at = span.end;
    }
    return out + text.slice(at);
  }

  /** The places that hold a value, in order and not overlapping. */
  private spans(text: string): { start: number; end: number; replacement: string }[] {
    const lowered = text.toLowerCase();
    // Lower-casing that changes the length (a dotted capital I) would move every place: match as written.
    const hay = lowered.length === text.length ? lowered : text;
    const found = [...this.pieceSpans(hay), ...this.wholeSpans(hay), ...this.cutSpans(hay)].sort(
      (a, b) => a.start - b.start,
    );
    const merged: typeof found = [];
    for (const span of found) {
      const last = merged[merged.length - 1];
      if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
      else merged.push({ ...span });
    }
    return merged;
  }

  private pieceSpans(hay: string): { start: number; end: number; replacement: string }[] {
    const spans: { start: number; end: number; replacement: string }[] = [];
    if (!this.pieces.size) return spans;
    for (let i = 0; i + PIECE <= hay.length; i++) {
      const replacement = this.pieces.get(hay.slice(i, i + PIECE));
      if (replacement === undefined) continue;
      const last = spans[spans.length - 1];
      if (last && i <= last.end) last.end = i + PIECE;
      else spans.push({ start: i, end: i + PIECE, replacement });
    }
    return spans;
  }

  /** A value's leading piece right before a cut: an ellipsis. */
  private cutSpans(hay: string): { start: number; end: number; replacement: string }[] {
    const spans: { start: number; end: number; replacement: string }[] = [];
    if (!this.leads.size) return spans;
    // Only an ellipsis marks a cut: a text that merely ends in a value's first word ("… labelled Password")
    // is a label, not a cut value.
    const cuts: number[] = [];
    for (const marker of CUT_MARKERS) {
      for (let i = hay.indexOf(marker); i !== -1; i = hay.indexOf(marker, i + 1)) cuts.push(i);
    }
    for (const cut of cuts) {
      for (let k = Math.min(PIECE - 1, cut); k >= MIN_CUT; k--) {
        const replacement = this.leads.get(hay.slice(cut - k, cut));
        if (replacement === undefined) continue;
        spans.push({ start: cut - k, end: cut, replacement });
        break;
      }
    }
    return spans;
  }

  private wholeSpans(hay: string): { start: number; end: number; replacement: string }[] {
    const spans: { start: number; end: number; replacement: string }[] = [];
    for (const { form, replacement } of this.whole) {
      for (let i = hay.indexOf(form); i !== -1; i = hay.indexOf(form, i + 1)) {
        if (form.length < MIN_SUBSTRING && !standsAlone(hay, i, form.length)) continue;
        spans.push({ start: i, end: i + form.length, replacement });
      }
    }
    return spans;
  }
}

/** Whether `hay[start, start + length)` is a whole word: no letter or digit right before or after it. */
function standsAlone(hay: string, start: number, length: number): boolean {
  const before = hay[start - 1];
  const after = hay[start + length];
  return !(before && WORD_CHAR.test(before)) && !(after && WORD_CHAR.test(after));
}

/** `text` with each of `needles` replaced, by the rule above. */
export function scrubLiterals(text: string, needles: readonly Needle[]): string {
  return new LiteralScrubber(needles).scrub(text);
}
