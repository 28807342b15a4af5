/**
 * Benchmark 8b: the heal ladder on the rig (issue 18). The Checkout tap is learned once on the
 * default cart; each redesign scenario (a cart variant, demo/app/pages.ts) then replays it with
 * `autoHeal` from that same learned record, once with the ladder on and once with its cheap rungs
 * off (`heal: { search: false, accessibility: false }`), alternating. Per scenario: the rung that
 * healed, the model calls each way, wrong taps (must be 0) and the wall time of the healing tap.
 * The Gemini wire double answers from the page's DOM, as in tests/e2e/heal-ladder.test.ts.
 */
import { cp, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gemini } from "tapshot/providers";
import { configureAi, resetAi, type LogEntry } from "tapshot/runner";
import type { Variant } from "../demo/app/server.js";
import { startGeminiDouble, type Knowledge, type WireDouble } from "../rig/model-doubles/index.js";
import { pixel7 } from "../rig/profiles.js";
import { rigTarget, type Rig, type RigSession } from "../rig/session.js";
import { alternate, figure, median, round, wallMs, type Figure } from "./stats.js";

const KEY = "bench-key-not-a-secret";
const CHECKOUT = "the Checkout button";
const SUMMARY_SHOWN = "the order summary is shown";
const SEED = 4242;
const LADDER_OFF = { search: false, accessibility: false };

interface Scenario {
  name: string;
  variant: Variant;
  verify?: string;
  /** Checkout is gone: the heal must fail and nothing may be tapped. */
  removed?: boolean;
  /** Two equal buttons: no cheap rung may tap. */
  ambiguous?: boolean;
}

const SCENARIOS: readonly Scenario[] = [
  { name: "moved by an inserted banner", variant: "banner" },
  { name: "list grew", variant: "grown" },
  { name: "moved into a bottom bar, restyled", variant: "redesign" },
  { name: "restyled in place", variant: "restyled" },
  { name: "restyled in place, with verify", variant: "restyled", verify: SUMMARY_SHOWN },
  { name: "removed", variant: "regression", removed: true },
  { name: "ambiguous duplicates", variant: "twins", ambiguous: true },
];

/** What one healing tap did. */
interface Observation {
  rung: string;
  locates: number;
  checks: number;
  wrong: boolean;
  /** The cheap rungs' own costs, from the log entry's notes. */
  searchMs?: number;
  a11yMs?: number;
}

/** The double's view of the page: the Checkout box from the DOM, and which screen is shown. */
function checkoutKnowledge(session: RigSession): Knowledge {
  return {
    async locate(target, frame) {
      if (!/checkout/i.test(target)) return { found: false, reason: `double: nothing like "${target}"` };
      const box = await session.findBox("checkout-button");
      if (!box) return { found: false, reason: "double: no visible checkout-button in the page's DOM" };
      const s = frame.width / (await session.describe()).screen.width;
      return { box: { x: box.x * s, y: box.y * s, width: box.width * s, height: box.height * s } };
    },
    async check(statement) {
      const shown = await session.currentScreen();
      return { pass: /order summary/i.test(statement) && shown === "checkout", reason: `double: ${shown} screen` };
    },
  };
}

const costOf = (detail: string, rung: RegExp) => {
  const m = rung.exec(detail);
  return m ? Number(m[1]) : undefined;
};

