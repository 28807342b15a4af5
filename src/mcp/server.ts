/*
 * `tapshot mcp`: an MCP server whose tools drive one device through tapshot's public API, so every
 * step an agent takes is learned once and replays in CI with no model (docs/mcp.md).
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { configureAi } from "../runner/index.js";
import { modelPreparer, type ModelSetting } from "./model.js";
import { McpSession } from "./session.js";
import type { ToolContext, ToolSettings } from "./tools/context.js";
import { TOOLS } from "./tools/index.js";

/** Options of {@link createMcpServer}. */
export interface McpServerOptions extends ModelSetting {
  /** The working folder: write_test writes inside it, relative paths are read from it. Default `process.cwd()`. */
  cwd?: string;
  /** A module whose `openDevice()` opens `start_session { demo: true }`'s device (docs/mcp.md "Device modules"). */
  demoModule?: string;
}

/** The MCP server and the session it drives; `close()` ends the session and the server. */
export interface TapshotMcp {
  server: McpServer;
  close(): Promise<void>;
}

/** An MCP server with tapshot's tools, not yet connected to a transport. */
export function createMcpServer(options: McpServerOptions = {}): TapshotMcp {
  const server = new McpServer({ name: "tapshot", version: "0.1.0" }, { capabilities: { tools: {} } });
  const session = new McpSession();
  const settings: ToolSettings = {
    cwd: options.cwd ?? process.cwd(),
    ...(options.demoModule ? { demoModule: options.demoModule } : {}),
  };
  const printed = (entry: Parameters<McpSession["logged"]>[0]) => console.error(JSON.stringify(entry));
  configureAi({
    ...(options.channel ? { channel: options.channel } : {}),
    log: (entry) => {
      session.logged(entry);
      printed(entry);
    },
  });
  const context: ToolContext = { session, server, settings, prepareModel: modelPreparer(server, options) };
  for (const tool of TOOLS) {
    server.registerTool(tool.name, tool.config, tool.handler(context) as never);
  }
  return {
    server,
    async close() {
      await session.end();
      await server.close();
    },
  };
}
