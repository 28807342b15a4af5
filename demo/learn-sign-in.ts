/**
 * Learns the demo's committed sign-in (`npx tsx demo/learn-sign-in.ts`): on each phone the demo
 * offers, `ai.act(driver, "sign in", { values })` on the shop's sign-in page, decided by the Gemini
 * wire double (rig/model-doubles; it is not a model, and the records name it as theirs) through the
 * real gemini() client, then replayed once with no model call. It replaces the acts under
 * storage/_ai_/acts/ and fails when a value of the demo account is anywhere in them.
 *
 * Options: `--storage <dir>` (default storage/), `--seed <n>` (default 1, as `npm run demo`).
 */
import { readdir, readFile, rm } from "node:fs/promises";
import path from "node:path";
import { Command } from "commander";
import { gemini } from "tapshot/providers";
import { configureAi } from "tapshot/runner";
import { startGeminiDouble } from "../rig/model-doubles/index.js";
import { iphone15, pixel7 } from "../rig/profiles.js";
import { rigTarget, startRig, type Rig } from "../rig/session.js";
import { DEMO_VALUES, SIGN_IN_GOAL, signInKnowledge } from "./sign-in.js";

const KEY = "demo-learn-key-not-secret";
const HERE = import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname);

const opts = new Command("learn-sign-in")
  .description("Learn the demo's ai.act sign-in with the Gemini wire double, into the demo's storage.")
  .option("--storage <dir>", "storage directory", path.resolve(HERE, "..", "storage"))
  .option("--seed <n>", "the shop's varying content", (v) => Number.parseInt(v, 10), 1)
  .parse()
  .opts<{ storage: string; seed: number }>();

/** Learn, then replay, the sign-in on one phone; the two outcomes and their model calls. */
async function learnOn(rig: Rig, profile: typeof iphone15): Promise<string> {
  const session = await rig.session(profile);
  const run = async () => {
    await session.open("login", { seed: opts.seed });
    const result = await session.ai.act(session.driver, SIGN_IN_GOAL, { values: DEMO_VALUES, timeout: 60_000 });
    await session.driver.waitUntil(async () => (await session.currentScreen()) === "cart", { timeout: 20_000 });
    return result;
  };
  const learned = await run();
  const replayed = await run();
  if (learned.outcome !== "learned" || replayed.outcome !== "replayed" || replayed.aiCalls !== 0) {
    throw new Error(
      `${profile.id}: learned ${learned.outcome}, then ${replayed.outcome} with ${replayed.aiCalls} calls`,
    );
  }
  return `${profile.id}: learned in ${learned.steps.length} steps with ${learned.aiCalls} model calls, replayed with 0`;
}

/** Fail when a value of the demo account is in any stored act. */
async function checkNoValues(acts: string): Promise<void> {
  const files = (await readdir(acts, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
  for (const file of files) {
    const bytes = await readFile(path.join(file.parentPath, file.name));
    const leaked = Object.keys(DEMO_VALUES).filter((k) => bytes.includes(DEMO_VALUES[k as keyof typeof DEMO_VALUES]));
    if (leaked.length) throw new Error(`${file.name} holds the value of ${leaked.join(", ")}`);
  }
}

async function main(): Promise<void> {
  const acts = path.join(opts.storage, "_ai_", "acts");
  await rm(acts, { recursive: true, force: true });
  const double = await startGeminiDouble(signInKnowledge(), { apiKey: KEY });
  configureAi({
    channel: gemini({ apiKey: KEY, baseUrl: double.baseUrl }),
    storageDir: opts.storage,
    target: rigTarget,
    mode: "auto",
    resultsDir: false,
    log: false,
  });
  const rig = await startRig();
  try {
    for (const profile of [iphone15, pixel7]) console.log(await learnOn(rig, profile));
    await checkNoValues(acts);
    console.log(`stored under ${path.relative(process.cwd(), acts) || acts}; no value of the demo account in them.`);
  } finally {
    await Promise.allSettled([rig.stop(), double.close()]);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
