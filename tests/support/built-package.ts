/**
 * The built package (dist/) that the package tests load as users do. Those tests fail, never skip, when it
 * is missing or older than src/: a skipped test passes a package nobody checked, and a stale build checks
 * code that is no longer the source. `npm test` builds before jest (package.json), as CI does.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");
/** Files every build writes; the oldest of them dates the build. */
const BUILT = ["dist/runner/index.cjs", "dist/runner/index.js", "dist/runner/index.d.ts"];

/** The newest modification time of a file under `folder`, in ms. */
function newestUnder(folder: string): { file: string; mtimeMs: number } {
  let newest = { file: folder, mtimeMs: 0 };
  for (const file of readdirSync(folder, { recursive: true, encoding: "utf8" })) {
    const stat = statSync(join(folder, file));
    const { mtimeMs } = stat;
    if (stat.isFile() && mtimeMs > newest.mtimeMs) newest = { file: join(folder, file), mtimeMs };
  }
  return newest;
}

/** What is wrong with dist/ for the package tests, or `undefined` when it is built from the current src/. */
export function builtPackageProblem(root = ROOT): string | undefined {
  const missing = BUILT.filter((file) => !existsSync(join(root, file)));
  if (missing.length) {
    const are = missing.length === 1 ? "is" : "are";
    return `The package tests load the built package, and ${missing.join(", ")} ${are} missing: run \`npx tsup\` (or \`npm run build\`) first; \`npm test\` builds before jest.`;
  }
  const builtAt = Math.min(...BUILT.map((file) => statSync(join(root, file)).mtimeMs));
  const source = newestUnder(join(root, "src"));
  if (source.mtimeMs > builtAt) {
    const changed = source.file.slice(root.length + 1);
    return `The package tests load the built package, and dist/ is older than ${changed}: run \`npx tsup\` (or \`npm run build\`) again.`;
  }
  return undefined;
}

/** Throw {@link builtPackageProblem}'s message: for a `beforeAll` of the tests that load dist/. */
export function assertBuiltPackage(): void {
  const problem = builtPackageProblem();
  if (problem) throw new Error(problem);
}
