/**
 * Comments cite only files of this repository: every `something.md` a source file names must
 * exist, and every "docs/design.md section N" must be a numbered section of that file.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { assertBuiltPackage } from "../support/built-package.js";

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

/** Repository paths a text names under src/, rig/, tests/, bench/, demo/ or scripts/: files (`src/core/run/call.ts`) and folders (`src/core/store/`). */
export function citedPaths(text: string): string[] {
  const path =
    /(?<![\w/.@-])((?:src|rig|tests|bench|demo|scripts)\/(?:[\w.-]+\/)*(?:[\w-]+\.(?:ts|js|cjs|mjs|sh|json)\b)?)/g;
  return [...text.matchAll(path)].map((m) => m[1]!).filter((p) => p.includes("/") && !p.endsWith("./"));
}

/** The markdown files of the repository that users and contributors read. */
function markdownFiles(): string[] {
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => join(ROOT, "docs", f));
  return [...["README.md", "CONTRIBUTING.md", "BENCHMARKS.md"].map((f) => join(ROOT, f)), ...docs];
}

test("the path scanner finds files and folders a text names", () => {
  expect(citedPaths("see src/core/run/call.ts and `src/core/store/`, not my-src/x.ts or tapshot/src")).toEqual([
    "src/core/run/call.ts",
    "src/core/store/",
  ]);
});

test("every src/..., rig/..., tests/... path a comment or doc names exists", () => {
  // The import-rules test names made-up files to test its checker.
  const missing = [...files(), ...markdownFiles()]
    .filter((file) => !file.endsWith("citations.test.ts") && !file.endsWith("import-rules.test.ts"))
    .flatMap((file) =>
      citedPaths(readFileSync(file, "utf8"))
        .filter((cited) => !existsSync(join(ROOT, cited)))
        .map((cited) => `${relative(ROOT, file)} names ${cited}`),
    );
  expect(missing).toEqual([]);
});

test("the shipped declarations cite only what ships: docs/, README.md, no repository-only file", () => {
  assertBuiltPackage();
  const declarations = readdirSync(join(ROOT, "dist"), { recursive: true, encoding: "utf8" }).filter((f) =>
    /\.d\.c?ts$/.test(f),
  );
  const repoOnly =
    /(?<![\w.-])((?:src|rig|tests|bench|demo|examples|scripts)\/[\w./-]+|CONTRIBUTING\.md|BENCHMARKS\.md)/g;
  const found = declarations.flatMap((file) =>
    [...readFileSync(join(ROOT, "dist", file), "utf8").matchAll(repoOnly)].map((m) => `dist/${file} cites ${m[1]}`),
  );
  expect(found).toEqual([]);
});

/**
 * Doc blocks of a declaration file that document nothing: followed by another doc block, a closing
 * brace, an import or a re-export list, or the end of the file. A source file's header written as
 * a doc block ends up so once the bundler drops its imports; headers open with a plain comment.
 */
export function danglingDocBlocks(text: string): { line: number; text: string }[] {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const found: { line: number; text: string }[] = [];
  let open: { pos: number; text: string } | undefined;
  for (let kind = scanner.scan(); ; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.WhitespaceTrivia || kind === ts.SyntaxKind.NewLineTrivia) continue;
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia) continue;
    const isDoc = kind === ts.SyntaxKind.MultiLineCommentTrivia && scanner.getTokenText().startsWith("/**");
    let attachedToNothing =
      isDoc ||
      kind === ts.SyntaxKind.EndOfFileToken ||
      kind === ts.SyntaxKind.CloseBraceToken ||
      kind === ts.SyntaxKind.ImportKeyword;
    if (open && kind === ts.SyntaxKind.ExportKeyword) {
      const after = ts.createScanner(ts.ScriptTarget.Latest, true, ts.LanguageVariant.Standard, text);
      after.resetTokenState(scanner.getTokenEnd());
      const next = after.scan();
      attachedToNothing = next === ts.SyntaxKind.OpenBraceToken || next === ts.SyntaxKind.AsteriskToken;
    }
    if (open && attachedToNothing) {
      found.push({
        line: text.slice(0, open.pos).split("\n").length,
        text: open.text.replace(/\s*\n\s*\*?/g, " ").slice(0, 100),
      });
    }
    open = isDoc ? { pos: scanner.getTokenStart(), text: scanner.getTokenText() } : undefined;
    if (kind === ts.SyntaxKind.EndOfFileToken) return found;
  }
}

test("the dangling doc block scanner finds blocks attached to nothing, and only those", () => {
  const code = [
    "import { x } from './x.js';",
    "/** a file header */",
    "/** Documents A. */",
    "interface A {",
    "  /** Documents a. */",
    "  a: string;",
    "  /** trailing, documents nothing */",
    "}",
    "// a line comment",
    "/** Documents B, past a line comment. */",
    "// between",
    "declare const B: 1;",
    "/** before a re-export list */",
    "export { A, B };",
    "/** Documents C. */",
    "export declare const C = '/** not a comment */';",
    "/** at the end */",
  ].join("\n");
  expect(danglingDocBlocks(code).map((d) => d.text)).toEqual([
    "/** a file header */",
    "/** trailing, documents nothing */",
    "/** before a re-export list */",
    "/** at the end */",
  ]);
});

test("the shipped declarations have no doc block attached to nothing", () => {
  assertBuiltPackage();
  const declarations = readdirSync(join(ROOT, "dist"), { recursive: true, encoding: "utf8" }).filter((f) =>
    /\.d\.c?ts$/.test(f),
  );
  const found = declarations.flatMap((file) =>
    danglingDocBlocks(readFileSync(join(ROOT, "dist", file), "utf8")).map((d) => `dist/${file}:${d.line} ${d.text}`),
  );
  expect(found).toEqual([]);
});
