/**
 * `tapshot review`: the review page on 127.0.0.1, a random port and a random token. Every request
 * needs the token, and a Host header naming this very address, so neither another site in the
 * browser nor a DNS-rebound name can read the store or decide anything (docs/reviewing.md).
 * Decisions go through the Store API (actions.ts), as `tapshot accept` and `revert` do; the last
 * run's failures (failures.ts) as `tapshot accept --failed` takes them. The page's one script runs
 * under a fresh CSP nonce per page.
 */
import { describeZodError } from "../../core/ground/zod-errors.js";
import { randomBytes, timingSafeEqual } from "node:crypto";
import { promises as fs } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { z } from "zod";
import { compare } from "../../core/pixels/image-compare.js";
import { decode } from "../../core/pixels/image-decode.js";
import type { Store } from "../../core/store/store.js";
import type { StoreModel } from "../model.js";
import { decideAll, locate } from "./decide.js";
import type { ReviewBy } from "./actions.js";
import { renderReviewPage } from "./page.js";
import { decideFailure, FAILURE_IMAGES, lastFailures, type LastFailures, type ReviewFailure } from "./failures.js";
import { rememberedFingerprints, type Fingerprinter } from "./fingerprint.js";
import { artifactFile } from "./accept-failed.js";
import { pendingValues, type PendingValue } from "./pending.js";

/** What the server reads and writes. */
export interface ReviewServerOptions {
  store: Store;
  /** Read the store afresh (each page load shows what is pending now). */
  readModel(): Promise<StoreModel>;
  /** Who reviews; `at` is set per decision. */
  reviewer: string | null;
  /** The results folder whose last run's failures the page lists; none without it. */
  results?: string;
}

/** A running review server. */
export interface ReviewServer {
  /** The URL to open, token included. */
  url: string;
  port: number;
  close(): Promise<void>;
}

const DecideBody = z.object({
  decision: z.enum(["accept", "revert"]),
  values: z.array(z.object({ key: z.string(), seen: z.string() })).min(1),
});
const FailuresBody = z.object({
  action: z.enum(["accept", "forget"]),
  ids: z.array(z.string()).min(1),
});
const IMAGE_FILES = new Set(["png", "previous.png", "diff.png"]);
const MAX_BODY = 1_000_000;

function sameToken(given: string | null, token: string): boolean {
  const a = Buffer.from(given ?? "");
  const b = Buffer.from(token);
  return a.length === b.length && timingSafeEqual(a, b);
}

function send(res: http.ServerResponse, status: number, type: string, body: string | Buffer, nonce?: string): void {
  res.writeHead(status, {
    "content-type": type,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    // The page's own script (by its nonce) and images only; nothing from elsewhere, no framing.
    "content-security-policy":
      `default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; ` +
      `script-src ${nonce ? `'nonce-${nonce}'` : "'none'"}; connect-src 'self'; frame-ancestors 'none'`,
  });
  res.end(body);
}

const json = (res: http.ServerResponse, status: number, value: unknown) =>
  send(res, status, "application/json", JSON.stringify(value));

async function readBody(req: http.IncomingMessage): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error("request body too large");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

/** A JSON request's body parsed by `schema`, or `undefined` once the error answer is sent. */
async function jsonBody<T>(
  req: http.IncomingMessage,
  res: http.ServerResponse,
  schema: z.ZodType<T>,
): Promise<T | undefined> {
  if (!req.headers["content-type"]?.startsWith("application/json")) {
    json(res, 415, { error: "send application/json" });
    return undefined;
  }
  if (Number(req.headers["content-length"] ?? 0) > MAX_BODY) {
    // Refused unread; the connection closes, so the rest of the body is never taken in.
    res.setHeader("connection", "close");
    json(res, 413, { error: `request body too large: at most ${MAX_BODY} bytes` });
    return undefined;
  }
  try {
    const parsed = schema.safeParse(JSON.parse(await readBody(req)));
    if (parsed.success) return parsed.data;
    json(res, 400, { error: describeZodError(parsed.error) });
  } catch (error) {
    json(res, 400, { error: (error as Error).message });
  }
  return undefined;
}

