/**
 * `tapshot mcp` as an agent's client meets it: the SDK's own `Client` over `StdioClientTransport`, spawning
 * the built command (`dist/cli/main.js mcp --demo demo/mcp-device.ts`) on the rig (a real Appium 3 server
 * and Chromium). A tap learned with the local OCR model replays with 0 model calls after a new
 * start_session; the written test passes under `node --test` in mode replay with the model unreachable;
 * with no provider, the client's own model is asked through sampling; values passed by reference show
 * nowhere. The work folder sits inside the repository, as a user's project folder would hold its tests.
 */
import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readFile, readdir, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CreateMessageRequestSchema, type CreateMessageRequest } from "@modelcontextprotocol/sdk/types.js";
import { PROJECT_ROOT } from "../../rig/appium.js";
import { builtPackageProblem } from "../support/built-package.js";
import { piecesOf } from "../support/value-pieces.js";

const run = promisify(execFile);
const CLI = join(PROJECT_ROOT, "dist", "cli", "main.js");
const DEMO_DEVICE = join(PROJECT_ROOT, "demo", "mcp-device.ts");
const TOOL_NAMES = [
  "start_session",
  "screenshot",
  "elements",
  "tap",
  "find",
  "act",
  "satisfy",
  "match_screenshot",
  "write_test",
  "end_session",
];
/** The demo account (demo/sign-in.ts), passed by reference from the server's environment. */
const VALUES = { SHOP_EMAIL: "ada@demo-shop.example", SHOP_PASSWORD: "demo-shop-pass-1815" };
/** No provider in the server's environment unless a test names one. */
const NO_PROVIDER = Object.fromEntries(
  Object.entries(process.env).filter(
    ([k]) => !/^(TAPSHOT_PROVIDER|TAPSHOT_MODE|CI|GEMINI_|GOOGLE_|OPENAI_|AZURE_)/.test(k),
  ),
) as Record<string, string>;

interface Served {
  client: Client;
  stderr: () => string;
  close(): Promise<void>;
}

/** The built server on stdio, its stderr kept, with the client's capabilities and sampling handler. */
async function serve(
  cwd: string,
  env: Record<string, string>,
  sampling?: (request: CreateMessageRequest) => Promise<{ model: string; text: string }>,
): Promise<Served> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI, "mcp", "--demo", DEMO_DEVICE],
    cwd,
    env: { ...NO_PROVIDER, ...env },
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const client = new Client(
    { name: "tapshot-test", version: "1.0.0" },
    { capabilities: sampling ? { sampling: {} } : {} },
  );
  if (sampling) {
    client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
      const { model, text } = await sampling(request);
      return { role: "assistant", model, content: { type: "text", text }, stopReason: "endTurn" };
    });
  }
  await client.connect(transport);
  return { client, stderr: () => stderr, close: () => client.close() };
}

type ToolAnswer = { isError?: boolean; content: { type: string; text?: string; data?: string; mimeType?: string }[] };

async function call(served: Served, name: string, args: Record<string, unknown> = {}): Promise<ToolAnswer> {
  return (await served.client.callTool({ name, arguments: args }, undefined, { timeout: 180_000 })) as ToolAnswer;
}

function json(answer: ToolAnswer): Record<string, unknown> {
  expect(answer.isError ?? false).toBe(false);
  return JSON.parse(answer.content[0]!.text!) as Record<string, unknown>;
}

