/**
 * What `npm pack` ships: a user's install must get one copy of webdriverio (theirs), so the
 * package may name it only as a peer, and the built code may import it only for types.
 */
import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "..", "..");
const built = existsSync(join(ROOT, "dist", "runner", "index.cjs"));
const maybe = built ? test : test.skip;

interface PackedFile {
  path: string;
}

async function packedFiles(): Promise<string[]> {
  const { stdout } = await run("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], { cwd: ROOT });
  const [packed] = JSON.parse(stdout) as { files: PackedFile[] }[];
  return packed!.files.map((f) => f.path);
}

test("webdriverio is a peer (and dev) dependency only, never a dependency", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  expect(pkg.dependencies?.webdriverio).toBeUndefined();
  expect(pkg.peerDependencies?.webdriverio).toMatch(/^\^9/);
  expect(pkg.devDependencies?.webdriverio).toBeDefined();
});

maybe("the packed files are the build, the README and package.json: no tests, rig, demo or sources", async () => {
  const files = await packedFiles();
  expect(files).toContain("package.json");
  expect(files).toContain("README.md");
  expect(files).toContain("dist/android/index.js");
  const outside = files.filter((f) => !/^(dist\/|README\.md$|LICENSE$|package\.json$)/.test(f));
  expect(outside).toEqual([]);
});

maybe("no built file loads webdriverio at run time", () => {
  const offenders: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = join(dir, entry.name);
      if (entry.isDirectory()) walk(file);
      else if (/\.(c?js)$/.test(entry.name)) {
        const code = readFileSync(file, "utf8");
        if (/require\(["']webdriverio["']\)|from\s*["']webdriverio["']|import\(["']webdriverio["']\)/.test(code)) {
          offenders.push(file.slice(ROOT.length + 1));
        }
      }
    }
  };
  walk(join(ROOT, "dist"));
  expect(offenders).toEqual([]);
});
