/**
 * Text matching for the OCR provider: what text a prompt names (quoted phrases first,
 * then its salient words), and where that text is among the lines the engine read,
 * fuzzy and case-insensitive. Matching never guesses: callers get every candidate that
 * ties for best and decline when there is more than one.
 */
import type { Box } from "../../core/model/contract.js";
import type { TextLine } from "./engine.js";

/** A place on screen where the named text was read. */
export interface TextMatch {
  /** The line it was read in. */
  line: TextLine;
  /** The part of the line that matched, as read. */
  text: string;
  /** Box of that part, in pixels of the screen (a share of the line's box by character offsets). */
  box: Box;
  /** 0-1: 1 is the whole line reading exactly the named text. */
  score: number;
}

/** Matches that tie within this much of the best score are all candidates. */
const TIE = 0.02;
/** A match inside a longer line scores this much below the same text standing alone. */
const PART_OF_LINE = 0.05;

/** Phrases in double quotes, typographic quotes, backticks, or single quotes that are not apostrophes. */
export function quotedPhrases(text: string): string[] {
  const pattern = /"([^"]+)"|“([^”]+)”|‘([^’]+)’|`([^`]+)`|(?<![\p{L}\p{N}])'([^']+)'(?![\p{L}\p{N}])/gu;
  const phrases: string[] = [];
  for (const m of text.matchAll(pattern)) {
    const phrase = (m[1] ?? m[2] ?? m[3] ?? m[4] ?? m[5] ?? "").trim();
    if (normalize(phrase)) phrases.push(phrase);
  }
  return phrases;
}

/** The text outside quotes, where a statement says what it claims about the quoted text. */
export function unquoted(text: string): string {
  return text.replace(/"[^"]*"|“[^”]*”|‘[^’]*’|`[^`]*`|(?<![\p{L}\p{N}])'[^']*'(?![\p{L}\p{N}])/gu, " ");
}

/** Words that say something is absent; OCR can only confirm that text is present. */
export function negates(text: string): boolean {
  return /\b(not|no|never|none|without|hidden|gone|absent|missing|removed|disappear\w*)\b|n't\b/i.test(text);
}

/** Whether a prompt names a graphic (an icon, an image): its words then describe the picture, not text. */
export function namesGraphic(prompt: string): boolean {
  return /\b(icons?|images?|logos?|avatars?|pictures?|photos?|thumbnails?|arrows?|chevrons?|hamburger|glyphs?|symbols?|emoji|badges?|spinners?|illustrations?)\b/i.test(
    unquoted(prompt),
  );
}

/** Words of a prompt that describe a control rather than name its text. */
const NOT_SALIENT = new Set(
  (
    "a an the this that these those it its is are be to of on in at by for from with and or into onto " +
    "tap click press hit select choose open touch toggle enter type scroll swipe " +
    "button btn link icon tab field input box menu item entry label text option switch checkbox radio " +
    "row cell card bar header footer title heading screen page view dialog sheet popup modal list " +
    "top bottom left right upper lower middle center centre corner side first second third last next " +
    "above below under over near beside inside says saying labelled labeled named called reading shows " +
    "showing shown visible main primary secondary big small large " +
    "blue red green yellow orange purple pink black white grey gray"
  ).split(" "),
);

/** Lower-case words of a prompt that may be the text of the element it names (all of them, in order). */
export function salientWords(prompt: string): string[] {
  return tokens(prompt)
    .map((t) => t.word)
    .filter((w) => w.length > 1 && !NOT_SALIENT.has(w));
}

/** Case-folded, width-folded, whitespace-collapsed text, without punctuation around words. */
export function normalize(text: string): string {
  return tokens(text)
    .map((t) => t.word)
    .join(" ");
}

interface Token {
  /** Normalised word. */
  word: string;
  /** Offsets of the word in the original text. */
  start: number;
  end: number;
}

function tokens(text: string): Token[] {
  const out: Token[] = [];
  for (const m of text.matchAll(/\S+/g)) {
    const raw = m[0];
    const lead = raw.length - raw.replace(/^[\p{P}]+/u, "").length;
    const core = raw.replace(/^[\p{P}]+|[\p{P}]+$/gu, "");
    if (!core) continue;
    const start = m.index + lead;
    out.push({ word: core.normalize("NFKC").toLowerCase(), start, end: start + core.length });
  }
  return out;
}

/** 1 minus the Levenshtein distance over the longer length: 1 is equal, 0 is nothing alike. */
export function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (!a.length || !b.length) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return 1 - previous[b.length]! / Math.max(a.length, b.length);
}

/** Similarity that also forgives spaces the OCR added or dropped ("Check out" for "Checkout"). */
function textSimilarity(a: string, b: string): number {
  return Math.max(similarity(a, b), similarity(a.replace(/ /g, ""), b.replace(/ /g, "")));
}

