/**
 * Comments cite only files of this repository: every `something.md` a source file names must
 * exist, and every "docs/design.md section N" must be a numbered section of that file.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");
const DIRS = ["src", "tests", "rig", "demo", "bench", "scripts", "examples"];

function files(): string[] {
  return DIRS.flatMap((dir) =>
    readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
      .filter((f) => /\.(ts|js|cjs|mjs|sh)$/.test(f) && !f.includes("node_modules"))
      .map((f) => join(ROOT, dir, f)),
  );
}

/** Markdown files a text cites: `docs/design.md`, `README.md`, `BENCHMARKS.md`. */
export function citedFiles(text: string): string[] {
  return [...text.matchAll(/(?<![\w/.-])((?:[\w-]+\/)*[\w-]+\.md)\b/g)].map((m) => m[1]!);
}

test("the citation scanner finds the files a comment names", () => {
  expect(citedFiles("/** See docs/design.md section 4 and README.md; not x.mdx. */")).toEqual([
    "docs/design.md",
    "README.md",
  ]);
});

test("every markdown file a source comment cites exists", () => {
  const missing = files()
    .filter((file) => !file.endsWith("citations.test.ts"))
    .flatMap((file) =>
      citedFiles(readFileSync(file, "utf8"))
        .filter((cited) => !existsSync(join(ROOT, cited)))
        .map((cited) => `${relative(ROOT, file)} cites ${cited}`),
    );
  expect(missing).toEqual([]);
});

test('every "docs/design.md section N" is a numbered section of the design doc', () => {
  const design = readFileSync(join(ROOT, "docs", "design.md"), "utf8");
  const sections = new Set([...design.matchAll(/^##\s+(\d+)\./gm)].map((m) => Number(m[1])));
  const wrong = files().flatMap((file) =>
    [...readFileSync(file, "utf8").matchAll(/docs\/design\.md section (\d+)/g)]
      .filter((m) => !sections.has(Number(m[1])))
      .map((m) => `${relative(ROOT, file)} cites section ${m[1]}`),
  );
  expect(wrong).toEqual([]);
});

const built = existsSync(join(ROOT, "dist", "runner", "index.d.ts"));

(built ? test : test.skip)(
  "the shipped declarations cite only what ships: docs/, README.md, no repository-only file",
  () => {
    const declarations = readdirSync(join(ROOT, "dist"), { recursive: true, encoding: "utf8" }).filter((f) =>
      /\.d\.c?ts$/.test(f),
    );
    const repoOnly =
      /(?<![\w.-])((?:src|rig|tests|bench|demo|examples|scripts)\/[\w./-]+|CONTRIBUTING\.md|BENCHMARKS\.md)/g;
    const found = declarations.flatMap((file) =>
      [...readFileSync(join(ROOT, "dist", file), "utf8").matchAll(repoOnly)].map((m) => `dist/${file} cites ${m[1]}`),
    );
    expect(found).toEqual([]);
  },
);
