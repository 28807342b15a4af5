/**
 * The README's main job: `npm run demo` signs in with `ai.act` and replays the values committed
 * under storage/_ai_/ with no model call; `--fresh` learns with the local OCR engine (which cannot
 * learn the sign-in, so it skips it, saying so), replays, and heals the redesign.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, "..", "..");

async function demo(...args: string[]): Promise<string> {
  const env: NodeJS.ProcessEnv = { ...process.env, TAPSHOT_RESULTS_DIR: join(tmpdir(), "tapshot-demo-results") };
  // A key in the environment would make --fresh use a hosted model; this test is about the offline path.
  for (const key of [
    "TAPSHOT_PROVIDER",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "OPENAI_API_KEY",
    "AZURE_OPENAI_API_KEY",
  ]) {
    delete env[key];
  }
  const { stdout } = await run(process.execPath, ["--import", "tsx", "demo/run.ts", ...args], {
    cwd: ROOT,
    env,
    timeout: 400_000,
  });
  return stdout;
}

test("npm run demo replays the committed values with zero model calls", async () => {
  const out = await demo();
  expect(out).toMatch(/act "sign in"\s+replayed\s+0 AI calls/);
  expect(out).toMatch(/screenshot cart\s+matched\s+0 AI calls/);
  expect(out).toMatch(/tap "Checkout"\s+replayed\s+0 AI calls/);
  expect(out).toMatch(/tap "Place order"\s+replayed\s+0 AI calls/);
  expect(out).toMatch(/^5 calls, 0 AI calls\.$/m);
  // It ends by saying what to try next.
  expect(out).toMatch(
    /\nNext steps:\n {2}npm run demo -- --fresh .*\n {2}npx tapshot report .*\n {2}npx tapshot review /,
  );
}, 420_000);

test("every device the demo offers replays its committed values: --device pixel-7", async () => {
  const out = await demo("--device", "pixel-7");
  expect(out).toContain("tapshot demo on Google Pixel 7 (android 14)");
  expect(out).toMatch(/act "sign in"\s+replayed\s+0 AI calls/);
  expect(out).toMatch(/screenshot cart\s+matched\s+0 AI calls/);
  expect(out).toMatch(/tap "Place order"\s+replayed\s+0 AI calls/);
  expect(out).toMatch(/^5 calls, 0 AI calls\.$/m);
}, 420_000);

test("demo --fresh learns with the local OCR engine, replays, and heals the redesign", async () => {
  const storage = await mkdtemp(join(tmpdir(), "tapshot-demo-fresh-"));
  try {
    const out = await demo("--fresh", "--storage", storage);
    expect(out).toContain("learning with the local OCR engine");
    expect(out).toContain("sign-in skipped: ai.act needs a vision model to learn its steps");
    expect(out).not.toMatch(/act "sign in"/);
    const [learn, replay, heal, healed] = out.split(/\n(?=\S.*:\n)/).slice(1);
    // The page source names the one Checkout button: only verify asks the model.
    expect(learn).toMatch(/tap "Checkout"\s+learned\s+1 AI calls/);
    expect(replay).toMatch(/tap "Checkout"\s+replayed\s+0 AI calls/);
    expect(heal).toMatch(/tap "Checkout"\s+healed/);
    expect(healed).toMatch(/tap "Checkout"\s+replayed\s+0 AI calls/);
    expect(out).toMatch(/\(ocr:paddle-ppocrv4, page-source\)\.$/m);
    const taps = await readdir(join(storage, "_ai_", "apps", "127.0.0.1", "taps", "ios", "iphone-15_17.5"));
    expect(taps.some((f) => f.endsWith(".previous.png"))).toBe(true);
  } finally {
    await rm(storage, { recursive: true, force: true });
  }
}, 420_000);