export async function benchHealLadder(rig: Rig, { runs, warmup }: { runs: number; warmup: number }): Promise<Figure[]> {
  const phone = await rig.session(pixel7);
  const double: WireDouble = await startGeminiDouble(checkoutKnowledge(phone), { apiKey: KEY });
  const storageDir = await mkdtemp(join(tmpdir(), "tapshot-bench-ladder-"));
  const learnedDir = join(storageDir, "learned");
  const taps = join(storageDir, "_ai_", "apps", "127.0.0.1", "taps");
  const entries: LogEntry[] = [];
  try {
    configureAi({
      channel: gemini({ apiKey: KEY, baseUrl: double.baseUrl }),
      storageDir,
      target: rigTarget,
      mode: "auto",
      log: (entry) => entries.push(entry),
    });
    const stored = async () =>
      (await readdir(taps, { recursive: true }).catch(() => [])).filter((f) => f.endsWith(".json"));
    // The plain tap and the verified one have different keys, so each is learned once.
    const files = new Map<string | undefined, string>();
    for (const verify of [undefined, SUMMARY_SHOWN]) {
      const before = await stored();
      await phone.open("cart", { seed: SEED });
      await phone.ai.tap(phone.driver, CHECKOUT, { ...(verify ? { verify } : {}), timeout: 60_000 });
      files.set(
        verify,
        join(
          taps,
          (await stored()).find((f) => !before.includes(f))!,
        ),
      );
    }
    await cp(join(storageDir, "_ai_"), learnedDir, { recursive: true });

    const heal = async (scenario: Scenario, ladder: boolean, seen: Observation[]): Promise<number> => {
      await rm(join(storageDir, "_ai_"), { recursive: true, force: true });
      await cp(learnedDir, join(storageDir, "_ai_"), { recursive: true });
      await phone.open("cart", { variant: scenario.variant, seed: SEED });
      const before = double.received.length;
      const logged = entries.length;
      let failed = false;
      const ms = await wallMs(() =>
        phone.ai
          .tap(phone.driver, CHECKOUT, {
            autoHeal: true,
            timeout: 60_000,
            ...(scenario.verify ? { verify: scenario.verify } : {}),
            ...(ladder ? {} : { heal: LADDER_OFF }),
          })
          .catch(() => (failed = true)),
      );
      const kinds = double.received.slice(before).map((r) => r.kind);
      const tapped = await phone.taps();
      const record = JSON.parse(await readFile(files.get(scenario.verify)!, "utf8")) as { model: string };
      const rung = failed ? "not healed" : record.model;
      const onCheckout = tapped.length === 1 && tapped[0]!.testid === "checkout-button";
      const wrong = scenario.removed
        ? tapped.length > 0 || !failed
        : failed || !onCheckout || (scenario.ambiguous === true && rung.startsWith("local:"));
      const detail = entries.slice(logged).find((e) => e.api === "tap")?.detail ?? "";
      seen.push({
        rung,
        locates: kinds.filter((k) => k === "locate").length,
        checks: kinds.filter((k) => k === "check").length,
        wrong,
        searchMs: costOf(detail, /heal ladder: crop search [^;]*\((\d+) ms\)/),
        a11yMs: costOf(detail, /heal ladder: accessibility [^;]*page source read in (\d+) ms/),
      });
      return ms;
    };

    const figures: Figure[] = [];
    for (const scenario of SCENARIOS) {
      const on: Observation[] = [];
      const off: Observation[] = [];
      const samples = await alternate(
        runs,
        warmup,
        () => heal(scenario, true, on),
        () => heal(scenario, false, off),
      );
      const rungs = (seen: Observation[]) => [...new Set(seen.map((o) => o.rung))].join(", ");
      const perHeal = (seen: Observation[], k: "locates" | "checks") => median(seen.map((o) => o[k]));
      const costs = (k: "searchMs" | "a11yMs") => {
        const values = on.flatMap((o) => (o[k] === undefined ? [] : [o[k]]));
        return values.length ? round(median(values), 1) : undefined;
      };
      figures.push(
        figure(`${scenario.name} (${scenario.variant}): heal wall time`, "ms", "ladder off", samples, {
          detail: {
            rungOn: rungs(on),
            rungOff: rungs(off),
            locateCallsOn: perHeal(on, "locates"),
            locateCallsOff: perHeal(off, "locates"),
            checkCallsOn: perHeal(on, "checks"),
            checkCallsOff: perHeal(off, "checks"),
            // Warm-up heals included: a wrong tap there counts too.
            wrongTaps: [...on, ...off].filter((o) => o.wrong).length,
            heals: on.length + off.length,
            cropSearchMs: costs("searchMs"),
            accessibilityMs: costs("a11yMs"),
          },
        }),
      );
    }
    return figures;
  } finally {
    resetAi();
    await double.close();
    await rm(storageDir, { recursive: true, force: true });
  }
}
