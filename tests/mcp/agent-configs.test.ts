/**
 * The configuration snippets of docs/mcp.md for Claude Code, Cursor and VS Code, tested as written: each JSON block is
 * parsed as the agent reads it (`mcpServers` for Claude Code and Cursor, `servers` for VS Code), and its command is
 * started from the repository's folder with the SDK's stdio client, which lists the server's tools.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { PROJECT_ROOT } from "../../rig/appium.js";
import { builtPackageProblem } from "../support/built-package.js";

interface ServerEntry {
  type?: string;
  command: string;
  args: string[];
}

const doc = readFileSync(join(PROJECT_ROOT, "docs/mcp.md"), "utf8");
const snippets = [...doc.matchAll(/^```json (\S+)\n([\s\S]*?)^```/gm)].map((m) => ({ file: m[1]!, text: m[2]! }));

beforeAll(() => {
  const problem = builtPackageProblem();
  if (problem) throw new Error(problem);
});

test("the page has the three agents' files", () => {
  expect(snippets.map((s) => s.file)).toEqual([".mcp.json", ".cursor/mcp.json", ".vscode/mcp.json"]);
});

test.each(snippets.map((s) => [s.file, s.text]))(
  "%s parses and its command serves the tools",
  async (file, text) => {
    const parsed = JSON.parse(text) as {
      mcpServers?: Record<string, ServerEntry>;
      servers?: Record<string, ServerEntry>;
    };
    const entry = (file === ".vscode/mcp.json" ? parsed.servers : parsed.mcpServers)?.tapshot;
    expect(entry).toBeDefined();
    if (file === ".vscode/mcp.json") expect(entry!.type).toBe("stdio");
    const transport = new StdioClientTransport({
      command: entry!.command,
      args: entry!.args,
      cwd: PROJECT_ROOT,
      stderr: "pipe",
    });
    const client = new Client({ name: "config-check", version: "1.0.0" });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain("write_test");
      expect(tools).toHaveLength(10);
    } finally {
      await client.close();
    }
  },
  60_000,
);
