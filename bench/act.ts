/**
 * Benchmark 11, `ai.act` on the rig (emulated iPhone 15, real Appium): the model calls and wall
 * time to learn a 4-step goal on the shop's sign-in page (both fields, the "Remember me" switch,
 * Sign in), decided by the Gemini wire double through gemini() (demo/sign-in.ts; the double answers
 * at once, so the time is tapshot's and the device's, not a model's); then a replay's wall time
 * against the same four steps written by hand with WebdriverIO selectors in the same session,
 * alternating. Both are timed until the last step's action returns (the page's busy state and
 * navigation after Sign in are outside both). Budget: replay <= 1.1x the hand-written steps.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPlatformApi, type DeviceAdapter, type DeviceSession } from "tapshot/adapter";
import { gemini } from "tapshot/providers";
import { configureAi, resetAi } from "tapshot/runner";
import { startGeminiDouble } from "../rig/model-doubles/index.js";
import { rigTarget, type RigSession } from "../rig/session.js";
import { DEMO_VALUES, SIGN_IN_REMEMBERED_GOAL, signInKnowledge } from "../demo/sign-in.js";
import { alternate, figure, fromMedians, median, wallMs, type Figure } from "./stats.js";

const KEY = "bench-act-key-not-secret";
const SEED = 11;

/** Options of {@link benchAct}. */
export interface ActBenchOptions {
  /** Goals learned from scratch (each into a new storage folder). */
  learns: number;
  /** Measured replay / hand-written pairs. */
  runs: number;
  /** Unmeasured pairs first. */
  warmup: number;
}

/** Per device-session method: calls and ms spent in it (the device's part of a replay). */
type Spent = Map<string, { calls: number; ms: number }>;

/** An adapter whose sessions count and time every device call, so a replay's time splits into device and SDK. */
function counted(adapter: DeviceAdapter, spent: Spent): DeviceAdapter {
  return {
    ...adapter,
    open(driver: unknown): DeviceSession {
      const session = adapter.open(driver) as unknown as Record<string, unknown>;
      const wrapped: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(session)) {
        if (typeof value !== "function") {
          wrapped[name] = value;
          continue;
        }
        wrapped[name] = async (...args: unknown[]) => {
          const start = performance.now();
          try {
            return await (value as (...a: unknown[]) => Promise<unknown>).apply(session, args);
          } finally {
            const entry = spent.get(name) ?? { calls: 0, ms: 0 };
            spent.set(name, { calls: entry.calls + 1, ms: entry.ms + performance.now() - start });
          }
        };
      }
      return wrapped as unknown as DeviceSession;
    },
  };
}

/** Open the sign-in page, run `work` timed, then wait (untimed) for the cart the page opens. */
async function signInTimed(session: RigSession, work: () => Promise<unknown>): Promise<number> {
  await session.open("login", { seed: SEED });
  const ms = await wallMs(work);
  await session.driver.waitUntil(async () => (await session.currentScreen()) === "cart", { timeout: 20_000 });
  return ms;
}

/** The same four steps by hand: WebdriverIO selectors, the values typed, the switch and the button clicked. */
async function byHand(session: RigSession): Promise<void> {
  const { driver } = session;
  await (await driver.$("#email")).setValue(DEMO_VALUES.email);
  await (await driver.$("#password")).setValue(DEMO_VALUES.password);
  await (await driver.$("#remember")).click();
  await (await driver.$("#sign-in")).click();
}

/** Learn the goal `learns` times, each into a new folder; the last folder stays for the replays. */
async function learn(session: RigSession, learns: number, baseUrl: string, dirs: string[]) {
  const calls: number[] = [];
  const steps: number[] = [];
  const times: number[] = [];
  for (let i = 0; i < learns; i++) {
    const storageDir = await mkdtemp(join(tmpdir(), "tapshot-bench-act-"));
    dirs.push(storageDir);
    const channel = gemini({ apiKey: KEY, baseUrl });
    configureAi({ channel, storageDir, target: rigTarget, log: false, resultsDir: false, mode: "auto" });
    let aiCalls = 0;
    let stepCount = 0;
    times.push(
      await signInTimed(session, async () => {
        const result = await session.ai.act(session.driver, SIGN_IN_REMEMBERED_GOAL, { values: DEMO_VALUES });
        if (result.outcome !== "learned") throw new Error(`learning the sign-in gave ${result.outcome}`);
        ({ aiCalls } = result);
        stepCount = result.steps.length;
      }),
    );
    calls.push(aiCalls);
    steps.push(stepCount);
  }
  return { calls, steps, times };
}

export async function benchAct(session: RigSession, { learns, runs, warmup }: ActBenchOptions): Promise<Figure[]> {
  const double = await startGeminiDouble(signInKnowledge(), { apiKey: KEY });
  const dirs: string[] = [];
  try {
    const learned = await learn(session, learns, double.baseUrl, dirs);
    if (learned.steps.some((n) => n !== 4)) throw new Error(`the goal took ${learned.steps.join(", ")} steps, not 4`);
    configureAi({ storageDir: dirs.at(-1)!, target: rigTarget, log: false, resultsDir: false, mode: "replay" });
    const spent: Spent = new Map();
    const ai = createPlatformApi(counted(session.adapter, spent));
    const replayOnce = () =>
      signInTimed(session, async () => {
        const result = await ai.act(session.driver, SIGN_IN_REMEMBERED_GOAL, { values: DEMO_VALUES });
        if (result.outcome !== "replayed" || result.aiCalls) throw new Error(`a replay gave ${result.outcome}`);
      });
    const paired = await alternate(runs, warmup, replayOnce, () => signInTimed(session, () => byHand(session)));
    // The device's part of one replay, by session method (warm-up replays included in the average).
    const replays = runs + warmup;
    const perReplay = Object.fromEntries(
      [...spent].map(([name, { calls, ms }]) => [name, { calls: calls / replays, ms: Math.round(ms / replays) }]),
    );
    const profile = `${session.profile.id} ${session.profile.width}x${session.profile.height}@${session.profile.pixelRatio}`;
    return [
      fromMedians("act: model calls to learn a 4-step goal", "calls", "steps", median(learned.calls), 4, learns, {
        detail: { profile, calls: learned.calls, learnMs: learned.times.map(Math.round) },
      }),
      fromMedians(
        "act: wall time to learn a 4-step goal",
        "ms",
        "its replay",
        median(learned.times),
        median(paired.subject),
        learns,
        { detail: { profile } },
      ),
      figure("act: replay wall time, 4 steps", "ms", "the 4 steps by hand (WebdriverIO selectors)", paired, {
        budget: 1.1,
        detail: { profile, perReplay },
      }),
    ];
  } finally {
    resetAi();
    await double.close();
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}
