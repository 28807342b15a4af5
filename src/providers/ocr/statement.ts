/*
 * The `satisfy` statements `ocr()` decides without a model: each clause names quoted text that the
 * evidence's text must (or must not) contain, e.g. `contains "Refund requested"`, `the total shows
 * "$19.99"`, `does not show "Error"`, joined by "and". The evidence is text (the page source), plus
 * what OCR reads off an image sent with it; anything else is refused (docs/providers.md, "Local OCR").
 */

/** One clause: the quoted text and whether it must be absent. */
export interface TextClause {
  text: string;
  absent: boolean;
}

const VERBS = "contains?|shows?|displays?|says?|reads?|includes?|has the text|have the text";
const CLAUSE = new RegExp(
  `^(?:.*?\\s)??(does not |doesn't |do not |don't )?(?:${VERBS})\\s+(?:the text\\s+)?["\u201c]([^"\u201d]+)["\u201d]\\s*\\.?$`,
  "i",
);

/** The clauses of a statement ocr() can decide, or `undefined` when some part of it is not one. */
export function textClauses(statement: string): TextClause[] | undefined {
  const clauses: TextClause[] = [];
  for (const part of statement
    .trim()
    .split(
      /\s+and\s+(?=(?:it\s+)?(?:does not |doesn't |do not |don't )?(?:contain|show|display|say|read|include|ha))/i,
    )) {
    const m = CLAUSE.exec(part.trim());
    if (!m) return undefined;
    clauses.push({ text: m[2]!, absent: !!m[1] });
  }
  return clauses.length ? clauses : undefined;
}

const normal = (text: string) => text.replace(/\s+/g, " ").trim().toLowerCase();

/** Whether every clause holds for `evidence`, and the first that does not. */
export function decideClauses(clauses: TextClause[], evidence: string): { holds: boolean; reason: string } {
  const haystack = normal(evidence);
  for (const clause of clauses) {
    const found = haystack.includes(normal(clause.text));
    if (found === clause.absent) {
      return {
        holds: false,
        reason: `the text judged ${found ? "contains" : "does not contain"} "${clause.text}" (ocr compares text only).`,
      };
    }
  }
  const listed = clauses.map((c) => `${c.absent ? "no " : ""}"${c.text}"`).join(", ");
  return { holds: true, reason: `the text judged has ${listed} (ocr compares text only).` };
}
