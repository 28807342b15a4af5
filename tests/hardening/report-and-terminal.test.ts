/**
 * Hardening: the report copies only files its run folder holds and embeds nothing else,
 * and no prompt, name, model reason or file name can write control characters to a
 * terminal (forged log lines, ANSI colours, OSC window titles): text output escapes them,
 * JSON output keeps them exact.
 */
import { jest } from "@jest/globals";
import { mkdtempSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import sharp from "sharp";
import { consoleLogger, formatLogLine, HEALED_MESSAGE, type LogEntry } from "../../src/core/ground/log.js";
import { FileStore } from "../../src/core/store/file-store.js";
import { tapKey } from "../../src/core/store/keys.js";
import { createRecord, sha256 } from "../../src/core/store/record-io.js";
import { FORMAT } from "../../src/core/store/record-format.js";
import type { TapRecord } from "../../src/core/store/tap-record.js";
import { COMPARE_SCRIPT } from "../../src/cli/report/compare.js";
import { FakeDevice } from "../support/fake-device.js";
import { runCli } from "../cli/run-cli.js";

/** C0 and C1 controls, DEL, the Unicode line and paragraph separators and bidi marks: what a terminal acts on. */
// eslint-disable-next-line no-control-regex -- the characters a terminal acts on
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;
/** The same, but a newline between lines of output is allowed. */
const CONTROL_BUT_NEWLINE =
  // eslint-disable-next-line no-control-regex -- the characters a terminal acts on
  /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const ESCAPES = "\u001b[31mred\u001b[0m \u001b]0;pwned\u0007 \u009b2J \r\u2028\u2029\u007f\u202e \u200e\u200f\u061c";
const ESCAPED = "\\x1b[31mred\\x1b[0m \\x1b]0;pwned\\x07 \\x9b2J \\r\\u2028\\u2029\\x7f\\u202e \\u200e\\u200f\\u061c";

let root: string;

beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), "tapshot-hardening-"));
});

afterAll(async () => {
  await fs.rm(root, { recursive: true, force: true });
});

async function png(color: string): Promise<Buffer> {
  return sharp({ create: { width: 8, height: 8, channels: 3, background: color } })
    .png()
    .toBuffer();
}

/** Store a tap record of `prompt` on a fake Pixel through the real record helpers; returns its key. */
async function storeTap(storage: string, prompt: string, fields: Partial<TapRecord> = {}): Promise<string> {
  const image = await png("#3b5bdb");
  const crop = { x: 0, y: 0, width: 8, height: 8 };
  const now = new Date().toISOString();
  const record: TapRecord = {
    format: FORMAT,
    kind: "tap",
    prompt,
    verify: null,
    device: new FakeDevice({ background: "#fff", elements: [] }, { model: "Fake Pixel 7", osVersion: "14" })
      .description,
    point: { x: 4, y: 4 },
    box: crop,
    crop,
    model: "test-double:scripted",
    reason: "element checkout",
    imageSha256: sha256(image),
    storedAt: now,
    createdAt: now,
    ...fields,
  };
  const key = tapKey("android", "fake-pixel-7_14", prompt, undefined);
  await createRecord(new FileStore(storage), key, record, image);
  return key;
}

