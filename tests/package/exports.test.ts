/**
 * The built package as users load it: every entry through the package's own `exports`, from
 * CommonJS and from ESM, in a plain Node process (no jest module system), plus the bin.
 * Runs after `npm run build` (the test command builds first).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { assertBuiltPackage } from "../support/built-package.js";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "..", "..");
const ENTRIES = [
  "tapshot/android",
  "tapshot/ios",
  "tapshot/runner",
  "tapshot/providers",
  "tapshot/adapter",
  "tapshot/images",
  "tapshot/wdio",
  "tapshot/s3",
];

beforeAll(assertBuiltPackage);

async function node(args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, args, { cwd: ROOT });
  return stdout.trim();
}

test.each(ENTRIES)("%s loads from CommonJS and ESM with the same exports", async (entry) => {
  const cjs = await node(["-e", `console.log(Object.keys(require(${JSON.stringify(entry)})).sort().join(","))`]);
  const esm = await node([
    "--input-type=module",
    "-e",
    `const m = await import(${JSON.stringify(entry)}); console.log(Object.keys(m).filter((k) => k !== "default").sort().join(","))`,
  ]);
  expect(cjs).toBe(esm);
  const names = cjs.split(",");
  if (entry.endsWith("android") || entry.endsWith("ios"))
    expect(names).toEqual(expect.arrayContaining(["tap", "expect"]));
  if (entry.endsWith("runner"))
    expect(names).toEqual(expect.arrayContaining(["configureAi", "resetAi", "TapshotError"]));
  if (entry.endsWith("adapter"))
    expect(names).toEqual(expect.arrayContaining(["createPlatformApi", "appiumAdapter", "tapActions", "DeviceError"]));
  if (entry.endsWith("images")) expect(names).toEqual(expect.arrayContaining(["compare", "decode", "systemBarMasks"]));
  if (entry.endsWith("wdio"))
    expect(names).toEqual(expect.arrayContaining(["TapshotService", "addAiCommands", "aiMatchers", "TapshotError"]));
  if (entry.endsWith("s3")) expect(names).toEqual(expect.arrayContaining(["s3Store", "S3Store"]));
  if (entry.endsWith("runner")) expect(names).toEqual(expect.arrayContaining(["layeredStore"]));
  if (entry.endsWith("providers"))
    expect(names).toEqual(expect.arrayContaining(["gemini", "openai", "azureOpenai", "ocr"]));
});

test("every entry ships its .d.ts and .d.cts types", () => {
  for (const dir of ["android", "ios", "runner", "providers", "adapter", "images", "wdio", "s3"]) {
    expect(existsSync(join(ROOT, "dist", dir, "index.d.ts"))).toBe(true);
    expect(existsSync(join(ROOT, "dist", dir, "index.d.cts"))).toBe(true);
  }
});

test("the tapshot bin prints its help", async () => {
  const out = await node([join(ROOT, "dist", "cli", "main.js"), "--help"]);
  expect(out).toMatch(/Usage: tapshot/);
  expect(out).toMatch(/list/);
  expect(out).toMatch(/report/);
});

test("helpers users do not need are not exported by any entry", async () => {
  const internal = ["clause", "isCi", "serviceMode", "setRunningTest", "firstOf", "once", "TAP_HOLD_MS"];
  for (const entry of ENTRIES) {
    const names = (
      await node(["-e", `console.log(Object.keys(require(${JSON.stringify(entry)})).sort().join(","))`])
    ).split(",");
    expect({ entry, exported: names.filter((n) => internal.includes(n)) }).toEqual({ entry, exported: [] });
  }
});

test("every error class tapshot throws is exported by src/errors.ts, which every entry re-exports", async () => {
  const { readFileSync } = await import("node:fs");
  const thrown = [
    ...readFileSync(join(ROOT, "src", "core", "ground", "errors.ts"), "utf8").matchAll(/^export class (\w+Error)\b/gm),
  ].map((m) => m[1]!);
  const exported = readFileSync(join(ROOT, "src", "errors.ts"), "utf8");
  expect(thrown.filter((name) => !new RegExp(`^\\s+${name},$`, "m").test(exported))).toEqual([]);
  expect(thrown.length).toBeGreaterThan(10);
});
