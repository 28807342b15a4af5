/**
 * `npm run demo`: the demo flow on the embedded default device (an emulated iPhone 15 in
 * Debian's Chromium, driven by a real Appium 3 server), signing in with `ai.act` and replaying
 * the values committed under storage/_ai_/ with no model call.
 *
 * `npm run demo -- --fresh` learns instead, into a new storage directory: with the model
 * whose key is in the environment (TAPSHOT_PROVIDER / GEMINI_API_KEY / OPENAI_API_KEY), or
 * else with the local OCR engine, which cannot learn the sign-in (the flow then opens the cart
 * directly). It then replays, and heals the shop's redesign.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { Command, Option } from "commander";
import type { LogEntry } from "tapshot/runner";
import { channelFromEnv, ocr } from "tapshot/providers";
import { configureAi } from "tapshot/runner";
import { iphone15, pixel7, type PhoneProfile } from "../rig/profiles.js";
import { rigTarget, startRig } from "../rig/session.js";
import { runFlow, type FlowOptions, type StepResult } from "./flow.js";

const PROFILES: Record<string, PhoneProfile> = { "iphone-15": iphone15, "pixel-7": pixel7 };
const REPO_STORAGE = path.resolve(
  import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname),
  "..",
  "storage",
);

const program = new Command("demo")
  .description("Run tapshot's demo flow on an emulated phone through a real Appium server.")
  .option("--fresh", "learn with a model (or the local OCR engine) into a new storage directory, then replay and heal")
  .addOption(new Option("--device <id>", "the emulated phone").choices(Object.keys(PROFILES)).default("iphone-15"))
  .option("--storage <dir>", "storage directory (default: storage/ for replays, a new temp dir with --fresh)")
  .option("--no-heal", "with --fresh: learn and replay only, without healing the shop's redesign")
  .option("--seed <n>", "the shop's varying content (balance, dates, clock)", (v) => Number.parseInt(v, 10), 1)
  .parse();

const opts = program.opts<{ fresh?: boolean; heal: boolean; device: string; storage?: string; seed: number }>();
const profile = PROFILES[opts.device]!;
const entries: LogEntry[] = [];

async function main(): Promise<number> {
  const storageDir = opts.storage ?? (opts.fresh ? await mkdtemp(path.join(tmpdir(), "tapshot-demo-")) : REPO_STORAGE);
  const envChannel = opts.fresh ? channelFromEnv(process.env) : undefined;
  const channel = opts.fresh ? (envChannel ?? ocr()) : undefined;
  configureAi({
    storageDir,
    target: rigTarget,
    mode: opts.fresh ? "auto" : "replay",
    log: (entry) => entries.push(entry),
    ...(channel ? { channel } : {}),
  });
  const { model, platform, osVersion } = profile.target;
  console.log(`tapshot demo on ${model} (${platform} ${osVersion}), storage ${storageDir}`);
  if (opts.fresh) {
    const provider = process.env.TAPSHOT_PROVIDER || "the provider whose key is set";
    console.log(`learning with ${envChannel ? provider : "the local OCR engine (no API key is set)"}`);
  }
  // ai.act needs a model that chooses steps from the screen's controls; the OCR engine only reads text.
  const signIn = !opts.fresh || envChannel !== undefined;
  if (!signIn)
    console.log("sign-in skipped: ai.act needs a vision model to learn its steps; opening the cart directly.");

  const rig = await startRig();
  try {
    const session = await rig.session(profile);
    const base: FlowOptions = {
      variant: "default",
      autoHeal: false,
      seed: opts.seed,
      timeout: 60_000,
      cartBaseline: true,
      signIn,
    };
    // Healing a baseline asks whether a difference is a real change, which OCR cannot judge: the
    // redesign's restyled cart is healed by a vision model only; OCR still heals the moved taps.
    const redesign: FlowOptions = { ...base, variant: "redesign", cartBaseline: envChannel !== undefined };
    const passes: [string, FlowOptions][] = opts.fresh
      ? [
          ["learn", base],
          ["replay", base],
          ...(opts.heal
            ? ([
                ["heal the redesign", { ...redesign, autoHeal: true }],
                ["replay the healed values", redesign],
              ] as [string, FlowOptions][])
            : []),
        ]
      : [["replay", base]];
    let failed = false;
    for (const [name, options] of passes) {
      console.log(`\n${name}:`);
      try {
        printTable(await runFlow(session, options));
      } catch (error) {
        failed = true;
        console.error(`  failed: ${(error as Error).message}`);
        break;
      }
    }
    const aiCalls = entries.reduce((sum, e) => sum + e.aiCalls, 0);
    const models = [...new Set(entries.flatMap((e) => e.models))];
    console.log(
      `\n${entries.length} calls, ${aiCalls} AI call${aiCalls === 1 ? "" : "s"}${models.length ? ` (${models.join(", ")})` : ""}.`,
    );
    if (!failed) printNextSteps(storageDir);
    return failed ? 1 : 0;
  } finally {
    await rig.stop();
  }
}

/** What to try after a demo run. */
function printNextSteps(storageDir: string): void {
  const storage = path.relative(process.cwd(), storageDir) || ".";
  console.log(
    [
      "",
      "Next steps:",
      opts.fresh
        ? "  npm run demo                     replay the committed values (no model call)"
        : "  npm run demo -- --fresh          learn from scratch with your model key, or the local OCR engine",
      "  npx tapshot report               an HTML page of this run's calls and failure images",
      `  npx tapshot review --storage ${storage}   review new and healed values, accept or revert them`,
      "  Use tapshot in your project: see the README's quick starts and examples/.",
    ].join("\n"),
  );
}

function printTable(rows: StepResult[]): void {
  const width = Math.max(...rows.map((r) => r.step.length));
  for (const r of rows) {
    console.log(
      `  ${r.step.padEnd(width)}  ${r.outcome.padEnd(8)}  ${String(r.aiCalls).padStart(2)} AI calls  ${String(r.ms).padStart(6)} ms`,
    );
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
