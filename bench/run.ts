/**
 * `npm run bench`: runs the benchmarks, prints one table and writes bench/results.json with
 * the machine they ran on. Every figure is a median set against a baseline measured in the
 * same run. See BENCHMARKS.md for what each figure means.
 *
 * `npm run bench -- --only replay,compare` runs some (replay, compare, peers, payload, rig,
 * fleet, memory, heal, ladder, verdict, act, plugin); `--no-rig` skips those that need Appium and Chromium. The figures of
 * benchmarks not run are kept from the previous results.json; `measured` says when each was last run.
 */
import { readFile, rm, writeFile } from "node:fs/promises";
import { iphone15 } from "../rig/profiles.js";
import { benchAct } from "./act.js";
import { benchCompare } from "./compare.js";
import { benchFleet } from "./fleet.js";
import { benchHeal } from "./heal.js";
import { benchHealLadder } from "./heal-ladder.js";
import { machineInfo } from "./machine.js";
import { benchMemory } from "./memory.js";
import { benchPayload } from "./payload.js";
import { benchPeers, type Verdicts } from "./peers.js";
import { benchPluginLoad } from "./plugin-load.js";
import { benchReplayWork } from "./replay-work.js";
import { flowBoxes, SEED } from "./rig-flow.js";
import { benchRigReplay, learnFlow } from "./rig-replay.js";
import { formatTable, formatVerdicts } from "./table.js";
import { benchVerdict } from "./verdict.js";
import type { Figure } from "./stats.js";

const NAMES = [
  "replay",
  "compare",
  "peers",
  "payload",
  "rig",
  "fleet",
  "memory",
  "heal",
  "ladder",
  "verdict",
  "act",
  "plugin",
] as const;
type Name = (typeof NAMES)[number];
const RIG: readonly Name[] = ["rig", "fleet", "memory", "ladder", "verdict", "act", "plugin"];
/** Those of {@link RIG} that share one rig; the plugin's load starts a server of its own. */
const SHARED_RIG = RIG.filter((n) => n !== "plugin");

/** Sample counts; chosen so the whole run stays near 4 minutes on 2 cores. */
const RUNS = {
  replay: { runs: 30, warmup: 5 },
  compare: { runs: 9, warmup: 2 },
  peers: { runs: 21, warmup: 2, memoryRuns: 1 },
  rig: { runs: 12, warmup: 2 },
  fleet: { sizes: [1, 2, 4], runs: 2 },
  memory: { runs: 3, steps: 20 },
  heal: { runs: 5, warmup: 1 },
  ladder: { runs: 3, warmup: 1 },
  verdict: { runs: 2 },
  act: { learns: 3, runs: 8, warmup: 1 },
  plugin: { sessions: 8, calls: 200, warmup: 4 },
};

function selected(): Set<Name> {
  const args = process.argv.slice(2);
  const only = args.indexOf("--only");
  const names = only >= 0 ? (args[only + 1] ?? "").split(",").filter(Boolean) : [...NAMES];
  const unknown = names.filter((n) => !(NAMES as readonly string[]).includes(n));
  if (unknown.length) {
    throw new Error(`--only got ${unknown.join(", ")}; the benchmarks are ${NAMES.join(", ")}.`);
  }
  const chosen = new Set(names as Name[]);
  if (args.includes("--no-rig")) for (const n of RIG) chosen.delete(n);
  return chosen;
}

const chosen = selected();
const machine = machineInfo();
const started = Date.now();
const results: Partial<Record<Name, Figure[]>> = {};
const skipped: Partial<Record<Name, string>> = {};
let verdicts: Verdicts | undefined;
const progress = (message: string) =>
  console.error(`[bench ${((Date.now() - started) / 1000).toFixed(0)}s] ${message}`);

if (chosen.has("replay")) {
  progress("1 replay work");
  results.replay = await benchReplayWork(RUNS.replay);
}
if (chosen.has("compare")) {
  progress("3 full-screen comparison");
  results.compare = await benchCompare(RUNS.compare);
}
if (chosen.has("peers")) {
  progress("7 peers (tapshot against other comparators)");
  const peers = await benchPeers(RUNS.peers);
  results.peers = peers.figures;
  verdicts = peers.verdicts;
}
if (chosen.has("payload")) {
  progress("4 model payload");
  results.payload = await benchPayload();
}

if (chosen.has("heal")) {
  progress("8 heal ladder: crop search");
  results.heal = await benchHeal(RUNS.heal);
}

