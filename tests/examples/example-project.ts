/*
 * Runs a copyable example (examples/<name>) as its own project against the rig: a copy outside
 * the repository, run through its own package.json script, with the Appium URL, capabilities and
 * start page in the environment its README documents. Its node_modules holds only the packages its
 * package.json lists, linked as an install would place them: tapshot to this repository (the built
 * package: `npm run build` first), the others to this repository's copies, so each must be one of
 * this repository's dependencies at the same range.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, mkdtemp, readFile, symlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { freePort } from "../../rig/ports.js";
import { capabilitiesFor, type PhoneProfile } from "../../rig/profiles.js";
import type { Rig } from "../../rig/session.js";

export const ROOT = join(import.meta.dirname, "..", "..");
/** Loaded into the example's process for the rig (never by the example itself). */
export const RIG_DEVICE = join(import.meta.dirname, "rig-device.ts");
const TSX_LOADER = join(ROOT, "node_modules", "tsx", "dist", "loader.mjs");

interface PackageJson {
  version?: string;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

const readJson = async (file: string) => JSON.parse(await readFile(file, "utf8")) as PackageJson;
const wantedBy = (own: PackageJson) => ({ ...own.dependencies, ...own.devDependencies });

/** What an example's package.json asks for that this repository cannot give it: one line per problem. */
export async function dependencyProblems(dir: string): Promise<string[]> {
  const root = await readJson(join(ROOT, "package.json"));
  const have = { ...root.dependencies, ...root.devDependencies };
  return Object.entries(wantedBy(await readJson(join(dir, "package.json")))).flatMap(([name, range]) => {
    if (name === "tapshot") return range === `^${root.version}` ? [] : [`tapshot: "${range}", not "^${root.version}"`];
    return have[name] === range ? [] : [`${name}: "${range}", but this repository has "${have[name] ?? "none"}"`];
  });
}

/** Copy examples/<name> into `scratch` and install what its package.json lists, by links; returns the copy. */
export async function installExample(name: string, scratch: string): Promise<string> {
  if (!existsSync(join(ROOT, "dist", "wdio", "index.js"))) {
    throw new Error("The examples run the built package: run `npm run build` first (npm test does).");
  }
  const dir = join(await mkdtemp(join(scratch, `${name}-`)), name);
  await cp(join(ROOT, "examples", name), dir, { recursive: true });
  const modules = join(dir, "node_modules");
  for (const dependency of Object.keys(wantedBy(await readJson(join(dir, "package.json"))))) {
    const link = join(modules, dependency);
    await mkdir(dirname(link), { recursive: true });
    await symlink(dependency === "tapshot" ? ROOT : join(ROOT, "node_modules", dependency), link, "dir");
  }
  await symlink(join(ROOT, "node_modules", ".bin"), join(modules, ".bin"), "dir");
  return dir;
}

/**
 * The environment an example runs with on the rig: no model key, no tapshot setting from this
 * process, the rig's Appium server and `profile`'s Chromium capabilities (with their own
 * chromedriver port and browser profile under `scratch`), and the demo shop's cart as start page.
 */
export async function rigEnvironment(rig: Rig, profile: PhoneProfile, scratch: string): Promise<NodeJS.ProcessEnv> {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!/^(TAPSHOT_|GEMINI_|GOOGLE_|OPENAI_|AZURE_OPENAI_|npm_)/i.test(name) && name !== "NODE_OPTIONS") {
      env[name] = value;
    }
  }
  const capabilities = capabilitiesFor(profile, {
    chromedriverPort: await freePort(),
    userDataDir: await mkdtemp(join(scratch, "chromium-")),
  });
  return {
    ...env,
    APPIUM_URL: rig.appium.url,
    APPIUM_CAPABILITIES: JSON.stringify(capabilities),
    START_URL: rig.demo.pageUrl("cart", { seed: 1, bars: { ...profile.bars, platform: profile.platform } }),
    SHOP_URL: rig.demo.url,
    TAPSHOT_RIG_PROFILE: profile.id,
    // The wdio testrunner and the plain script load the rig's device through a preload (Jest: setupFiles).
    NODE_OPTIONS: `--import ${pathToFileURL(TSX_LOADER).href} --import ${pathToFileURL(RIG_DEVICE).href}`,
  };
}

/** Type-check the example as its own project (its tsconfig.json, tapshot's shipped types); resolves with tsc's output. */
export function typeCheck(dir: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", join(dir, "tsconfig.json")],
      { cwd: dir, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}${stderr}` });
      },
    );
  });
}

/** `npm run <script> -- <args>` in the example; resolves with its exit code and output (never rejects). */
export function npmRun(
  dir: string,
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      "npm",
      ["run", "--silent", script, ...(args.length ? ["--", ...args] : [])],
      { cwd: dir, env, maxBuffer: 16 * 1024 * 1024, timeout: 280_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, output: `${stdout}\n${stderr}` });
      },
    );
  });
}
