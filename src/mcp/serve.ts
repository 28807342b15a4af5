/* The transports `tapshot mcp` serves on: stdio, or streamable HTTP on 127.0.0.1 unless told otherwise. */
import { createServer, type Server } from "node:http";
import { randomUUID } from "node:crypto";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { createMcpServer, type McpServerOptions, type TapshotMcp } from "./server.js";

/** Serve on stdin/stdout until the client closes them. Nothing else may write to stdout meanwhile. */
export async function serveStdio(options: McpServerOptions = {}): Promise<TapshotMcp> {
  const mcp = createMcpServer(options);
  const transport = new StdioServerTransport();
  transport.onclose = () => void mcp.close();
  await mcp.server.connect(transport);
  return mcp;
}

/** Where {@link serveHttp} listens. */
export interface HttpListen {
  port: number;
  /** Default `127.0.0.1`: only this machine reaches the device. */
  host?: string;
}

/** Serve streamable HTTP at `/mcp`: one MCP session (and one device) per client session. */
export async function serveHttp(
  listen: HttpListen,
  options: McpServerOptions = {},
): Promise<{ url: string; close(): Promise<void> }> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; mcp: TapshotMcp }>();
  const http: Server = createServer((req, res) => {
    void (async () => {
      if (!req.url?.startsWith("/mcp")) {
        res.writeHead(404).end("tapshot mcp serves /mcp\n");
        return;
      }
      const id = req.headers["mcp-session-id"];
      const known = typeof id === "string" ? sessions.get(id) : undefined;
      if (known) return known.transport.handleRequest(req, res);
      const mcp = createMcpServer(options);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: (sessionId) => void sessions.set(sessionId, { transport, mcp }),
      });
      transport.onclose = () => {
        if (transport.sessionId) sessions.delete(transport.sessionId);
        void mcp.close();
      };
      await mcp.server.connect(transport);
      await transport.handleRequest(req, res);
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String((error as Error).message));
    });
  });
  const host = listen.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(listen.port, host, resolve);
  });
  const address = http.address();
  const port = typeof address === "object" && address ? address.port : listen.port;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}/mcp`,
    async close() {
      await Promise.allSettled([...sessions.values()].map(({ mcp }) => mcp.close()));
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