let work: string;
beforeAll(async () => {
  const problem = builtPackageProblem();
  if (problem) throw new Error(problem);
  work = await mkdtemp(join(PROJECT_ROOT, ".mcp-test-"));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe("with the local OCR model", () => {
  let served: Served;
  let storage: string;
  beforeAll(async () => {
    storage = join(work, "ocr", "storage");
    // The repository's storage holds the demo's sign-in act; the OCR learns go into this copy.
    await cp(join(PROJECT_ROOT, "storage"), storage, { recursive: true });
    served = await serve(join(work, "ocr"), { TAPSHOT_PROVIDER: "ocr", TAPSHOT_STORAGE_DIR: storage, ...VALUES });
  }, 120_000);
  afterAll(async () => {
    await served?.close();
  });

  test("the server lists exactly the documented tools", async () => {
    const { tools } = await served.client.listTools();
    expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
  });

  test("a session on the demo device: a PNG screenshot and the screen's controls", async () => {
    expect(json(await call(served, "start_session", { demo: true, screen: "cart" }))).toMatchObject({ started: true });
    const shot = (await call(served, "screenshot")).content[0]!;
    expect(shot).toMatchObject({ type: "image", mimeType: "image/png" });
    const png = Buffer.from(shot.data!, "base64");
    expect(png.subarray(1, 4).toString("latin1")).toBe("PNG");
    const width = png.readUInt32BE(16);
    const controls = JSON.parse((await call(served, "elements")).content[0]!.text!) as {
      kind: string;
      text: string;
      bounds: number[];
    }[];
    const checkout = controls.find((c) => c.text === "Checkout");
    expect(checkout).toMatchObject({ kind: "button" });
    expect(checkout!.bounds[0]! + checkout!.bounds[2]!).toBeLessThanOrEqual(width);
  }, 180_000);

  test("a tap learned with the OCR model replays after a new start_session with 0 model calls", async () => {
    // No kind word: the page source does not decide it, the OCR model reads the label.
    const prompt = 'the "Checkout" label';
    const learned = json(await call(served, "tap", { prompt }));
    expect(learned).toMatchObject({ outcome: "learned" });
    expect(learned.aiCalls).toBeGreaterThan(0);
    expect((learned.models as string[]).every((m) => m.startsWith("ocr"))).toBe(true);
    json(await call(served, "start_session", { demo: true, screen: "cart" }));
    expect(json(await call(served, "tap", { prompt }))).toMatchObject({ outcome: "replayed", aiCalls: 0 });
    // A button the page source names is learned from it, with no model at all.
    json(await call(served, "start_session", { demo: true, screen: "cart" }));
    expect(json(await call(served, "tap", { prompt: 'the "Checkout" button' }))).toMatchObject({
      outcome: "learned",
      aiCalls: 0,
      models: ["page-source"],
    });
  }, 300_000);

  test("write_test's file passes under node --test in mode replay, with the model endpoint unreachable", async () => {
    expect(json(await call(served, "write_test", { path: "flows/checkout.test.mjs" }))).toMatchObject({
      written: join("flows", "checkout.test.mjs"),
      steps: 1,
    });
    const results = join(work, "ocr", "replay-results");
    // The TAP reporter by name: Node 20 defaults to it off a terminal, Node 24 to "spec".
    const args = ["--test", "--test-reporter=tap", join("flows", "checkout.test.mjs")];
    const { stdout } = await run(process.execPath, args, {
      cwd: join(work, "ocr"),
      timeout: 180_000,
      env: {
        ...NO_PROVIDER,
        TAPSHOT_MODE: "replay",
        TAPSHOT_STORAGE_DIR: storage,
        TAPSHOT_RESULTS_DIR: results,
        TAPSHOT_PROVIDER: "openai",
        OPENAI_API_KEY: "sk-unused",
        OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
      },
    });
    expect(stdout).toMatch(/# pass 1\n# fail 0/);
    const [runDir] = await readdir(results);
    const calls = (await readFile(join(results, runDir!, "calls.jsonl"), "utf8")).trim().split("\n");
    expect(calls.map((line) => JSON.parse(line) as { outcome: string; aiCalls: number })).toEqual([
      expect.objectContaining({ outcome: "replayed", aiCalls: 0 }),
    ]);
  }, 240_000);

  test("write_test refuses a path outside the working folder, through a link too, and a file already there", async () => {
    const outside = await call(served, "write_test", { path: "../elsewhere.test.mjs" });
    expect(outside.isError).toBe(true);
    expect(outside.content[0]!.text).toMatch(/InputError.*only inside the server's working folder.*outside it/s);
    await symlink(tmpdir(), join(work, "ocr", "linked"));
    const linked = await call(served, "write_test", { path: "linked/escape.test.mjs" });
    expect(linked.content[0]!.text).toMatch(/InputError.*outside it/s);
    const before = await readFile(join(work, "ocr", "flows", "checkout.test.mjs"), "utf8");
    const again = await call(served, "write_test", { path: "flows/checkout.test.mjs" });
    expect(again.content[0]!.text).toMatch(/InputError.*already there: pass overwrite: true/s);
    expect(await readFile(join(work, "ocr", "flows", "checkout.test.mjs"), "utf8")).toBe(before);
    const other = await call(served, "write_test", { path: "flows/notes.txt" });
    expect(other.content[0]!.text).toMatch(/InputError.*end the path in \.mjs/s);
  });

  test("values passed by reference appear in no tool result, log line or written test", async () => {
    json(await call(served, "start_session", { demo: true, screen: "login" }));
    const values = { email: { env: "SHOP_EMAIL" }, password: { env: "SHOP_PASSWORD" } };
    const acted = await call(served, "act", { goal: "sign in", values });
    expect(json(acted)).toMatchObject({ outcome: "replayed", aiCalls: 0 });
    await call(served, "write_test", { path: "flows/sign-in.test.mjs" });
    const written = await readFile(join(work, "ocr", "flows", "sign-in.test.mjs"), "utf8");
    expect(written).toContain('{"values":{"email":{"env":"SHOP_EMAIL"},"password":{"env":"SHOP_PASSWORD"}}}');
    const places = { result: JSON.stringify(acted), log: served.stderr(), written };
    for (const [where, text] of Object.entries(places)) {
      for (const value of Object.values(VALUES)) {
        expect({ where, found: piecesOf(value).find((piece) => text.includes(piece)) }).toEqual({
          where,
          found: undefined,
        });
      }
    }
  }, 240_000);
});

describe("with no provider and a client that answers sampling", () => {
  const asked: CreateMessageRequest[] = [];
  let answer: (request: CreateMessageRequest) => Promise<{ model: string; text: string }>;
  let served: Served;
  let storage: string;
  beforeAll(async () => {
    storage = join(work, "sampling", "storage");
    await mkdir(join(work, "sampling"));
    served = await serve(join(work, "sampling"), { TAPSHOT_STORAGE_DIR: storage }, (request) => {
      asked.push(request);
      return answer(request);
    });
    json(await call(served, "start_session", { demo: true, screen: "cart" }));
  }, 120_000);
  afterAll(async () => {
    await served?.close();
  });

  test("the request arrives with the screenshot as an image; a refusal is a tool error that stores nothing", async () => {
    answer = () => Promise.reject(new Error("The user declined this sampling request"));
    const refused = await call(served, "tap", { prompt: "the basket icon" });
    expect(refused.isError).toBe(true);
    expect(refused.content[0]!.text).toMatch(/ProviderError.*did not answer the "locate" request.*declined/s);
    const images = asked[0]!.params.messages.filter((m) => !Array.isArray(m.content) && m.content.type === "image");
    expect(images).toHaveLength(1);
    expect(asked[0]!.params.systemPrompt).toMatch(/bbox_2d/);
    await expect(readdir(join(storage, "_ai_", "taps"))).rejects.toThrow(/ENOENT/);
  }, 120_000);

  test("a malformed answer is a tool error too, and stores nothing", async () => {
    answer = () => Promise.resolve({ model: "sampling-double (tests/mcp)", text: "I think it is at the top." });
    const malformed = await call(served, "tap", { prompt: "the basket icon" });
    expect(malformed.isError).toBe(true);
    expect(malformed.content[0]!.text).toMatch(/AiAnswerError.*not JSON/s);
    await expect(readdir(join(storage, "_ai_", "taps"))).rejects.toThrow(/ENOENT/);
  }, 120_000);

  test("an answer of the client's model is read as any provider's, and calls.jsonl names that model", async () => {
    const shot = Buffer.from((await call(served, "screenshot")).content[0]!.data!, "base64");
    const screen = { width: shot.readUInt32BE(16), height: shot.readUInt32BE(20) };
    const controls = JSON.parse((await call(served, "elements")).content[0]!.text!) as {
      text: string;
      bounds: number[];
    }[];
    const [x, y, w, h] = controls.find((c) => c.text === "Checkout")!.bounds as [number, number, number, number];
    // This double is no model: it answers with the box the page source gave, in pixels of the image it was sent.
    answer = (request) => {
      const sent = /it is (\d+)x(\d+) pixels/.exec(request.params.systemPrompt ?? "");
      const scale = Number(sent![1]) / screen.width;
      const box = [x, y, x + w, y + h].map((v) => Math.round(v * scale));
      const text = JSON.stringify({ reason: "the Checkout button", found: true, bbox_2d: box });
      return Promise.resolve({ model: "sampling-double (tests/mcp)", text });
    };
    const tapped = json(await call(served, "tap", { prompt: "the checkout button" }));
    expect(tapped).toMatchObject({ outcome: "learned", aiCalls: 1, models: ["sampling-double (tests/mcp)"] });
    const results = join(work, "sampling", "tapshot-results");
    const [runDir] = await readdir(results);
    const lines = (await readFile(join(results, runDir!, "calls.jsonl"), "utf8")).trim().split("\n");
    const last = JSON.parse(lines.at(-1)!) as { outcome: string; models: string[] };
    expect(last).toMatchObject({ outcome: "learned", models: ["sampling-double (tests/mcp)"] });
  }, 120_000);
});