/** Every file under `dir`, as paths relative to it with `/`. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => !e.isDirectory())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)).split(path.sep).join("/"))
    .sort();
}

describe("the report", () => {
  const RUN = "2026-01-02T03-04-05-000Z_4242";
  let out: string;
  let html: string;

  beforeAll(async () => {
    const base = path.join(root, "report");
    const storage = path.join(base, "storage");
    const results = path.join(base, "results");
    const runDir = path.join(results, RUN);
    const outside = path.join(base, "outside");
    out = path.join(base, "out");
    await fs.mkdir(storage, { recursive: true });
    await fs.mkdir(runDir, { recursive: true });
    await fs.mkdir(outside, { recursive: true });
    await fs.writeFile(path.join(runDir, "screenshot-confirmation__pixel__expected.png"), await png("#2b8a3e"));
    await fs.writeFile(path.join(outside, "secret.png"), await png("#c92a2a"));
    await fs.symlink(path.join(outside, "secret.png"), path.join(runDir, "linked.png"));
    const artifacts = [
      path.join(runDir, "screenshot-confirmation__pixel__expected.png"),
      path.join(outside, "secret.png"),
      "../../outside/secret.png",
      pathToFileURL(path.join(outside, "secret.png")).href,
      "linked.png",
      "http://evil.example/track.png",
      "javascript:alert(1)",
      '"><script>alert(1)</script>',
    ];
    const entry = {
      api: "toMatchScreenshot",
      name: "confirmation",
      device: "pixel",
      outcome: "failed",
      aiCalls: 0,
      models: [],
      durationMs: 5,
      detail: "1.9% of pixels differ",
      artifacts,
      at: new Date().toISOString(),
    };
    await fs.writeFile(path.join(runDir, "calls.jsonl"), JSON.stringify(entry) + "\n");
    // A stored tap whose image is a symlink out of the storage folder (to a file with the same bytes, so it reads as valid).
    const image = path.join(new FileStore(storage).root, `${await storeTap(storage, "the checkout button")}.png`);
    await fs.rename(image, path.join(outside, "stored.png"));
    await fs.symlink(path.join(outside, "stored.png"), image);
    const { code, stderr } = await runCli(["report", "--storage", storage, "--results", results, "--out", out]);
    if (code !== 0) throw new Error(`tapshot report exited ${code}: ${stderr}`);
    html = await fs.readFile(path.join(out, "index.html"), "utf8");
  });

  test("the report copies only files inside the run's results folder, whatever path or symlink a run record names", async () => {
    expect(await filesUnder(path.join(out, "files"))).toEqual([
      ".tapshot-report",
      `runs/${RUN}/screenshot-confirmation__pixel__expected.png`,
    ]);
  });

  test("the report copies stored images only from inside the storage folder", async () => {
    // The store refuses the link (docs/storage.md), so the report lists the record as invalid and copies nothing.
    expect(html).toContain("is a symbolic link");
    expect((await filesUnder(path.join(out, "files"))).filter((f) => f.startsWith("store/"))).toEqual([]);
  });

  test("the report embeds and links only its own copies: URLs, javascript: and outside paths are listed as escaped text", () => {
    const targets = [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1]!);
    // Besides the page's own #section links; an image and its full-size link name the same copy.
    expect([...new Set(targets.filter((t) => !t.startsWith("#")))]).toEqual([
      `files/runs/${encodeURIComponent(RUN)}/screenshot-confirmation__pixel__expected.png`,
    ]);
    // The only script is the report's own slider script, and the page's policy lets no other run.
    expect(html.match(/<script/g)).toHaveLength(1);
    expect(html).toContain(`<script>${COMPARE_SCRIPT}</script>`);
    expect(html).toMatch(
      /<meta http-equiv="Content-Security-Policy" content="default-src 'none';[^"]* script-src 'sha256-/,
    );
    expect(html).toContain("http://evil.example/track.png");
    expect(html).toContain("javascript:alert(1)");
    expect(html).toContain("&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html.match(/not in the run folder/g)).toHaveLength(7);
  });
});

describe("log lines", () => {
  const tap: LogEntry = {
    api: "tap",
    prompt: "the checkout button",
    device: "google-pixel-7_14",
    outcome: "replayed",
    aiCalls: 0,
    models: [],
    durationMs: 12,
  };

  test("a prompt with a newline stays on one stderr line and cannot forge a heal notice", () => {
    const forged = `the pay button\ntapshot tap "the pay button" [google-pixel-7_14] healed, 1 AI call, 10 ms - ${HEALED_MESSAGE}`;
    const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
    const error = jest.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      consoleLogger({ ...tap, prompt: forged });
      expect(error).not.toHaveBeenCalled();
      expect(warn).toHaveBeenCalledTimes(1);
      const line = String(warn.mock.calls[0]![0]);
      expect(line).not.toMatch(CONTROL);
      expect(line).toBe(
        `tapshot tap "the pay button\\ntapshot tap "the pay button" [google-pixel-7_14] healed, 1 AI call, 10 ms - ` +
          `${HEALED_MESSAGE}" [google-pixel-7_14] replayed, 0 AI calls, 12 ms`,
      );
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });

  test("escape sequences in prompts, names, devices and model reasons reach the log as visible escapes", () => {
    const tapLine = formatLogLine({ ...tap, prompt: `a${ESCAPES}`, device: `d${ESCAPES}`, detail: `r${ESCAPES}` });
    expect(tapLine).not.toMatch(CONTROL);
    expect(tapLine).toBe(`tapshot tap "a${ESCAPED}" [d${ESCAPED}] replayed, 0 AI calls, 12 ms - r${ESCAPED}`);
    const shotLine = formatLogLine({ ...tap, api: "toMatchScreenshot", prompt: undefined, name: `n${ESCAPES}` });
    expect(shotLine).toBe(`tapshot screenshot "n${ESCAPED}" [google-pixel-7_14] replayed, 0 AI calls, 12 ms`);
  });
});

describe("the tapshot command", () => {
  const DEVICE = "fake-pixel-7_14";
  const PROMPT = `the evil button\nandroid / forged-device${ESCAPES}`;
  const MODEL = `model\u001b[2J`;
  const REASON = `reason\u001b]8;;http://evil.example\u0007link\u001b]8;;\u0007\u2028`;
  let storage: string;
  let results: string;

  beforeAll(async () => {
    storage = path.join(root, "cli", "storage");
    results = path.join(root, "cli", "results");
    await fs.mkdir(storage, { recursive: true });
    const phone = new FakeDevice(
      { background: "#fff", elements: [] },
      { model: `Fake\u001b[8m Pixel 7`, osVersion: "14" },
    );
    await storeTap(storage, PROMPT, {
      verify: `shows\u001b[1m the cart`,
      device: phone.description,
      model: MODEL,
      reason: REASON,
    });
  });

  const where = () => ["--storage", storage, "--results", results];

  test("list, show and prune print stored prompts, models and reasons escaped, while --json keeps them exact", async () => {
    for (const args of [["list"], ["show", "the evil button"], ["prune", "--dry-run", "--device", DEVICE]]) {
      const { code, stdout, stderr } = await runCli([...args, ...where()]);
      expect({ args, code, stderr }).toEqual({ args, code: 0, stderr: "" });
      expect(stdout).not.toMatch(CONTROL_BUT_NEWLINE);
      expect(stdout).toContain(args[0] === "show" ? PROMPT.split("\n")[0] + "\\nandroid / forged-device" : "\\n");
      expect(stdout.split("\n").filter((line) => line.trim().startsWith("android / forged-device"))).toEqual([]);
    }
    const shown = (await runCli(["show", "the evil button", ...where()])).stdout;
    expect(shown).toContain("model\\x1b[2J: reason\\x1b]8;;http://evil.example\\x07link\\x1b]8;;\\x07\\u2028");
    const json = JSON.parse((await runCli(["list", "--json", ...where()])).stdout);
    expect(json.taps[0].record).toEqual(expect.objectContaining({ prompt: PROMPT, model: MODEL, reason: REASON }));
  });

  test("error lines escape what the command line or a run folder named", async () => {
    const query = `\u001b]0;pwned\u0007missing\nforged line`;
    const show = await runCli(["show", query, ...where()]);
    expect(show.code).toBe(1);
    expect(show.stderr).toContain('nothing stored matches "\\x1b]0;pwned\\x07missing\\nforged line"');
    expect(show.stderr.trimEnd()).not.toMatch(CONTROL);
    const report = await runCli(["report", "--run", `\u001b[2Jrun\nforged`, ...where()]);
    expect(report.code).toBe(2);
    expect(report.stderr).toContain('No run "\\x1b[2Jrun\\nforged"');
    expect(report.stderr.trimEnd()).not.toMatch(CONTROL);
    const unknown = await runCli([`li\u001b[2Jst`, ...where()]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("li\\x1b[2Jst");
    expect(unknown.stderr).not.toMatch(CONTROL_BUT_NEWLINE);
  });
});
