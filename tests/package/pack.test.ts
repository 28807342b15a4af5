/**
 * What `npm pack` ships: a user's install must get one copy of webdriverio (theirs), so the
 * package may name it only as a peer, and the built code may import it only for types.
 */
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { assertBuiltPackage } from "../support/built-package.js";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "..", "..");
beforeAll(assertBuiltPackage);

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

test("the packed files are the build, the docs, README, LICENSE and package.json: no tests, rig, demo or sources", async () => {
  const files = await packedFiles();
  expect(files).toEqual(expect.arrayContaining(["package.json", "README.md", "LICENSE", "docs/api.md"]));
  expect(files).toContain("dist/android/index.js");
  const outside = files.filter((f) => !/^(dist\/|docs\/|README\.md$|LICENSE$|package\.json$)/.test(f));
  expect(outside).toEqual([]);
});

test("package.json names the repository, homepage, bugs and keywords; LICENSE is the MIT license it declares", () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  expect(pkg.repository).toEqual({ type: "git", url: expect.stringMatching(/^git\+https:\/\/github\.com\/.+\.git$/) });
  expect(pkg.homepage).toBe(`${repositoryUrl()}#readme`);
  expect(pkg.bugs).toEqual({ url: `${repositoryUrl()}/issues` });
  expect(pkg.keywords).toEqual(expect.arrayContaining(["appium", "webdriverio"]));
  expect(pkg.license).toBe("MIT");
  expect(readFileSync(join(ROOT, "LICENSE"), "utf8")).toMatch(/^MIT License\n/);
});

/** The repository's web address, from package.json's `repository`. */
function repositoryUrl(): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
  return String(pkg.repository.url)
    .replace(/^git\+/, "")
    .replace(/\.git$/, "");
}

/** The links of a markdown text, without `#anchor`s; in-page anchors are left out. */
function linksOf(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!.split("#")[0]!).filter(Boolean);
}

test("every link of the README and the shipped docs opens from the package: shipped files, or the repository", async () => {
  const files = await packedFiles();
  const shipped = new Set(files);
  const dead: string[] = [];
  for (const doc of files.filter((f) => f.endsWith(".md"))) {
    for (const link of linksOf(readFileSync(join(ROOT, doc), "utf8"))) {
      if (/^https?:\/\//.test(link)) {
        if (link.startsWith("https://github.com/") && !link.startsWith(`${repositoryUrl()}/`)) {
          dead.push(`${doc}: ${link} (not this repository)`);
        }
        continue;
      }
      const target = join(dirname(doc), link).replace(/\/$/, "");
      if (!shipped.has(target)) dead.push(`${doc}: ${link} (${target} is not in the package)`);
    }
  }
  expect(dead).toEqual([]);
  // The README's docs links are relative, so they open in node_modules as well as on npm.
  expect(linksOf(readFileSync(join(ROOT, "README.md"), "utf8"))).toContain("docs/api.md");
});

// The one exception is the MCP server (dist/mcp): start_session { appiumUrl } opens a session itself, with the
// user's webdriverio (a peer dependency), loaded only then; and the tests it writes import it.
const OPENS_ITS_OWN_SESSIONS = new Set(["dist/mcp/index.js", "dist/mcp/index.cjs"]);

test("no built file but the MCP server loads webdriverio at run time", () => {
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
  expect(offenders.filter((file) => !OPENS_ITS_OWN_SESSIONS.has(file))).toEqual([]);
});

test("the README is for users first; this repository's two set-up commands come last, under Working on tapshot", () => {
  const readme = readFileSync(join(ROOT, "README.md"), "utf8");
  const headings = [...readme.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
  const at = (h: string) => headings.indexOf(h);
  expect(at("What you need")).toBeGreaterThanOrEqual(0);
  expect(at("What you need")).toBeLessThan(at("Quick start: Android"));
  expect(at("Quick start: iOS")).toBeLessThan(at("Working on tapshot"));
  expect(readme).toMatch(/appium driver install uiautomator2/);
  expect(readme).toMatch(/appium driver install xcuitest/);
  const setup = readme.split("\n").filter((l) => l.startsWith("bash scripts/setup.sh"));
  expect(setup.map((l) => l.split("#")[0]!.trim())).toEqual([
    "bash scripts/setup.sh && npm run demo",
    "bash scripts/setup.sh && npm test",
  ]);
  expect(readme.indexOf("bash scripts/setup.sh")).toBeGreaterThan(readme.indexOf("## Working on tapshot"));
  // .ci/run runs the README's test command (on the full Node line of scripts/node-lines.txt).
  expect(readFileSync(join(ROOT, ".ci", "run"), "utf8")).toMatch(/^\s*npm test /m);
});
