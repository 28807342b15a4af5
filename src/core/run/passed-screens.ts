/*
 * What a device session remembers between calls: for each comparison (a stored crop or baseline
 * with its masks and threshold), the last screenshot that passed it, as its length and SHA-256.
 * A later screenshot with the same bytes passes that comparison again without being decoded:
 * returning to an unchanged screen, as a flow that cycles through screens does, or asserting it twice.
 * It also keeps a few stored crops decoded, for taps replayed again in the session.
 */
import { createHash } from "node:crypto";
import type { RawImage } from "../pixels/image-decode.js";

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

/** Stored images kept decoded per session; a crop is ~1 MB of pixels, so only a few. */
const MAX_DECODED = 8;
const decodedImages = new WeakMap<object, Map<string, { png: Buffer; raw: Promise<RawImage> }>>();

/**
 * `png` (a stored crop) decoded, kept per session: a flow that replays the same tap again
 * decodes only the screenshot. Keyed by content, so an edited record never gets another's pixels.
 * Callers must not write into the pixels they get.
 */
export function decodedStored(
  session: object,
  png: Buffer,
  decode: (png: Buffer) => Promise<RawImage>,
): Promise<RawImage> {
  let kept = decodedImages.get(session);
  if (!kept) decodedImages.set(session, (kept = new Map()));
  const key = sha256Of(png);
  const hit = kept.get(key);
  if (hit && hit.png.equals(png)) {
    kept.delete(key);
    kept.set(key, hit);
    return hit.raw;
  }
  const raw = decode(png);
  raw.catch(() => kept.delete(key));
  kept.set(key, { png, raw });
  if (kept.size > MAX_DECODED) kept.delete(kept.keys().next().value!);
  return raw;
}
