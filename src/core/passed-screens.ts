/**
 * What a device session remembers between calls: for each comparison (a stored crop or baseline
 * with its masks and threshold), the last screenshot that passed it, as its length and SHA-256.
 * A later screenshot with the same bytes passes that comparison again without being decoded:
 * returning to an unchanged screen, as a flow that cycles through screens does, or asserting it twice.
 */
import { createHash } from "node:crypto";

/** The last screenshot that passed one comparison, and the result it gave. */
interface Passed {
  length: number;
  sha256: string;
  result: number;
}

/** Comparisons remembered per session, the least recently passed forgotten first. */
const MAX_REMEMBERED = 64;

const sessions = new WeakMap<object, Map<string, Passed>>();
/** Each screenshot is hashed at most once, however many comparisons look at it. */
const hashes = new WeakMap<Buffer, string>();

function sha256Of(png: Buffer): string {
  let hash = hashes.get(png);
  if (!hash) hashes.set(png, (hash = createHash("sha256").update(png).digest("hex")));
  return hash;
}

/**
 * The result `comparison` gave when a screenshot with `png`'s bytes last passed it in `session`,
 * or `undefined`. `comparison` names everything the verdict depends on (record, image hash, masks, threshold).
 */
export function passedBefore(session: object, comparison: string, png: Buffer): number | undefined {
  const passed = sessions.get(session)?.get(comparison);
  // A different length settles most misses without hashing.
  if (!passed || passed.length !== png.length || passed.sha256 !== sha256Of(png)) return undefined;
  return passed.result;
}

/** Remember that `png` passed `comparison` with `result`, replacing the screenshot that passed it before. */
export function rememberPassed(session: object, comparison: string, png: Buffer, result: number): void {
  let remembered = sessions.get(session);
  if (!remembered) sessions.set(session, (remembered = new Map()));
  remembered.delete(comparison);
  remembered.set(comparison, { length: png.length, sha256: sha256Of(png), result });
  if (remembered.size > MAX_REMEMBERED) remembered.delete(remembered.keys().next().value!);
}
