/**
 * The allowed import directions (docs/design.md section 1), pinned as Playwright pins its own:
 * each folder of src/core has a DEPS.json that lists the core folders (or single files) it may
 * import; imports inside the folder are always allowed. Besides: nothing in src/core imports a
 * module outside it or WebdriverIO, and no import circle exists anywhere in src.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");
const SRC = join(ROOT, "src");
const CORE = join(SRC, "core");

/** One import: the file that imports, and what it names. */
interface Arrow {
  from: string;
  to: string;
}

/** Every `import ... from "x"`, `export ... from "x"` and `import("x")` of a source text. */
export function specifiers(text: string): string[] {
  const found = [
    ...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s*["']([^"']+)["']/gms),
    ...text.matchAll(/^\s*import\s*["']([^"']+)["']/gm),
    ...text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g),
  ];
  return found.map((m) => m[1]!);
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts"))
    .map((f) => join(dir, f));
}

/** Arrows between files (repository-relative paths), and the npm packages each file imports. */
function readGraph(): { arrows: Arrow[]; packages: Arrow[] } {
  const arrows: Arrow[] = [];
  const packages: Arrow[] = [];
  for (const file of sourceFiles(SRC)) {
    const from = relative(ROOT, file);
    for (const spec of specifiers(readFileSync(file, "utf8"))) {
      if (!spec.startsWith(".")) {
        packages.push({ from, to: spec });
        continue;
      }
      const target = resolve(dirname(file), spec.replace(/\.js$/, ".ts"));
      if (!existsSync(target)) throw new Error(`${from} imports ${spec}, which does not exist`);
      arrows.push({ from, to: relative(ROOT, target) });
    }
  }
  return { arrows, packages };
}

/** A folder's rule: where it is (relative to src/core) and what it may import. */
export interface FolderRule {
  folder: string;
  imports: string[];
}

function readRules(): FolderRule[] {
  return sourceFiles(CORE)
    .map((f) => dirname(f))
    .filter((d, i, all) => all.indexOf(d) === i && existsSync(join(d, "DEPS.json")))
    .map((d) => ({
      folder: relative(CORE, d),
      imports: (JSON.parse(readFileSync(join(d, "DEPS.json"), "utf8")) as { imports: string[] }).imports,
    }));
}

/** The rule of the deepest folder with a DEPS.json that holds `path` (relative to src/core). */
function ruleOf(path: string, rules: FolderRule[]): FolderRule | undefined {
  return rules.filter((r) => path.startsWith(`${r.folder}/`)).sort((a, b) => b.folder.length - a.folder.length)[0];
}

/** Arrows of src/core that break a folder's DEPS.json, each said as "from -> to (rule)". */
export function forbiddenArrows(arrows: Arrow[], rules: FolderRule[]): string[] {
  const core = "src/core/";
  const problems: string[] = [];
  for (const { from, to } of arrows) {
    if (!from.startsWith(core)) continue;
    if (!to.startsWith(core)) {
      problems.push(`${from} -> ${to}: core imports nothing outside src/core`);
      continue;
    }
    const source = ruleOf(from.slice(core.length), rules);
    if (!source) {
      problems.push(`${from}: its folder has no DEPS.json`);
      continue;
    }
    const target = to.slice(core.length);
    if (target.startsWith(`${source.folder}/`)) continue;
    const allowed = source.imports.some((entry) =>
      entry.endsWith(".ts") ? target === entry : target.startsWith(`${entry}/`),
    );
    if (!allowed) {
      problems.push(
        `${from} -> ${to}: src/core/${source.folder}/DEPS.json allows only ${source.imports.join(", ") || "nothing"}`,
      );
    }
  }
  return problems;
}

/** Packages core must not import: core knows no platform (docs/design.md section 1). */
export function forbiddenPackages(packages: Arrow[]): string[] {
  return packages
    .filter(({ from, to }) => from.startsWith("src/core/") && /^(webdriverio|@wdio\/|tapshot\/)/.test(to))
    .map(({ from, to }) => `${from} imports ${to}`);
}