/** The image `file` of a pending value; a baseline's diff is drawn from its previous and new images. */
async function imageOf(store: Store, value: PendingValue, file: string): Promise<Buffer | null> {
  if (file !== "diff.png") return store.read(`${value.entry.key}.${file}`);
  const [previous, current] = await Promise.all([
    store.read(`${value.entry.key}.previous.png`),
    store.read(`${value.entry.key}.png`),
  ]);
  if (!previous || !current) return null;
  const [a, b] = await Promise.all([decode(previous), decode(current)]);
  if (a.width !== b.width || a.height !== b.height) return null;
  return (await compare(a, b, { diff: true })).diffPng ?? null;
}

/** The fingerprints of the pending baseline heals' changes, by key (fingerprint.ts). */
async function fingerprintsOf(
  store: Store,
  values: PendingValue[],
  fingerprint: Fingerprinter,
): Promise<Map<string, string>> {
  const found = new Map<string, string>();
  for (const { entry, change } of values) {
    if (entry.kind !== "baseline" || change !== "heal") continue;
    const [before, after] = await Promise.all([
      store.read(`${entry.key}.previous.png`),
      store.read(`${entry.key}.png`),
    ]);
    const print = before && after ? await fingerprint(before, after) : undefined;
    if (print) found.set(entry.key, print);
  }
  return found;
}

/** What every route of one server knows: its options, its token and what it reads per request. */
interface ServerContext {
  options: ReviewServerOptions;
  token: string;
  fingerprint: Fingerprinter;
  imageUrl: (key: string, file: string) => string;
  failureImageUrl: (failure: ReviewFailure, label: string) => string;
  /** The store's pending values, read anew per request. */
  pending: () => Promise<{ model: Awaited<ReturnType<ReviewServerOptions["readModel"]>>; values: PendingValue[] }>;
  /** The last run's failures; only the page shows fingerprints. */
  last: (withPrints?: boolean) => Promise<LastFailures>;
}

type Route = (context: ServerContext, req: http.IncomingMessage, res: http.ServerResponse, url: URL) => Promise<void>;

/** The page: the pending values and the last run's failures. A store that cannot be listed still shows the failures. */
async function pageRoute(context: ServerContext, _req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const { options, token, fingerprint, imageUrl, failureImageUrl } = context;
  const read = await context
    .pending()
    .catch((error: unknown) => ({ model: undefined, error: (error as Error).message }));
  const values = "values" in read ? read.values : [];
  const nonce = randomBytes(16).toString("base64");
  const shown = await context.last(true);
  const page = renderReviewPage({
    values,
    ...("error" in read ? { pendingError: read.error } : {}),
    failures: shown.failures,
    unreadableFailures: shown.unreadable,
    fingerprints: await fingerprintsOf(options.store, values, fingerprint).catch(() => undefined),
    storage: read.model?.root ?? options.store.location,
    token,
    nonce,
    imageUrl,
    failureImageUrl,
  });
  return send(res, 200, "text/html; charset=utf-8", page, nonce);
}

/** Only the images a failure of the last run kept, from inside its run's folder. */
async function failureImageRoute(
  context: ServerContext,
  _req: http.IncomingMessage,
  res: http.ServerResponse,
  url: URL,
) {
  const failure = (await context.last()).failures.find((f) => f.id === url.searchParams.get("id"));
  const label = url.searchParams.get("label") ?? "";
  const allowed = failure && (FAILURE_IMAGES[failure.kind] as readonly string[]).includes(label);
  const file = allowed ? await artifactFile(failure.run, failure.entry, label) : undefined;
  return file
    ? send(res, 200, "image/png", await fs.readFile(file))
    : send(res, 404, "text/plain", "No such failure image.\n");
}

/** Accept or re-learn failures of the last run, by id. */
async function failuresRoute(context: ServerContext, req: http.IncomingMessage, res: http.ServerResponse) {
  const { options } = context;
  const body = await jsonBody(req, res, FailuresBody);
  if (!body) return;
  const known = (await context.last()).failures;
  const by: ReviewBy = { name: options.reviewer, at: new Date().toISOString() };
  const changes = [];
  for (const id of body.ids) {
    const failure = known.find((f) => f.id === id);
    const done = failure
      ? await decideFailure(options.store, failure, body.action, by)
      : { key: "", action: "refused", files: [], why: "it is not a failure of the last run" };
    changes.push({ id, ...done, files: done.files.map((f) => locate(options.store, f)) });
  }
  return json(res, 200, { changes });
}

