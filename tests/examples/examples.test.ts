/**
 * The Jest and plain WebdriverIO examples (examples/jest, examples/webdriverio) run as their users
 * run them, through their own package.json, against the rig's Appium server and emulated iPhone 15:
 * only the environment their READMEs document (plus the rig's device, tests/examples/rig-device.ts)
 * comes from outside. In mode replay they replay the committed demo values with no model.
 */
import { cp, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { iphone15 } from "../../rig/profiles.js";
import { startRig, type Rig } from "../../rig/session.js";
import {
  dependencyProblems,
  installExample,
  npmRun,
  RIG_DEVICE,
  rigEnvironment,
  ROOT,
  typeCheck,
} from "./example-project.js";

let rig: Rig;
let scratch: string;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), "tapshot-examples-"));
  // The committed demo values, copied: a replay moves their last-use time.
  await cp(join(ROOT, "storage"), join(scratch, "storage"), { recursive: true });
  rig = await startRig();
}, 180_000);

afterAll(async () => {
  await rig?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true, maxRetries: 5 });
}, 60_000);

/** Run an example's script on the rig in mode replay; resolves with its output and the calls it logged. */
async function runExample(name: string, script: string, args: (dir: string) => string[] = () => []) {
  const dir = await installExample(name, scratch);
  const results = join(scratch, `${name}-results`);
  const env = {
    ...(await rigEnvironment(rig, iphone15, scratch)),
    TAPSHOT_MODE: "replay",
    TAPSHOT_STORAGE_DIR: join(scratch, "storage"),
    TAPSHOT_RESULTS_DIR: results,
    TAPSHOT_LOG: "silent",
  };
  const ran = await npmRun(dir, script, args(dir), env);
  const [runDir] = await readdir(results).catch(() => []);
  const calls = runDir
    ? (await readFile(join(results, runDir, "calls.jsonl"), "utf8"))
        .trim()
        .split("\n")
        .map(
          (line) =>
            JSON.parse(line) as { api: string; name?: string; prompt?: string; outcome: string; device: string },
        )
        .map((c) => [c.api, c.name ?? c.prompt, c.outcome, c.device])
    : [];
  return { ...ran, calls };
}

const REPLAYED = [
  ["toMatchScreenshot", "cart", "matched", "iphone-15_17.5"],
  ["tap", 'the "Checkout" button', "replayed", "iphone-15_17.5"],
  ["toMatchScreenshot", "order-summary", "matched", "iphone-15_17.5"],
];

test.each(["jest", "webdriverio"])("examples/%s asks for nothing this repository does not have", async (name) => {
  expect(await dependencyProblems(join(ROOT, "examples", name))).toEqual([]);
});

test.each(["jest", "webdriverio"])(
  "examples/%s type-checks as its own project, against the types tapshot ships",
  async (name) => {
    expect(await typeCheck(await installExample(name, scratch))).toEqual({ code: 0, output: "" });
  },
  120_000,
);

test("examples/webdriverio: `npm start` checks the cart, taps Checkout and checks the order summary", async () => {
  const ran = await runExample("webdriverio", "start");
  expect({ code: ran.code, calls: ran.calls, tail: ran.code ? ran.output.slice(-3000) : "" }).toEqual({
    code: 0,
    calls: REPLAYED,
    tail: "",
  });
  expect(ran.output).toContain('the "Checkout" button: replayed');
}, 300_000);

test("examples/jest: `npm test` passes both tests, the unnamed baseline named after its test", async () => {
  const own = (await import(join(ROOT, "examples", "jest", "jest.config.js"))) as { default: Record<string, unknown> };
  // The example's own Jest config, plus the rig's device as a setup file (which finds tapshot in the example's modules).
  const config = (dir: string) => ({
    ...own.default,
    rootDir: dir,
    setupFiles: [RIG_DEVICE],
    moduleNameMapper: { "^(\\.{1,2}/.*)\\.js$": "$1" },
    modulePaths: [join(dir, "node_modules")],
  });
  const ran = await runExample("jest", "test", (dir) => ["--config", JSON.stringify(config(dir))]);
  expect({ code: ran.code, calls: ran.calls, tail: ran.code ? ran.output.slice(-3000) : "" }).toEqual({
    code: 0,
    calls: REPLAYED,
    tail: "",
  });
  expect(ran.output).toMatch(/Tests: +2 passed, 2 total/);
}, 300_000);
