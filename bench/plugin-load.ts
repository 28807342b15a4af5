/**
 * Benchmark 12, the Appium plugin under a farm's load: one real Appium 3 server running tapshot's
 * plugin as a user installs it (rig/plugin-server.ts, the local OCR engine as its model), 8 sessions
 * at once (the emulated Pixel 7 in Chromium), each making `calls` calls on the demo's promo form:
 * `tapshot: tap` on its Apply button (learned once, by whichever session comes first, then replayed)
 * and `tapshot: matchScreenshot` of the form (judged once, then matched by pixels), every answer
 * checked. The baseline, in the same run and the same sessions, alternating per call: what a client
 * does by hand for the same result with no plugin involved, a screenshot and a W3C tap at the stored
 * point (for a tap), a screenshot (for a match). Figures: p50 and p95 of each call's latency against
 * its baseline's, and the growth of the Appium process's resident memory per 1,000 plugin calls.
 */
import { appiumRssMb } from "../rig/appium.js";
import { startPluginServer, type PluginServer } from "../rig/plugin-server.js";
import { pixel7 } from "../rig/profiles.js";
import type { RigSession } from "../rig/session.js";
import { fromMedians, percentile, round, type Figure } from "./stats.js";

/** Options of {@link benchPluginLoad}. */
export interface PluginLoadOptions {
  sessions: number;
  /** Plugin calls per session (each followed by its baseline). */
  calls: number;
  /** Plugin calls per session before memory is first read (the learns and warm-up). */
  warmup: number;
}

const APPLY = 'the "Apply" button';
const FORM = { name: "promo-form", prompt: 'the "Discounts" screen with a "Promo code" field and an "Apply" button' };

interface TapAnswer {
  outcome: string;
  point: { x: number; y: number };
  aiCalls: number;
}
interface MatchAnswer {
  outcome: string;
  aiCalls: number;
}

/** Latencies of one kind of call, with the plugin and by hand. */
interface Samples {
  plugin: number[];
  hand: number[];
}

export async function benchPluginLoad(options: PluginLoadOptions): Promise<Figure[]> {
  const server = await startPluginServer({ name: "load", runId: "load" });
  try {
    const caps = { capabilities: { "tapshot:target": pixel7.target } };
    const sessions = await Promise.all(
      Array.from({ length: options.sessions }, () => server.rig.openSession(pixel7, caps)),
    );
    // The promo form after one Apply, so every later screenshot of it is the same (the result line stays).
    await Promise.all(sessions.map((s) => s.open("promo", { seed: 1 })));
    await Promise.all(sessions.map((s) => s.driver.$("[data-testid=apply-button]").click()));
    const taps: Samples = { plugin: [], hand: [] };
    const matches: Samples = { plugin: [], hand: [] };
    const outcomes = new Map<string, number>();
    const count = (what: string) => outcomes.set(what, (outcomes.get(what) ?? 0) + 1);
    const points = new Set<string>();
    const warm = await Promise.all(sessions.map((s) => runCalls(s, options.warmup, undefined)));
    const before = appiumRssMb(server.rig.appium);
    const measured = { taps, matches, count, points };
    await Promise.all(sessions.map((s) => runCalls(s, options.calls, measured)));
    const after = appiumRssMb(server.rig.appium);
    for (const w of warm) for (const o of w) count(`warm-up ${o}`);
    if (points.size !== 1) throw new Error(`replayed taps answered ${points.size} points: ${[...points].join(", ")}`);
    const pluginCalls = options.sessions * options.calls;
    return [
      ...latencyFigures("replayed tap", taps, "screenshot + W3C tap at the point"),
      ...latencyFigures("matched screenshot", matches, "screenshot"),
      fromMedians("Appium RSS after the calls", "MB", "before them", after, before, pluginCalls, {
        detail: {
          growthPer1000CallsMb: round(((after - before) * 1000) / pluginCalls, 1),
          sessions: options.sessions,
          outcomes: Object.fromEntries(outcomes),
        },
      }),
    ];
  } finally {
    await stopQuietly(server);
  }
}

interface Measured {
  taps: Samples;
  matches: Samples;
  count(what: string): void;
  points: Set<string>;
}

/**
 * `n` plugin calls on one session, a tap every call but each fourth a screenshot match; each measured
 * call is followed by its by-hand baseline. Throws on any answer that is not right.
 */
async function runCalls(session: RigSession, n: number, measured: Measured | undefined): Promise<string[]> {
  const seen: string[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 4 === 3) {
      const { ms, value } = await timed(() => session.driver.execute("tapshot: matchScreenshot", FORM));
      const answer = value as MatchAnswer;
      if (!["matched", "stored"].includes(answer.outcome)) throw new Error(`match answered ${JSON.stringify(answer)}`);
      seen.push(`match ${answer.outcome}`);
      if (!measured) continue;
      measured.count(`match ${answer.outcome}`);
      measured.matches.plugin.push(ms);
      measured.matches.hand.push((await timed(() => session.driver.takeScreenshot())).ms);
      continue;
    }
    const { ms, value } = await timed(() => session.driver.execute("tapshot: tap", { prompt: APPLY }));
    const answer = value as TapAnswer;
    if (!["replayed", "learned"].includes(answer.outcome)) throw new Error(`tap answered ${JSON.stringify(answer)}`);
    seen.push(`tap ${answer.outcome}`);
    if (!measured) continue;
    measured.count(`tap ${answer.outcome}`);
    measured.points.add(`${answer.point.x},${answer.point.y}`);
    measured.taps.plugin.push(ms);
    measured.taps.hand.push((await timed(() => tapByHand(session, answer.point))).ms);
  }
  return seen;
}

/** What a replay does, by hand: a screenshot to look, then a W3C touch tap at the point. */
async function tapByHand(session: RigSession, point: { x: number; y: number }): Promise<void> {
  await session.driver.takeScreenshot();
  const { scale } = await session.describe();
  await session.driver.performActions([
    {
      type: "pointer",
      id: "finger",
      parameters: { pointerType: "touch" },
      actions: [
        { type: "pointerMove", duration: 0, x: Math.round(point.x / scale), y: Math.round(point.y / scale) },
        { type: "pointerDown", button: 0 },
        { type: "pointerUp", button: 0 },
      ],
    },
  ]);
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await work();
  return { ms: performance.now() - start, value };
}

function latencyFigures(what: string, samples: Samples, baseline: string): Figure[] {
  return ([50, 95] as const).map((p) =>
    fromMedians(
      `plugin ${what}, p${p} latency`,
      "ms",
      `${baseline} by hand, p${p}`,
      percentile(samples.plugin, p),
      percentile(samples.hand, p),
      samples.plugin.length,
    ),
  );
}

async function stopQuietly(server: PluginServer): Promise<void> {
  await server.stop().catch(() => undefined);
}
