/**
 * A server that answers a model request with an HTML page (a proxy's sign-in page, a captive
 * portal, a web server at a wrong base URL) gave no model answer at all: say so, with what it
 * sent, instead of "no choices" or "not JSON", and never retry it (the next answer is the same page).
 */
import type { Failure } from "./failure.js";

const SHOWN_CHARACTERS = 80;

/** A successful HTTP response whose body is an HTML page. */
export class HtmlAnswer extends Error {
  constructor(
    readonly status: number,
    readonly url: string,
    /** The first characters of the page, on one line. */
    readonly start: string,
  ) {
    super(`an HTML page instead of JSON (HTTP ${status}): "${start}"`);
    this.name = "HtmlAnswer";
  }
}

/** `fetch` for the provider SDKs: an HTML page in a successful response becomes an {@link HtmlAnswer}. */
export async function htmlGuardedFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  if (!response.ok) return response;
  const type = response.headers.get("content-type") ?? "";
  // Model answers are small JSON bodies: reading a copy costs nothing next to the model's time.
  const text = /json/i.test(type) || /html/i.test(type) || type === "" ? await response.clone().text() : "";
  if (/html/i.test(type) || /^\s*</.test(text)) {
    const start = text.replace(/\s+/g, " ").trim().slice(0, SHOWN_CHARACTERS);
    throw new HtmlAnswer(response.status, response.url, start);
  }
  return response;
}

/** The HtmlAnswer an SDK error carries (SDKs wrap what their fetch threw as a cause), if any. */
export function htmlAnswerIn(error: unknown): HtmlAnswer | undefined {
  for (let e = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof HtmlAnswer) return e;
  }
  return undefined;
}

/** The failure of an HTML answer: not retried, with the likely cause. */
export function htmlFailure(html: HtmlAnswer): Failure {
  return {
    detail:
      `${html.message}. Usually a proxy or sign-in page in between, or a base URL or endpoint that ` +
      `is not the API's (e.g. http://127.0.0.1:8000/v1 for an OpenAI-compatible server).`,
    retryable: false,
    cause: html,
  };
}
