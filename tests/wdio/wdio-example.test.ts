/**
 * The WebdriverIO + Mocha example (examples/wdio-mocha) run as its users run it, `npm test` through
 * its own package.json (the real `wdio` testrunner), against the rig's Appium server and emulated
 * iPhone 15 given through the environment its README documents, with `CI` set and no model: the
 * service must put the run in mode "replay" (the committed demo values are replayed), add
 * `browser.aiTap` and the matcher, name an unnamed baseline after its test, and attach a failure's
 * images to the Allure results. tests/wdio/specs/failures.e2e.ts adds the failures to report.
 */
import { execFile } from "node:child_process";
import { cp, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { iphone15 } from "../../rig/profiles.js";
import { startRig, type Rig } from "../../rig/session.js";
import { dependencyProblems, installExample, npmRun, rigEnvironment, typeCheck } from "../examples/example-project.js";

const ROOT = join(import.meta.dirname, "..", "..");
const WDIO = join(ROOT, "node_modules", "@wdio", "cli", "bin", "wdio.js");
const EXAMPLE = join(ROOT, "examples", "wdio-mocha");
/** The example installed as its own project, outside the repository. */
let project: string;
const FAILURES = join(ROOT, "tests", "wdio", "specs", "failures.e2e.ts");

interface AllureStep {
  name: string;
  attachments?: { name: string; source: string; type: string }[];
  steps?: AllureStep[];
}
interface AllureResult extends AllureStep {
  status: string;
  statusDetails?: { message?: string };
}

let rig: Rig;
let dir: string;
let run: { code: number; output: string };
let results: AllureResult[];
let env: NodeJS.ProcessEnv;

/** The example's `npm test` (`wdio run wdio.conf.ts`) on these specs; resolves with its exit code and output. */
const example = (env: NodeJS.ProcessEnv, specs: string[]) =>
  npmRun(
    project,
    "test",
    specs.flatMap((s) => ["--spec", s]),
    env,
  );

/** Run `wdio run` with a config of this repository; resolves with its exit code and output (never rejects). */
function wdio(conf: string, env: NodeJS.ProcessEnv, specs: string[] = []): Promise<{ code: number; output: string }> {
  const args = [WDIO, "run", conf, ...specs.flatMap((s) => ["--spec", s])];
  return new Promise((resolve) => {
    execFile(process.execPath, args, { cwd: ROOT, env, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, output: `${stdout}\n${stderr}` });
    });
  });
}

/** Every step of a result, depth first. */
const stepsOf = (step: AllureStep): AllureStep[] => (step.steps ?? []).flatMap((s) => [s, ...stepsOf(s)]);
const attachmentsOf = (result: AllureResult) => [result, ...stepsOf(result)].flatMap((s) => s.attachments ?? []);
const resultNamed = (name: string) => {
  const found = results.find((r) => r.name === name);
  if (!found) throw new Error(`no Allure result "${name}"; got ${results.map((r) => r.name).join(", ")}`);
  return found;
};

beforeAll(async () => {
  rig = await startRig();
  dir = await mkdtemp(join(tmpdir(), "tapshot-wdio-"));
  project = await installExample("wdio-mocha", dir);
  // The committed demo values, copied: a replay moves their last-use time.
  await cp(join(ROOT, "storage"), join(dir, "storage"), { recursive: true });
  // No model anywhere, and the run's mode left to the service: CI must mean replay.
  env = {
    ...(await rigEnvironment(rig, iphone15, dir)),
    CI: "true",
    TAPSHOT_STORAGE_DIR: join(dir, "storage"),
    TAPSHOT_RESULTS_DIR: join(dir, "results"),
    TAPSHOT_LOG: "json",
    ALLURE_RESULTS_DIR: join(dir, "allure"),
    EXAMPLE_TMP_DIR: dir,
  };
  run = await example(env, [join(project, "specs", "checkout.e2e.ts"), FAILURES]);
  const files = existsSync(join(dir, "allure")) ? await readdir(join(dir, "allure")) : [];
  results = await Promise.all(
    files
      .filter((f) => f.endsWith("-result.json"))
      .map(async (f) => JSON.parse(await readFile(join(dir, "allure", f), "utf8")) as AllureResult),
  );
}, 300_000);

afterAll(async () => {
  await rig?.stop();
  if (dir) await rm(dir, { recursive: true, force: true, maxRetries: 5 });
}, 60_000);

test("the example asks for nothing this repository does not have, and type-checks as its own project", async () => {
  expect(await dependencyProblems(EXAMPLE)).toEqual([]);
  expect(await typeCheck(project)).toEqual({ code: 0, output: "" });
}, 120_000);

test("the run ends with the example passing and the two failure specs failing", () => {
  expect({ code: run.code, names: results.map((r) => `${r.name}: ${r.status}`).sort() }).toEqual({
    code: 1,
    names: ["cart: passed", "checkout: passed", "never stored: failed", "regression cart: failed"],
  });
});