/** The box of characters `start`..`end` of a line, as a share of the line's box. */
function partBox(line: TextLine, start: number, end: number): Box {
  const length = Math.max(1, line.text.length);
  const x = line.box.x + (line.box.width * start) / length;
  const width = Math.max(1, (line.box.width * (end - start)) / length);
  return { x, y: line.box.y, width, height: line.box.height };
}

/**
 * Where `phrase` was read: the best window of words in each line that reads like it,
 * at `minSimilarity` or more.
 */
export function findPhrase(phrase: string, lines: TextLine[], minSimilarity: number): TextMatch[] {
  const wanted = normalize(phrase);
  const size = wanted.split(" ").length;
  const matches: TextMatch[] = [];
  for (const line of lines) {
    const words = tokens(line.text);
    let best: TextMatch | undefined;
    for (let n = Math.max(1, size - 1); n <= size + 1; n++) {
      for (let i = 0; i + n <= words.length; i++) {
        const window = words.slice(i, i + n);
        const whole = n === words.length;
        const sim = textSimilarity(wanted, window.map((w) => w.word).join(" "));
        const score = sim - (whole ? 0 : PART_OF_LINE);
        if (sim >= minSimilarity && (!best || score > best.score)) {
          const start = window[0]!.start;
          const end = window[window.length - 1]!.end;
          const box = whole ? line.box : partBox(line, start, end);
          best = { line, text: line.text.slice(start, end), box, score };
        }
      }
    }
    if (best) matches.push(best);
  }
  return matches;
}

/**
 * Lines that read at least half of `words` (each fuzzy, at `minSimilarity`; words of up
 * to three letters exactly). A line scores by the share of the words it holds, then by
 * the share of its own words that were named.
 */
export function findWords(words: string[], lines: TextLine[], minSimilarity: number): TextMatch[] {
  const matches: TextMatch[] = [];
  const needed = Math.ceil(words.length / 2);
  for (const line of lines) {
    const lineWords = tokens(line.text);
    const hit = new Set<number>();
    let named = 0;
    for (const word of words) {
      const index = lineWords.findIndex((t) =>
        word.length <= 3 ? t.word === word : textSimilarity(word, t.word) >= minSimilarity,
      );
      if (index >= 0) {
        named++;
        hit.add(index);
      }
    }
    if (named === 0 || named < needed) continue;
    const first = Math.min(...hit);
    const last = Math.max(...hit);
    const whole = first === 0 && last === lineWords.length - 1;
    const start = lineWords[first]!.start;
    const end = lineWords[last]!.end;
    matches.push({
      line,
      text: line.text.slice(start, end),
      box: whole ? line.box : partBox(line, start, end),
      score: 0.9 * (named / words.length) + 0.1 * (hit.size / lineWords.length),
    });
  }
  return matches;
}

/** The matches that tie for the best score, best first; one means a clear answer. */
export function bestMatches(matches: TextMatch[]): TextMatch[] {
  if (!matches.length) return [];
  const top = Math.max(...matches.map((m) => m.score));
  return matches.filter((m) => m.score >= top - TIE).sort((a, b) => b.score - a.score || a.box.y - b.box.y);
}

/** Describe a match for a reason: `"Remove" at (905, 280) 174x55`. */
export function describeMatch(match: TextMatch): string {
  const { x, y, width, height } = match.box;
  return `"${match.text}" at (${Math.round(x)}, ${Math.round(y)}) ${Math.round(width)}x${Math.round(height)}`;
}

/**
 * Lines that sit side by side on one row, joined left to right into one line: an engine
 * may split `Total: $108.99` in two where a statement quotes it whole.
 */
export function rowsOf(lines: TextLine[]): TextLine[] {
  const rows: TextLine[][] = [];
  const byTop = [...lines].sort((a, b) => a.box.y - b.box.y);
  for (const line of byTop) {
    const centre = line.box.y + line.box.height / 2;
    const row = rows.find((r) => {
      const first = r[0]!;
      return Math.abs(first.box.y + first.box.height / 2 - centre) <= Math.min(first.box.height, line.box.height) / 2;
    });
    if (row) row.push(line);
    else rows.push([line]);
  }
  return rows
    .filter((row) => row.length > 1)
    .map((row) => {
      row.sort((a, b) => a.box.x - b.box.x);
      const x = Math.min(...row.map((l) => l.box.x));
      const y = Math.min(...row.map((l) => l.box.y));
      const right = Math.max(...row.map((l) => l.box.x + l.box.width));
      const bottom = Math.max(...row.map((l) => l.box.y + l.box.height));
      return {
        text: row.map((l) => l.text).join(" "),
        box: { x, y, width: right - x, height: bottom - y },
        confidence: Math.min(...row.map((l) => l.confidence)),
      };
    });
}
