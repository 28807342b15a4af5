/**
 * Serves the demo shop on 127.0.0.1 (node:http only).
 *
 * Routes: `/cart`, `/checkout`, `/confirmation` (`/` redirects to `/cart`). Query parameters:
 * `variant` = `default` | `redesign` | `regression`; `seed` = an integer fixing the varying
 * content (without it, each load picks a new one, so the balance and dates change every run);
 * `bars` = `<top>,<bottom>` CSS pixels of system bars to draw, with `platform` = `android` | `ios`;
 * `loading` = ms of a plain loading view shown before the content (only on the page opened with it).
 * Links on each page carry the other parameters, so a flow keeps its variant and values.
 * `/long-cart` and `/carousel` (demo/app/long-pages.ts) scroll; `rows` sets the long cart's rows.
 * `/login` (demo/app/login-page.ts) signs in, then opens the default cart.
 */
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { randomInt } from "node:crypto";
import {
  MAX_LOADING_MS,
  pageQuery,
  renderPage,
  SCREENS,
  VARIANTS,
  type PageOptions,
  type Screen,
  type Variant,
} from "./pages.js";
import { LOGIN_SCREENS, renderLoginPage, type LoginScreen } from "./login-page.js";
import { LONG_CART_ROWS, LONG_SCREENS, MAX_LONG_CART_ROWS, renderLongPage, type LongScreen } from "./long-pages.js";

const CSS = readFileSync(new URL("./styles.css", import.meta.url), "utf8");

/** A running demo server. */
export interface DemoServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** The URL of one screen with the given options; `rows` sets the long cart's rows. */
  pageUrl(screen: Screen | LongScreen | LoginScreen, options?: Partial<PageOptions> & { rows?: number }): string;
  /** Pages served so far, newest last (path and query), to check what a flow loaded. */
  readonly requests: readonly string[];
  /** Stop serving and close open connections. Safe to call more than once. */
  stop(): Promise<void>;
}

/** Options of {@link startDemoServer}. */
export interface DemoServerOptions {
  /** Port on 127.0.0.1; default 0 (a free one). */
  port?: number;
}

class BadRequest extends Error {}

/** Parse and check the query of a page request. */
export function parsePageOptions(params: URLSearchParams): PageOptions {
  const variant = params.get("variant") ?? "default";
  if (!(VARIANTS as readonly string[]).includes(variant)) {
    throw new BadRequest(`variant "${variant}" is unknown; use one of ${VARIANTS.join(", ")}.`);
  }
  const seedText = params.get("seed");
  const seed = seedText === null ? randomInt(0, 2 ** 31) : Number(seedText);
  if (!Number.isSafeInteger(seed)) throw new BadRequest(`seed "${seedText}" is not an integer.`);
  const barsText = params.get("bars") ?? "0,0";
  const bars = barsText.split(",").map(Number);
  if (bars.length !== 2 || !bars.every((b) => Number.isInteger(b) && b >= 0 && b <= 200)) {
    throw new BadRequest(`bars "${barsText}" must be "<top>,<bottom>" in CSS pixels, e.g. "24,16".`);
  }
  const platform = params.get("platform") ?? "android";
  if (platform !== "android" && platform !== "ios") {
    throw new BadRequest(`platform "${platform}" is unknown; use android or ios.`);
  }
  const loadingText = params.get("loading") ?? "0";
  const loading = Number(loadingText);
  if (!Number.isInteger(loading) || loading < 0 || loading > MAX_LOADING_MS) {
    throw new BadRequest(`loading "${loadingText}" must be a whole number of ms from 0 to ${MAX_LOADING_MS}.`);
  }
  const page: PageOptions = { variant: variant as Variant, seed, bars: { top: bars[0]!, bottom: bars[1]!, platform } };
  return loading ? { ...page, loading } : page;
}

function parseRows(text: string | null): number {
  if (text === null) return LONG_CART_ROWS;
  const rows = Number(text);
  if (!Number.isInteger(rows) || rows < 1 || rows > MAX_LONG_CART_ROWS) {
    throw new BadRequest(`rows "${text}" must be a whole number from 1 to ${MAX_LONG_CART_ROWS}.`);
  }
  return rows;
}

function handle(request: IncomingMessage, response: ServerResponse, requests: string[]): void {
  const url = new URL(request.url ?? "/", "http://127.0.0.1");
  const send = (status: number, type: string, body: string, headers: Record<string, string> = {}) => {
    response.writeHead(status, { "content-type": type, "cache-control": "no-store", ...headers });
    response.end(body);
  };
  if (request.method !== "GET" && request.method !== "HEAD") return send(405, "text/plain", "only GET\n");
  if (url.pathname === "/") return send(302, "text/plain", "", { location: `/cart${url.search}` });
  const screen = url.pathname.slice(1);
  if ((LONG_SCREENS as readonly string[]).includes(screen)) {
    try {
      const options = parsePageOptions(url.searchParams);
      const rows = parseRows(url.searchParams.get("rows"));
      requests.push(`${url.pathname}?${url.searchParams.toString()}`);
      return send(200, "text/html; charset=utf-8", renderLongPage(screen as LongScreen, options, rows, CSS));
    } catch (error) {
      if (error instanceof BadRequest) return send(400, "text/plain", `${error.message}\n`);
      throw error;
    }
  }
  const login = (LOGIN_SCREENS as readonly string[]).includes(screen);
  if (!login && !(SCREENS as readonly string[]).includes(screen)) {
    return send(
      404,
      "text/plain",
      `no page ${url.pathname}; pages: ${[...SCREENS, ...LOGIN_SCREENS].map((s) => `/${s}`).join(", ")}\n`,
    );
  }
  try {
    const options = parsePageOptions(url.searchParams);
    requests.push(`${url.pathname}?${pageQuery(options)}${options.loading ? `&loading=${options.loading}` : ""}`);
    const html = login ? renderLoginPage(options, CSS) : renderPage(screen as Screen, options, CSS);
    send(200, "text/html; charset=utf-8", html);
  } catch (error) {
    if (error instanceof BadRequest) return send(400, "text/plain", `${error.message}\n`);
    throw error;
  }
}

/** Serve the demo shop on 127.0.0.1. */
export async function startDemoServer(options: DemoServerOptions = {}): Promise<DemoServer> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    try {
      handle(request, response, requests);
    } catch (error) {
      response.writeHead(500, { "content-type": "text/plain" });
      response.end(`${(error as Error).message}\n`);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  const url = `http://127.0.0.1:${port}`;
  let stopping: Promise<void> | undefined;
  return {
    url,
    port,
    requests,
    pageUrl(screen, page = {}) {
      const query = pageQuery({
        variant: page.variant ?? "default",
        seed: page.seed ?? randomInt(0, 2 ** 31),
        bars: page.bars ?? { top: 0, bottom: 0, platform: "android" },
      });
      const rows = page.rows === undefined ? "" : `&rows=${page.rows}`;
      return `${url}/${screen}?${query}${rows}${page.loading ? `&loading=${page.loading}` : ""}`;
    },
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return stopping;
    },
  };
}

export type { LoggedTap, PageOptions, Screen, Variant } from "./pages.js";
export { LONG_CART_ROWS, LONG_SCREENS, type LongScreen } from "./long-pages.js";
export { COUNTRIES, LOGIN_SCREENS, SIGN_IN_KEY, type LoginScreen, type SignIn } from "./login-page.js";
export { SCREENS, TAP_LOG_KEY, VARIANTS, varyingValues } from "./pages.js";