/** Every import circle, as the files on it in order (Tarjan's strongly connected components). */
export function importCircles(arrows: Arrow[]): string[][] {
  const next = new Map<string, string[]>();
  for (const { from, to } of arrows) next.set(from, [...(next.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  let counter = 0;
  const visit = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter++);
    stack.push(node);
    onStack.add(node);
    for (const to of next.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let top: string;
    do {
      top = stack.pop()!;
      onStack.delete(top);
      component.push(top);
    } while (top !== node);
    if (component.length > 1 || (next.get(node) ?? []).includes(node)) circles.push(component.reverse());
  };
  for (const node of next.keys()) if (!index.has(node)) visit(node);
  return circles;
}

describe("the checker", () => {
  const rules: FolderRule[] = [
    { folder: "pixels", imports: ["ground/geometry.ts"] },
    { folder: "flows/tap", imports: ["run", "pixels"] },
    { folder: "flows/screenshot", imports: ["run"] },
  ];

  test("reads import, export and dynamic import specifiers", () => {
    const text =
      'import a from "./a.js";\nexport { b } from "../b.js";\nimport type {\n  C,\n} from "./c.js";\nconst d = await import("./d.js");';
    expect(specifiers(text)).toEqual(["./a.js", "../b.js", "./c.js", "./d.js"]);
  });

  test("names an arrow a DEPS.json does not allow, and allows arrows inside a folder", () => {
    const arrows = [
      { from: "src/core/flows/tap/a.ts", to: "src/core/flows/screenshot/b.ts" },
      { from: "src/core/pixels/x.ts", to: "src/core/ground/errors.ts" },
      { from: "src/core/pixels/x.ts", to: "src/core/ground/geometry.ts" },
      { from: "src/core/flows/tap/scroll/y.ts", to: "src/core/flows/tap/a.ts" },
      { from: "src/core/flows/tap/a.ts", to: "src/core/run/call.ts" },
      { from: "src/core/run/call.ts", to: "src/appium/index.ts" },
    ];
    expect(forbiddenArrows(arrows, rules)).toEqual([
      "src/core/flows/tap/a.ts -> src/core/flows/screenshot/b.ts: src/core/flows/tap/DEPS.json allows only run, pixels",
      "src/core/pixels/x.ts -> src/core/ground/errors.ts: src/core/pixels/DEPS.json allows only ground/geometry.ts",
      "src/core/run/call.ts -> src/appium/index.ts: core imports nothing outside src/core",
    ]);
  });

  test("finds circles, type-only ones too, and not a diamond", () => {
    const arrows = [
      { from: "a", to: "b" },
      { from: "b", to: "c" },
      { from: "c", to: "a" },
      { from: "d", to: "e" },
      { from: "d", to: "f" },
      { from: "e", to: "g" },
      { from: "f", to: "g" },
    ];
    expect(importCircles(arrows)).toEqual([["a", "b", "c"]]);
  });

  test("names webdriverio imported in core", () => {
    expect(forbiddenPackages([{ from: "src/core/run/call.ts", to: "webdriverio" }])).toEqual([
      "src/core/run/call.ts imports webdriverio",
    ]);
  });
});

describe("src", () => {
  const { arrows, packages } = readGraph();

  test("every folder of src/core with source files has a DEPS.json", () => {
    const folders = sourceFiles(CORE).map((f) => relative(CORE, dirname(f)));
    const rules = readRules();
    const without = [...new Set(folders)].filter((f) => !ruleOf(`${f}/x.ts`, rules));
    expect(without).toEqual([]);
    expect(sourceFiles(CORE).filter((f) => dirname(f) === CORE)).toEqual([]);
  });

  test("every import in src/core follows its folder's DEPS.json", () => {
    expect(forbiddenArrows(arrows, readRules())).toEqual([]);
  });

  test("nothing in src/core imports webdriverio or a public entry", () => {
    expect(forbiddenPackages(packages)).toEqual([]);
  });

  test("no import circle anywhere in src", () => {
    expect(importCircles(arrows)).toEqual([]);
  });

  test("a flow imports no other flow but the shared helpers (find builds on the tap flow); those import no flow", () => {
    const flowOf = (path: string) => /^src\/core\/flows\/([^/]+)\//.exec(path)?.[1];
    const between = arrows
      .map(({ from, to }) => ({ from: flowOf(from), to: flowOf(to) }))
      .filter((a): a is { from: string; to: string } => !!a.from && !!a.to && a.from !== a.to)
      .map(({ from, to }) => `${from} -> ${to}`);
    expect([...new Set(between)].sort()).toEqual(["act -> shared", "find -> tap", "tap -> shared"]);
  });
});
