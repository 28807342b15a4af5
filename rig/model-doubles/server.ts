/**
 * The HTTP part of the wire doubles: a server on 127.0.0.1, a queue of faults to play
 * instead of answers, and the record of every request received.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Fault, Kind, ReceivedRequest } from "./knowledge.js";

/** What every double returns from `start...Double`. */
export interface WireDouble {
  /** Base URL to give the SDK (`httpOptions.baseUrl` / `baseURL` / `endpoint`). */
  baseUrl: string;
  /** The raw parsed JSON bodies received, in order. */
  requests: unknown[];
  /** Each request as the double understood it (kind, images, user text, headers). */
  received: ReceivedRequest[];
  /** How many requests were received, of one kind or in all (faulted ones included). */
  calls(kind?: Kind): number;
  /** Play `fault` for the next `times` requests instead of answering. */
  inject(fault: Fault, times?: number): void;
  /** Stop the server; requests left hanging are dropped. */
  close(): Promise<void>;
}

/** What a wire format answers: a status, headers and a JSON (or raw) body. */
export interface WireResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Send `body` as it is (for `garbage`). */
  raw?: boolean;
}

/** Serve `handle(request body, path, headers)`; the handler records and answers. */
export async function startWireServer(
  handle: (body: unknown, req: http.IncomingMessage, faults: Fault[]) => Promise<WireResponse | "hang">,
): Promise<Omit<WireDouble, "calls" | "received"> & { faults: Fault[] }> {
  const faults: Fault[] = [];
  const requests: unknown[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        body = undefined;
      }
      requests.push(body);
      handle(body, req, faults).then(
        (response) => {
          if (response === "hang") return;
          const payload = response.raw ? String(response.body) : JSON.stringify(response.body);
          res.writeHead(response.status, { "content-type": "application/json", ...response.headers });
          res.end(payload);
        },
        (error: unknown) => {
          res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { code: 500, message: `double failed: ${(error as Error).message}` } }));
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    faults,
    inject(fault: Fault, times = 1) {
      for (let i = 0; i < times; i++) faults.push(fault);
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
