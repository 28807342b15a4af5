/**
 * `tapshot/mcp`: the MCP server behind `tapshot mcp`, for a coding agent that authors a mobile flow
 * whose every step is learned once and replayed in CI with no model (docs/mcp.md).
 *
 * ```ts
 * import { serveStdio } from "tapshot/mcp";
 * await serveStdio({ demoModule: "demo/mcp-device.ts" });
 * ```
 */
export { createMcpServer, type McpServerOptions, type TapshotMcp } from "./server.js";
export { serveHttp, serveStdio, type HttpListen } from "./serve.js";
export type { DeviceApi, DeviceModule, McpDevice } from "./device.js";
