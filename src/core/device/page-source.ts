/*
 * Reading the driver's page source once for the accessibility evidence of the heal ladder
 * (docs/heal.md): capped in size and time, raced with the call's deadline, and parsed by
 * src/core/device/page-source-parse.ts. A page source that is missing, too big, slow, unparsable or
 * a web page's HTML is a skip (a note in the call's log), never a failure of the tap.
 */
import type { A11yElement } from "./a11y-element.js";
import { parsePageSource, type PageSourceDevice } from "./page-source-parse.js";

/** A page source longer than this is not parsed: parsing is synchronous, so its size bounds its time. */
export const PAGE_SOURCE_MAX_CHARS = 2_000_000;
/** Reading the page source takes 0.3-2 s on real devices; a driver slower than this is given up on. */
export const PAGE_SOURCE_TIMEOUT_MS = 5_000;

/** What a session's page source read gave. */
export type PageSourceReading<E = A11yElement> =
  | { elements: E[]; ms: number }
  /**
   * `absent`: the session serves no page source at all, which is not worth a note. `busy`: a web
   * page's HTML, not parsed, that marks content as loading (see `progressIndicator`).
   */
  | { skipped: string; absent?: true; busy?: string };

/** The limits of one read; tests pass smaller ones. */
export interface PageSourceLimits {
  maxChars: number;
  timeoutMs: number;
}

const LIMITS: PageSourceLimits = { maxChars: PAGE_SOURCE_MAX_CHARS, timeoutMs: PAGE_SOURCE_TIMEOUT_MS };

/**
 * Read and parse the page source; `skipped` says why there are no elements. The read is raced
 * with `signal` (the call's deadline) as well as the cap in `limits`: a driver's slow `/source`
 * is given up on when either ends, never waited for past the call's deadline.
 */
export async function readPageSource<E = A11yElement>(
  read: (() => Promise<string>) | undefined,
  device: PageSourceDevice,
  options: {
    signal?: AbortSignal;
    limits?: PageSourceLimits;
    /** How the XML becomes elements; default {@link parsePageSource}. */
    parse?: (xml: string, device: PageSourceDevice) => Promise<E[]>;
  } = {},
): Promise<PageSourceReading<E>> {
  if (!read) return { skipped: "this device session has no page source", absent: true };
  const { signal, limits = LIMITS } = options;
  const parse = options.parse ?? (parsePageSource as unknown as (xml: string, d: PageSourceDevice) => Promise<E[]>);
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  let xml: unknown;
  try {
    const giveUp = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${limits.timeoutMs} ms`)), limits.timeoutMs);
      onAbort = () => reject(new Error("no answer before the call's deadline"));
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
    });
    const reading = read();
    reading.catch(() => undefined);
    xml = await Promise.race([reading, giveUp]);
  } catch (error) {
    return { skipped: `reading the page source failed: ${(error as Error).message}` };
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
  if (typeof xml !== "string") return { skipped: `the page source is a ${typeof xml}, not XML text` };
  if (xml.length > limits.maxChars) {
    return { skipped: `the page source has ${xml.length} characters, over the ${limits.maxChars} parsed` };
  }
  if (/^\s*(<\?xml[^>]*>\s*)?(<!doctype html|<html[\s>])/i.test(xml)) {
    const busy = htmlBusy(xml);
    const skipped = "the page source is a web page's HTML (a web context), not the accessibility tree";
    return busy ? { skipped, busy } : { skipped };
  }
  try {
    return { elements: await parse(xml, device), ms: Date.now() - started };
  } catch (error) {
    return { skipped: `the page source is not XML: ${(error as Error).message}` };
  }
}

/** The first HTML tag marking content as loading (WAI-ARIA `aria-busy="true"`, `role="progressbar"`), shortened. */
function htmlBusy(html: string): string | undefined {
  const tag = /<[a-z][^>]*\s(aria-busy\s*=\s*["']?true\b|role\s*=\s*["']?progressbar\b)[^>]*>/i.exec(html)?.[0];
  return tag && (tag.length > 80 ? `${tag.slice(0, 77)}...` : tag);
}