/** Only images of values awaiting review: the page is no way to read anything else in the store. */
async function imageRoute(context: ServerContext, _req: http.IncomingMessage, res: http.ServerResponse, url: URL) {
  const file = url.searchParams.get("file") ?? "";
  const value = (await context.pending()).values.find((v) => v.entry.key === url.searchParams.get("key"));
  const image = value && IMAGE_FILES.has(file) ? await imageOf(context.options.store, value, file) : null;
  return image ? send(res, 200, "image/png", image) : send(res, 404, "text/plain", "No such pending image.\n");
}

/** Accept or revert pending values; a value healed again since the page showed it is left alone (actions.ts). */
async function decideRoute(context: ServerContext, req: http.IncomingMessage, res: http.ServerResponse) {
  const { options } = context;
  const body = await jsonBody(req, res, DecideBody);
  if (!body) return;
  const { values } = await context.pending();
  const chosen = body.values.map(({ key, seen }) => {
    const value = values.find((v) => v.entry.key === key);
    return value && { ...value, entry: { ...value.entry, record: { ...value.entry.record, imageSha256: seen } } };
  });
  const known = chosen.filter((v): v is PendingValue => Boolean(v));
  const by: ReviewBy = { name: options.reviewer, at: new Date().toISOString() };
  const done = await decideAll(options.store, known, body.decision, by);
  const gone = body.values
    .filter((v) => !known.some((k) => k.entry.key === v.key))
    .map((v) => ({ key: v.key, action: "unchanged", files: [], why: "it is not pending review" }));
  return json(res, 200, {
    changes: [...done.map((d) => ({ ...d, files: d.files.map((f) => locate(options.store, f)) })), ...gone],
  });
}

/** The server's routes, by method and path. */
const ROUTES: Record<string, Route> = {
  "GET /": pageRoute,
  "GET /failure-image": failureImageRoute,
  "POST /failures": failuresRoute,
  "GET /image": imageRoute,
  "POST /decide": decideRoute,
};

/** The routes' context for one server with `token`. */
function serverContext(options: ReviewServerOptions, token: string): ServerContext {
  const fingerprint = rememberedFingerprints();
  return {
    options,
    token,
    fingerprint,
    imageUrl: (key, file) => `/image?key=${encodeURIComponent(key)}&file=${encodeURIComponent(file)}&token=${token}`,
    failureImageUrl: (failure, label) =>
      `/failure-image?id=${encodeURIComponent(failure.id)}&label=${encodeURIComponent(label)}&token=${token}`,
    pending: () => options.readModel().then((model) => ({ model, values: pendingValues(model) })),
    last: (withPrints = false) =>
      options.results
        ? lastFailures(options.results, options.store, withPrints ? { fingerprint } : {})
        : Promise.resolve({ failures: [], unreadable: [] }),
  };
}

/** Start the server on 127.0.0.1 at a random port. */
export async function startReviewServer(options: ReviewServerOptions): Promise<ReviewServer> {
  const context = serverContext(options, randomBytes(24).toString("hex"));
  let host = "";
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse): Promise<void> => {
    if (req.headers.host !== host)
      return send(res, 421, "text/plain", "Wrong Host header: open the URL tapshot review printed.\n");
    const url = new URL(req.url ?? "/", `http://${host}`);
    if (!sameToken(url.searchParams.get("token"), context.token)) {
      return send(res, 403, "text/plain", "Missing or wrong token: open the URL tapshot review printed.\n");
    }
    const route = ROUTES[`${req.method} ${url.pathname}`];
    return route ? route(context, req, res, url) : send(res, 404, "text/plain", "Not found.\n");
  };
  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) json(res, 500, { error: (error as Error).message });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  host = `127.0.0.1:${port}`;
  return {
    url: `http://${host}/?token=${context.token}`,
    port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