// The plugin's load runs on a server of its own (the plugin installed into an APPIUM_HOME), before the shared rig.
if (chosen.has("plugin")) {
  progress("12 the plugin under a farm's load (8 sessions on one Appium server)");
  try {
    results.plugin = await benchPluginLoad(RUNS.plugin);
  } catch (error) {
    skipped.plugin = `the plugin's load benchmark failed: ${(error as Error).message.split("\n")[0]}`;
    progress(skipped.plugin);
  }
}

if (SHARED_RIG.some((n) => chosen.has(n))) {
  const { startRig } = await import("../rig/session.js");
  progress("starting the rig (Appium, Chromium)");
  let rig: Awaited<ReturnType<typeof startRig>> | undefined;
  try {
    rig = await startRig();
  } catch (error) {
    const why = `the rig did not start: ${(error as Error).message.split("\n")[0]}`;
    for (const n of SHARED_RIG) if (chosen.has(n)) skipped[n] = why;
    progress(why);
  }
  if (rig) {
    const dirs: string[] = [];
    try {
      const phone = await rig.session(iphone15);
      const boxes = await flowBoxes(phone);
      if (chosen.has("rig")) {
        progress("2 replay wall time on the rig");
        const storageDir = await learnFlow(phone, boxes);
        dirs.push(storageDir);
        results.rig = await benchRigReplay(phone, storageDir, boxes, RUNS.rig);
      }
      let learned: string | undefined;
      if (chosen.has("fleet")) {
        progress("5 fleet learning (opening 3 more sessions)");
        const extra = await Promise.all([1, 2, 3].map(() => rig!.openSession(iphone15)));
        try {
          const fleet = await benchFleet([phone, ...extra], boxes, RUNS.fleet);
          results.fleet = fleet.figures;
          learned = fleet.storageDir;
          dirs.push(learned);
        } finally {
          await Promise.allSettled(extra.map((s) => s.close()));
        }
      }
      if (chosen.has("memory")) {
        progress("6 memory");
        learned ??= await learnFlow(phone, boxes);
        dirs.push(learned);
        const cartUrl = rig.demo.pageUrl("cart", { seed: SEED, bars: { ...iphone15.bars, platform: "ios" } });
        results.memory = await benchMemory(phone, rig.appium.port, cartUrl, learned, boxes, RUNS.memory);
      }
      if (chosen.has("ladder")) {
        progress("8b heal ladder on the rig (ladder on against off)");
        results.ladder = await benchHealLadder(rig, RUNS.ladder);
      }
      if (chosen.has("act")) {
        progress("11 ai.act: learning a 4-step goal, its replay against the steps by hand");
        results.act = await benchAct(phone, RUNS.act);
      }
      if (chosen.has("verdict")) {
        progress("10 time from a real change to the failure (tapshot, the old rule, Playwright's rule)");
        results.verdict = await benchVerdict(rig, RUNS.verdict);
      }
    } finally {
      await rig.stop();
      for (const dir of new Set(dirs)) await rm(dir, { recursive: true, force: true });
    }
  }
}

/** The previous results.json, whose figures of benchmarks not run this time are kept. */
interface Stored {
  figures?: Partial<Record<Name, Figure[]>>;
  verdicts?: Verdicts;
  measured?: Record<string, string>;
  merged?: Record<string, string>;
}
const resultsFile = new URL("./results.json", import.meta.url);
const previous = JSON.parse(await readFile(resultsFile, "utf8").catch(() => "{}")) as Stored;
const measured: Record<string, string> = { ...(previous.merged ?? {}), ...(previous.measured ?? {}) };
// `machine` below is this run's, so each stamp names the machine its figures came from.
const stamp = `${machine.date} on ${machine.cpu}, ${machine.cores} cores, Node ${machine.node}`;
for (const name of Object.keys(results)) measured[name] = stamp;
const report = {
  machine,
  durationS: Math.round((Date.now() - started) / 1000),
  runs: RUNS,
  figures: { ...previous.figures, ...results },
  ...(verdicts ? { verdicts } : previous.verdicts ? { verdicts: previous.verdicts } : {}),
  ...(Object.keys(skipped).length ? { skipped } : {}),
  measured,
};
console.log(formatTable(results, skipped));
if (verdicts) console.log(`\n${formatVerdicts(verdicts)}`);
console.log(
  `\n${machine.cpu}, ${machine.cores} cores, ${machine.memoryGb} GB, Node ${machine.node}; ${report.durationS} s`,
);
await writeFile(resultsFile, JSON.stringify(report, null, 2) + "\n");
console.log("written bench/results.json");
