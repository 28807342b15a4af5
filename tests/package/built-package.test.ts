/** The package tests' guard on dist/ (tests/support/built-package.ts): missing or stale is a failure with what to run. */
import { mkdir, mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { builtPackageProblem } from "../support/built-package.js";

/** A source file of the temporary project, spelled in parts: this file cites no path of the repository. */
const SOURCE = ["src", "core", "a.ts"];
let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "tapshot-built-"));
  await mkdir(join(root, ...SOURCE.slice(0, -1)), { recursive: true });
  await writeFile(join(root, ...SOURCE), "export {};\n");
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function build(at: Date): Promise<void> {
  await mkdir(join(root, "dist", "runner"), { recursive: true });
  for (const file of ["index.cjs", "index.js", "index.d.ts"]) {
    await writeFile(join(root, "dist", "runner", file), "");
    await utimes(join(root, "dist", "runner", file), at, at);
  }
}

test("no dist/ names the missing files and the command that builds them", () => {
  expect(builtPackageProblem(root)).toBe(
    "The package tests load the built package, and dist/runner/index.cjs, dist/runner/index.js, " +
      "dist/runner/index.d.ts are missing: run `npx tsup` (or `npm run build`) first; `npm test` builds before jest.",
  );
});

test("a dist/ older than a source file names that file", async () => {
  await build(new Date(Date.now() - 60_000));
  expect(builtPackageProblem(root)).toBe(
    `The package tests load the built package, and dist/ is older than ${SOURCE.join("/")}: run \`npx tsup\` ` +
      "(or `npm run build`) again.",
  );
});

test("a dist/ built after the last source change is fine", async () => {
  await build(new Date(Date.now() + 60_000));
  expect(builtPackageProblem(root)).toBeUndefined();
});
