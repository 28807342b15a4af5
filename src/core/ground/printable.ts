/**
 * Text for a terminal or a plain-text log: control characters become visible escapes, so
 * a prompt, name, model reason or file name can neither start a new line nor send an
 * escape sequence (colours, window titles, links, clearing the screen).
 */

/**
 * C0 controls, DEL, C1 controls, the Unicode line and paragraph separators, and the bidi
 * marks that can make a terminal show text reordered: the embedding, override and isolate
 * marks, and the implicit ones (LRM U+200E, RLM U+200F, ALM U+061C).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is this module's job
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** `"a\nb\u001b[31m"` -> `a\nb\x1b[31m` (the backslashes literal); other text is unchanged. */
export function printable(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0);
    return (
      NAMED[c] ??
      (code > 0xff ? `\\u${code.toString(16).padStart(4, "0")}` : `\\x${code.toString(16).padStart(2, "0")}`)
    );
  });
}
