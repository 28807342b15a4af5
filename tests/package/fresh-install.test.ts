/**
 * The package as a user gets it: `npm pack`, then a fresh project that installs only the tarball and
 * webdriverio (no optional peer: no @aws-sdk/client-s3, no OCR engine, no appium). Needs `npm run build` first and
 * the npm registry (or npm's cache) for the install.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { assertBuiltPackage } from "../support/built-package.js";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "..", "..");

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

let dir: string;

/** Run a command in the fresh project; resolves with its exit code and output (never rejects). */
function inProject(file: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<Ran> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd: dir, env: { ...process.env, NODE_OPTIONS: "", DEBUG: "", ...env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

const node = (args: string[], env?: NodeJS.ProcessEnv) => inProject(process.execPath, args, env);
const tapshot = (args: string[], env?: NodeJS.ProcessEnv) =>
  node([join(dir, "node_modules", "tapshot", "dist", "cli", "main.js"), ...args], env);

describe("a fresh project with only the packed tarball and webdriverio", () => {
  beforeAll(assertBuiltPackage);
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "tapshot-fresh-"));
    await run("npm", ["pack", "--pack-destination", dir, "--ignore-scripts"], { cwd: ROOT });
    const [tarball] = (await readdir(dir)).filter((f) => f.endsWith(".tgz"));
    await writeFile(join(dir, "package.json"), JSON.stringify({ name: "fresh", private: true, type: "module" }));
    await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", `./${tarball}`, "webdriverio@^9"], {
      cwd: dir,
      env: { ...process.env, NODE_OPTIONS: "" },
      maxBuffer: 16 * 1024 * 1024,
    });
  }, 600_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  });

  test("the optional S3 SDK is not installed there", () => {
    expect(existsSync(join(dir, "node_modules", "@aws-sdk", "client-s3"))).toBe(false);
  });

  test("without appium, tapshot/plugin imports from ESM and CommonJS; its class extends the stand-in", async () => {
    expect(existsSync(join(dir, "node_modules", "appium"))).toBe(false);
    await writeFile(
      join(dir, "plugin.mjs"),
      `import { createRequire } from "node:module";
const esm = await import("tapshot/plugin");
const cjs = createRequire(import.meta.url)("tapshot/plugin");
const plugin = new esm.TapshotPlugin("tapshot", { provider: "ocr" });
// BasePlugin's own method and logger are absent: the class extends the stand-in in both builds.
const bases = [esm, cjs].map((m) => Object.getPrototypeOf(m.TapshotPlugin));
console.log(JSON.stringify([bases[0].name, bases.map((b) => typeof b.prototype.executeMethod), typeof plugin.log, plugin.name, plugin.cliArgs]));
`,
    );
    const ran = await node(["plugin.mjs"]);
    expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: "" });
    expect(JSON.parse(ran.stdout.trim())).toEqual([
      "StandalonePluginBase",
      ["undefined", "undefined"],
      "undefined",
      "tapshot",
      { provider: "ocr" },
    ]);
  });

  test("s3Store without the SDK: no unhandled rejection; the awaiting call gets the ConfigError", async () => {
    await writeFile(
      join(dir, "s3.mjs"),
      `import { s3Store } from "tapshot/s3";
const store = s3Store({ bucket: "team-bucket" });
await new Promise((resolve) => setTimeout(resolve, 300));
try {
  await store.list("tap");
  console.log("listed");
} catch (error) {
  console.log(error.name + ": " + error.message);
}
`,
    );
    const ran = await node(["--unhandled-rejections=strict", "s3.mjs"]);
    expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: "" });
    expect(ran.stdout.trim()).toBe(
      "ConfigError: s3Store needs the AWS SDK for JavaScript v3, which is an optional peer dependency of tapshot: " +
        "run `npm install --save-dev @aws-sdk/client-s3` in your project.",
    );
  });

  test("the tapshot command's errors are one line; --debug or DEBUG adds the stack trace", async () => {
    const line =
      "tapshot: error: s3Store needs the AWS SDK for JavaScript v3, which is an optional peer dependency of tapshot: " +
      "run `npm install --save-dev @aws-sdk/client-s3` in your project.\n";
    for (const args of [
      ["list", "--store", "s3://team-bucket"],
      ["pull", "--from", "s3://team-bucket", "--storage", "."],
    ]) {
      const ran = await tapshot(args);
      expect({ args, code: ran.code, stderr: ran.stderr }).toEqual({ args, code: 1, stderr: line });
    }
    const debug = await tapshot(["list", "--debug", "--store", "s3://team-bucket"]);
    expect(debug.code).toBe(1);
    expect(debug.stderr.startsWith(line)).toBe(true);
    expect(debug.stderr).toMatch(/\n {4}at .*S3Store\.list/);
    const env = await tapshot(["list", "--store", "s3://team-bucket"], { DEBUG: "1" });
    expect(env.stderr.split("\n").length).toBeGreaterThan(3);
  });

  test("one configuration per process: configured through one build, used through the other", async () => {
    await writeFile(
      join(dir, "dual.mjs"),
      `import { createRequire } from "node:module";
import sharp from "sharp";
const require = createRequire(import.meta.url);
const [configuredBy, calledBy] = process.argv.slice(2);
const load = (build, entry) => (build === "cjs" ? require(entry) : import(entry));
const { configureAi } = await load(configuredBy, "tapshot/runner");
const { createPlatformApi } = await load(calledBy, "tapshot/adapter");
const screen = await sharp({ create: { width: 100, height: 200, channels: 3, background: "#ffffff" } }).png().toBuffer();
const logged = [];
configureAi({ mode: "replay", storageDir: "storage", resultsDir: false, log: (entry) => logged.push(entry.outcome) });
const phone = createPlatformApi({
  platform: "android",
  open: () => ({
    describe: async () => ({
      platform: "android", model: "Test Phone", osVersion: "14", screen: { width: 100, height: 200 }, scale: 1,
      insets: { top: 0, bottom: 0, left: 0, right: 0 }, orientation: "portrait",
    }),
    screenshot: async () => screen,
    tap: async () => undefined,
  }),
});
try {
  await phone.tap({}, "the checkout button", { timeout: 10000 });
} catch (error) {
  console.log(JSON.stringify({ name: error.name, code: error.code, logged }));
}
`,
    );
    for (const [configuredBy, calledBy] of [
      ["cjs", "esm"],
      ["esm", "cjs"],
    ]) {
      const ran = await node(["dual.mjs", configuredBy!, calledBy!]);
      // Mode "replay" and the log function reached the other build: nothing stored, and one log entry.
      expect({ configuredBy, out: JSON.parse(ran.stdout || "null"), stderr: ran.stderr }).toEqual({
        configuredBy,
        out: { name: "NotStoredError", code: "not-stored", logged: ["failed"] },
        stderr: "",
      });
    }
  });

  test("tapshot's declarations compile with skipLibCheck false, from ESM and CommonJS, without optional peers", async () => {
    const entries = ["android", "ios", "runner", "providers", "adapter", "images", "wdio", "s3"];
    await writeFile(
      join(dir, "check.ts"),
      entries.map((e) => `import * as ${e} from "tapshot/${e}";`).join("\n") + `\nexport const all = [${entries}];\n`,
    );
    await writeFile(
      join(dir, "check.cts"),
      entries.map((e) => `import ${e} = require("tapshot/${e}");`).join("\n") + `\nexport const all = [${entries}];\n`,
    );
    await writeFile(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          types: ["node"],
        },
        include: ["check.ts", "check.cts"],
      }),
    );
    const ran = await node([join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", "."]);
    const errors = ran.stdout.split("\n").filter((l) => /error TS/.test(l));
    // webdriverio 9's own declarations do not compile with skipLibCheck false (puppeteer-core is not
    // installed, URLPattern is declared twice): what must hold is that no error is in tapshot's files or ours.
    const ours = errors.filter((l) => !l.startsWith("node_modules/") || l.startsWith("node_modules/tapshot/"));
    expect(ours).toEqual([]);
    expect(errors.every((l) => /^node_modules\/(webdriverio|@types\/node|urlpattern-polyfill)\//.test(l))).toBe(true);
  }, 120_000);
});
