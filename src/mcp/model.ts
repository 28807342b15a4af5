/*
 * Which model a call asks: the configured provider, as everywhere; when none is configured and the
 * client declares the sampling capability, the client's own model through `sampling/createMessage`.
 */
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { channelFromEnv, samplingChannel } from "../providers/index.js";
import { configureAi, type AiChannel } from "../runner/index.js";

/** What the server was told about the model. */
export interface ModelSetting {
  /** A channel the embedding code passed; otherwise the environment's provider. */
  channel?: AiChannel;
}

/** A function that, before each call, configures the sampling channel when nothing else is configured. */
export function modelPreparer(server: McpServer, setting: ModelSetting): () => void {
  let sampling: AiChannel | undefined;
  return () => {
    if (setting.channel || channelFromEnv(process.env)) return;
    if (!server.server.getClientCapabilities()?.sampling) return;
    sampling ??= samplingChannel({
      async send(request, signal) {
        const result = await server.server.createMessage(request, { signal });
        const content = Array.isArray(result.content) ? result.content : [result.content];
        const text = content.map((block) => (block.type === "text" ? block.text : "")).join("");
        return { text, model: result.model, ...(result.stopReason ? { stopReason: result.stopReason } : {}) };
      },
    });
    configureAi({ channel: sampling });
  };
}
