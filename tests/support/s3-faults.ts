/**
 * Network faults in front of a test S3 service ({@link startTestS3}): a proxy that forwards each request
 * unchanged (signature intact) unless the test's rule picks a fault for it. The faults are what a real
 * network and real services do: a request that stalls, an answer lost after the service acted on the
 * request (S3 answers 500 InternalError and says to retry:
 * https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html), or an answer the test writes.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { startTestS3, type TestS3 } from "./s3-replica.js";

/** What the proxy does with one request. */
export type Fault =
  /** Never answer (until the proxy stops). */
  | { kind: "stall" }
  /**
   * Forward after `ms`: a slow service. The request is read at once and forwarded after `ms` even when
   * its client gave up meanwhile (`onClientGone`), as a service that received a whole request acts on it.
   */
  | { kind: "delay"; ms: number; onAnswer?: () => void; onClientGone?: () => void }
  /** Forward, let the service act, then answer 500 InternalError instead of its answer. */
  | { kind: "lose-answer" }
  /** Answer this instead of forwarding. */
  | { kind: "answer"; status: number; body: string };

/** The request as the rule sees it: method, path with query, headers. */
export interface FaultRequest {
  method: string;
  url: URL;
  headers: http.IncomingHttpHeaders;
}

export interface FaultProxy {
  endpoint: string;
  /** The rule; `undefined` forwards. Tests change it between steps. */
  rule: (request: FaultRequest) => Fault | undefined;
  stop(): Promise<void>;
}

const INTERNAL_ERROR =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code>' +
  "<Message>We encountered an internal error. Please try again.</Message><RequestId>faults</RequestId></Error>";

/** Start a proxy to `upstream`. */
export async function startFaultProxy(upstream: string): Promise<FaultProxy> {
  const timers = new Set<NodeJS.Timeout>();
  const proxy: FaultProxy = { endpoint: "", rule: () => undefined, stop: async () => undefined };

  /** Send `request` upstream, with `body` when it was read already, else its stream. */
  function forward(
    request: http.IncomingMessage,
    answer: (status: number, headers: object, body: Buffer) => void,
    body?: Buffer,
  ) {
    const out = http.request(
      `${upstream}${request.url}`,
      { method: request.method, headers: request.headers },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (c: Buffer) => chunks.push(c));
        response.on("end", () => answer(response.statusCode ?? 500, response.headers, Buffer.concat(chunks)));
      },
    );
    out.on("error", () => answer(502, {}, Buffer.from(INTERNAL_ERROR)));
    if (body) out.end(body);
    else request.pipe(out);
  }

  const server = http.createServer((request, response) => {
    const fault = proxy.rule({
      method: request.method ?? "GET",
      url: new URL(request.url ?? "/", "http://proxy"),
      headers: request.headers,
    });
    const send = (status: number, headers: object, body: Buffer) => {
      if (response.destroyed) return;
      response.writeHead(status, headers as http.OutgoingHttpHeaders);
      response.end(body);
    };
    if (!fault) return forward(request, send);
    if (fault.kind === "stall") return request.resume();
    if (fault.kind === "answer") {
      request.resume();
      return send(fault.status, { "content-type": "application/xml" }, Buffer.from(fault.body));
    }
    if (fault.kind === "lose-answer") {
      return forward(request, () => send(500, { "content-type": "application/xml" }, Buffer.from(INTERNAL_ERROR)));
    }
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    response.on("close", () => {
      if (!response.writableFinished) fault.onClientGone?.();
    });
    request.on("end", () => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        forward(
          request,
          (status, headers, body) => {
            fault.onAnswer?.();
            send(status, headers, body);
          },
          Buffer.concat(chunks),
        );
      }, fault.ms);
      timers.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  proxy.stop = async () => {
    for (const timer of timers) clearTimeout(timer);
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return proxy;
}

/** A test S3 service and a fault proxy in front of it, started before a describe block's tests and stopped after. */
export interface FaultyBucket {
  s3: TestS3;
  proxy: FaultProxy;
}

/** Register beforeAll/afterAll hooks that start and stop a {@link FaultyBucket}; read its fields inside tests. */
export function useFaultyBucket(): FaultyBucket {
  const bucket = {} as FaultyBucket;
  beforeAll(async () => {
    bucket.s3 = await startTestS3("s3");
    bucket.proxy = await startFaultProxy(bucket.s3.endpoint);
  });
  afterAll(async () => {
    await bucket.proxy.stop();
    await bucket.s3.stop();
  });
  return bucket;
}
