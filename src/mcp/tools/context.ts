/* What every tool is given: the session, the server (for the client's capabilities) and its options. */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { McpSession } from "../session.js";

/** The server's settings that tools read. */
export interface ToolSettings {
  /** The working folder: relative paths are read from it, and `write_test` writes only inside it. */
  cwd: string;
  /** The module whose `openDevice()` opens `start_session { demo: true }`'s device, if the server has one. */
  demoModule?: string;
}

export interface ToolContext {
  session: McpSession;
  server: McpServer;
  settings: ToolSettings;
  /** Make sure a model channel is configured before a call that may ask a model (sampling when no provider is set). */
  prepareModel(): void;
}
