/**
 * What a device session remembers between calls: the last screenshot whose comparison passed,
 * and which comparisons it passed. A later screenshot with the same bytes passes those again
 * without being decoded (returning to an unchanged screen, or asserting it twice).
 */

/** The last passed screenshot of a session and what it passed: comparison identity -> result. */
interface LastPassed {
  png: Buffer;
  passed: Map<string, number>;
}

const sessions = new WeakMap<object, LastPassed>();

/**
 * The result a comparison gave when `png`'s bytes last passed it in `session`, or `undefined`.
 * `comparison` names everything the verdict depends on (record, image hash, masks, threshold).
 */
export function passedBefore(session: object, comparison: string, png: Buffer): number | undefined {
  const last = sessions.get(session);
  if (!last?.passed.has(comparison) || !last.png.equals(png)) return undefined;
  return last.passed.get(comparison);
}

/** Remember that `png` passed `comparison` with `result`; a new screenshot replaces the last one. */
export function rememberPassed(session: object, comparison: string, png: Buffer, result: number): void {
  const last = sessions.get(session);
  if (last?.png === png || last?.png.equals(png)) last.passed.set(comparison, result);
  else sessions.set(session, { png, passed: new Map([[comparison, result]]) });
}
