/**
 * The demo, the benchmarks and the rig use tapshot as a user would: only through the entries
 * package.json exports (`tapshot/android`, `tapshot/adapter`...), never through src/. The
 * demo, the benchmarks and the rig do not import test code either (the model doubles and the
 * scripted channel live in rig/ for that).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { exports: Record<string, unknown> };
const ENTRIES = Object.keys(pkg.exports)
  .filter((k) => k !== "./package.json")
  .map((k) => `tapshot${k.slice(1)}`);

function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => /\.(ts|js|mjs|cjs)$/.test(f) && !f.includes("node_modules"))
    .map((f) => join(ROOT, dir, f));
}

/** Every module specifier of a file: static imports, re-exports and dynamic `import("...")`. */
function specifiers(file: string): string[] {
  return specifiersIn(readFileSync(file, "utf8"));
}

function specifiersIn(code: string): string[] {
  const found: string[] = [];
  for (const m of code.matchAll(
    /(?:^|\s)(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g,
  )) {
    found.push(m[1] ?? m[2]!);
  }
  return found;
}

function offenders(dirs: string[], bad: (spec: string) => boolean): string[] {
  return dirs.flatMap((dir) =>
    sources(dir).flatMap((file) =>
      specifiers(file)
        .filter(bad)
        .map((spec) => `${relative(ROOT, file)}: ${spec}`),
    ),
  );
}

test("the entries are what package.json exports", () => {
  expect(ENTRIES).toEqual(
    expect.arrayContaining([
      "tapshot/android",
      "tapshot/ios",
      "tapshot/runner",
      "tapshot/providers",
      "tapshot/adapter",
      "tapshot/wdio",
      "tapshot/s3",
    ]),
  );
});

test("demo/, bench/, rig/ and examples/ import tapshot only through its public entries", () => {
  const intoSrc = (spec: string) => /(^|\/)src\//.test(spec) || (spec.startsWith("tapshot") && !ENTRIES.includes(spec));
  expect(offenders(["demo", "bench", "rig", "examples"], intoSrc)).toEqual([]);
});

test("each example is a project of its own: it imports nothing outside its folder and only packages its package.json lists", () => {
  const found = readdirSync(join(ROOT, "examples")).flatMap((name) => {
    const dir = join(ROOT, "examples", name);
    const own = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    const listed = Object.keys({ ...own.dependencies, ...own.devDependencies });
    const outside = (spec: string) => {
      if (spec.startsWith(".")) return relative(dir, join(dir, spec)).startsWith("..");
      if (spec.startsWith("node:")) return false;
      const pkg = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]!;
      return !listed.includes(pkg);
    };
    return offenders([join("examples", name)], outside);
  });
  expect(found).toEqual([]);
});

test("the demo, the benchmarks and the rig import no test code", () => {
  expect(offenders(["demo", "bench", "rig"], (spec) => /(^|\/)tests\//.test(spec))).toEqual([]);
});

test("the scanner finds static, type-only, re-exported and dynamic imports", () => {
  const code = [
    'import { createPlatformApi } from "../src/core/engine.js";',
    'import type {\n  Box,\n} from "tapshot/runner";',
    'export { x } from "../tests/support/x.js";',
    'const m = await import("../src/runner/index.js");',
  ].join("\n");
  expect(specifiersIn(code)).toEqual([
    "../src/core/engine.js",
    "tapshot/runner",
    "../tests/support/x.js",
    "../src/runner/index.js",
  ]);
});