/** The run's calls.jsonl entries. */
async function callEntries() {
  const [runDir] = await readdir(join(dir, "results"));
  return (await readFile(join(dir, "results", runDir!, "calls.jsonl"), "utf8"))
    .trim()
    .split("\n")
    .map(
      (line) =>
        JSON.parse(line) as {
          api: string;
          name?: string;
          prompt?: string;
          outcome: string;
          device: string;
          aiCalls: number;
          detail?: string;
          durationMs: number;
        },
    );
}

test("the example replays the committed values without a model: aiTap and the matchers on the demo's iPhone 15", async () => {
  const calls = await callEntries();
  const ok = calls.filter((c) => c.outcome !== "failed");
  expect(ok.map((c) => [c.api, c.name ?? c.prompt, c.outcome, c.device, c.aiCalls])).toEqual([
    // "cart" was not passed: it is the test's title.
    ["toMatchScreenshot", "cart", "matched", "iphone-15_17.5", 0],
    ["tap", 'the "Checkout" button', "replayed", "iphone-15_17.5", 0],
    ["toMatchScreenshot", "order-summary", "matched", "iphone-15_17.5", 0],
  ]);
});

test("with CI set the service runs in mode replay: nothing stored is a NotStoredError, not a missing model", () => {
  const message = resultNamed("never stored").statusDetails?.message ?? "";
  expect(message).toContain('Expect browser to match AI screenshot "never-stored"');
  expect(message).toContain("NotStoredError (not-stored)");
  expect(message).toContain('mode is "replay"');
});

test("a mismatch fails the test in expect-webdriverio's style, with expected, actual and diff attached in Allure", async () => {
  const failed = resultNamed("regression cart");
  expect(failed.statusDetails?.message).toMatch(
    /^Expect browser to match AI screenshot "cart"\n\nScreenshotMismatchError \(screenshot-mismatch\): .*pixels differ/,
  );
  const images = attachmentsOf(failed).filter((a) => a.name.startsWith("tapshot "));
  // The failed call's log entry beside its images, so a missing image says why (a note "… skipped").
  const entry = (await callEntries()).find((c) => c.name === "cart" && c.outcome === "failed");
  expect({ images: images.map((a) => a.name.split(":")[0]).sort(), entry }).toEqual({
    images: ["tapshot actual", "tapshot composite", "tapshot diff", "tapshot expected"],
    entry: expect.objectContaining({ outcome: "failed" }),
  });
  for (const image of images) {
    expect(image.type).toBe("image/png");
    const bytes = await readFile(join(dir, "allure", image.source));
    expect(bytes.subarray(1, 4).toString("latin1")).toBe("PNG");
  }
  // Today's files are still written, and the error names them.
  expect(failed.statusDetails?.message).toContain(join(dir, "results"));
  expect(attachmentsOf(resultNamed("cart")).filter((a) => a.name.startsWith("tapshot "))).toEqual([]);
});

describe("the config's gemini() without a key", () => {
  let auto: { code: number; output: string };

  beforeAll(async () => {
    // The same config, in mode auto: the spec with nothing stored asks the model, and gemini() says what to set.
    auto = await example(
      {
        ...env,
        TAPSHOT_MODE: "auto",
        TAPSHOT_RESULTS_DIR: join(dir, "auto-results"),
        ALLURE_RESULTS_DIR: join(dir, "auto-allure"),
      },
      [FAILURES],
    );
  }, 300_000);

  test("loads in CI (the runs above) and fails the first model request with its ConfigError", () => {
    expect(run.output).not.toContain("needs an API key");
    expect(auto.code).toBe(1);
    expect(auto.output).toMatch(
      /ConfigError[^\n]*gemini\(\) needs an API key: pass \{ apiKey \}, or set GEMINI_API_KEY/,
    );
  });
});

describe("multiremote", () => {
  let multi: { code: number; output: string };

  beforeAll(async () => {
    // The rig's own config: no example, so no preload of the example's device.
    const { NODE_OPTIONS: _preload, ...own } = env;
    multi = await wdio("tests/wdio/multiremote.conf.ts", { ...own, TAPSHOT_RESULTS_DIR: join(dir, "multi-results") });
  }, 300_000);

  test("each instance is its own device: the iPhone 15 replays, the SE has nothing stored (its spec asserts both)", async () => {
    expect({ code: multi.code, tail: multi.code === 0 ? "" : multi.output.slice(-3000) }).toEqual({
      code: 0,
      tail: "",
    });
    const [runDir] = await readdir(join(dir, "multi-results"));
    const calls = (await readFile(join(dir, "multi-results", runDir!, "calls.jsonl"), "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { api: string; outcome: string; device: string });
    expect(calls.map((c) => `${c.api} ${c.device} ${c.outcome}`).sort()).toEqual([
      "tap iphone-15_17.5 replayed",
      "toMatchScreenshot iphone-15_17.5 matched",
      "toMatchScreenshot iphone-se-3rd-generation_17.5 failed",
    ]);
  });
});
