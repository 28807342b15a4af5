/*
 * Secrets never leave tapshot in anything it prints or writes (docs/guarantees.md): every
 * sink (errors, log lines, calls.jsonl, artifact names, the report) passes its text through
 * {@link redact}, which removes the secrets configured in this process and anything shaped
 * like one.
 */

import { LiteralScrubber } from "./literal-scrub.js";

/** What a secret is replaced with. */
export const REDACTED = "[redacted]";

/** Shorter values are too likely to occur in ordinary text to be replaced. */
const MIN_SECRET_LENGTH = 8;

/**
 * Shapes of secrets that are redacted even when nobody configured them here (a runner's own
 * channel may echo its key): OpenAI-style `sk-...` keys, Google `AIza...` keys, bearer tokens,
 * JSON Web Tokens (Microsoft Entra ID access tokens are JWTs, echoed with or without "Bearer"),
 * Google OAuth access tokens (`ya29.`, what Vertex AI is called with).
 */
const SECRET_SHAPES = [
  /\bsk-[A-Za-z0-9_-]{12,}/g,
  /\bAIza[0-9A-Za-z_-]{20,}/g,
  /\bBearer\s+[A-Za-z0-9._~+/=-]{12,}/gi,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+/g,
  /\bya29\.[A-Za-z0-9_-]{20,}/g,
];

/** `scheme://user:password@` or `scheme://token@` in a URL: the userinfo is replaced, the host kept. */
const URL_USERINFO = /\b([a-z][a-z0-9+.-]*:\/\/)[^/?#\s@"'<>]+@/gi;

const configured = new Set<string>();

/**
 * The values `ai.act` typed in this process (docs/api.md "Values"), kept for the process's life: a
 * value once typed is replaced by `[value <name>]` in everything tapshot prints or writes after.
 */
const typedValues = new LiteralScrubber([]);
const typedTexts = new Set<string>();

/**
 * Remember values that are typed into fields, by name, so that every sink replaces their text. A
 * value shorter than a secret ({@link MIN_SECRET_LENGTH}, a PIN, a quantity) is too likely to be
 * part of ordinary text (a store key, a label) to be replaced in everything the process writes; where
 * such a value can be echoed (a driver's error while typing it, a label, toSatisfy's evidence) it is
 * replaced there, at any length.
 */
export function registerTypedValues(values: Readonly<Record<string, string>>): void {
  for (const [name, text] of Object.entries(values)) {
    if (text.length < MIN_SECRET_LENGTH || typedTexts.has(text)) continue;
    typedTexts.add(text);
    typedValues.add(text, typedValue(name));
  }
}

/** What a typed value's text is replaced with. */
export const typedValue = (name: string) => `[value ${name}]`;

/** Remember a secret of this process (an API key, a fetched token) so that every sink redacts it. */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= MIN_SECRET_LENGTH) configured.add(value);
}

/**
 * `text` with every typed value, every registered secret, every `extra` one and every
 * secret-shaped string replaced.
 */
export function redact(text: string, extra: readonly string[] = []): string {
  let out = typedValues.scrub(text);
  for (const secret of [...extra, ...configured]) {
    if (secret.length >= MIN_SECRET_LENGTH) out = out.split(secret).join(REDACTED);
  }
  for (const shape of SECRET_SHAPES) out = out.replace(shape, REDACTED);
  return out.replace(URL_USERINFO, `$1${REDACTED}@`);
}

/** A copy of a JSON-like value with every string in it redacted (log entries, records). */
export function redactDeep<T>(value: T): T {
  if (typeof value === "string") return redact(value) as T;
  if (Array.isArray(value)) return value.map(redactDeep) as T;
  if (value && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactDeep(v)])) as T;
  }
  return value;
}

/** Redact an error's message and stack in place (it is rethrown to the caller as it is). */
export function redactError(error: unknown): void {
  if (!(error instanceof Error)) return;
  const message = redact(error.message);
  if (message !== error.message) error.message = message;
  if (error.stack) error.stack = redact(error.stack);
}

/** Whether a URL carries a user name or password, e.g. `http://user:secret@host/v1`. */
export function hasUserinfo(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username !== "" || parsed.password !== "";
  } catch {
    return false;
  }
}
