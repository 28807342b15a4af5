/*
 * `tapshot mcp`: serve tapshot's MCP tools over stdio (or streamable HTTP with --http), until the
 * client goes away. The server is the `tapshot/mcp` entry, loaded when the command runs: its SDK is
 * an optional peer dependency that the other commands never need.
 */
import type { Command } from "commander";
import { UsageError } from "./exit.js";

interface McpFlags {
  http?: string;
  host?: string;
  demo?: string;
}

export function addMcpCommand(program: Command): void {
  program
    .command("mcp")
    .description("serve tapshot's tools to a coding agent over MCP (stdio; --http for streamable HTTP): docs/mcp.md")
    .option("--http <port>", "serve streamable HTTP at http://127.0.0.1:<port>/mcp instead of stdio")
    .option("--host <address>", "with --http: the address to listen on (default 127.0.0.1: this machine only)")
    .option("--demo <module>", "the module whose openDevice() opens start_session { demo: true }'s device")
    .action(async (flags: McpFlags) => {
      const mcp = await loadMcp();
      const options = { cwd: process.cwd(), ...(flags.demo ? { demoModule: flags.demo } : {}) };
      if (flags.http === undefined) {
        if (flags.host) throw new UsageError("--host is an option of --http: add --http <port>.");
        // stdout carries the protocol: anything a library prints there goes to stderr instead.
        console.log = console.error;
        console.info = console.error;
        const served = await mcp.serveStdio(options);
        await new Promise<void>((resolve) => (served.server.server.onclose = resolve));
        return;
      }
      const port = Number(flags.http);
      if (!Number.isInteger(port) || port < 0 || port > 65535) {
        throw new UsageError(`--http takes a port number from 0 to 65535; got ${JSON.stringify(flags.http)}.`);
      }
      const served = await mcp.serveHttp({ port, ...(flags.host ? { host: flags.host } : {}) }, options);
      process.stderr.write(`tapshot mcp listening on ${served.url}\n`);
      await new Promise<void>((resolve) => {
        const stop = () => void served.close().then(resolve);
        process.once("SIGINT", stop);
        process.once("SIGTERM", stop);
      });
    });
}

async function loadMcp(): Promise<typeof import("../mcp/index.js")> {
  try {
    return await import("../mcp/index.js");
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_MODULE_NOT_FOUND" && /modelcontextprotocol/.test(String(error))) {
      throw new UsageError("tapshot mcp needs the MCP SDK beside tapshot: npm install -D @modelcontextprotocol/sdk");
    }
    throw error;
  }
}
