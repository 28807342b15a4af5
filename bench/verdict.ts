/**
 * Benchmark 10: time from a real change to the failure (issue 38). The cart's baseline is stored on
 * the rig's Pixel 7; each scenario then opens a redesigned cart (a real, still change) and times
 * from the loaded page to the thrown failure under three rules, in alternation:
 * - tapshot with default options (the settle rule: two identical screenshots, then a grace period),
 * - the rule before issue 38, where a screen that did not match was watched until the `timeout`
 *   (30 s by default): rebuilt here with a grace period longer than the timeout,
 * - tapshot with `settle: { graceMs: 0 }`, for what the grace period costs (a detail of the figure),
 * - Playwright's `toHaveScreenshot` rule on the same driver: compare the first screenshot with the
 *   baseline; otherwise take screenshots 100, 250, 500, then every 1000 ms until two consecutive
 *   ones are equal (pixelmatch at its threshold 0.2, no pixel allowed), then compare once
 *   (`Page.expectScreenshot` in Playwright's packages/playwright-core/src/server/page.ts).
 * Every rule must end in a failure; a run that passes is reported as such.
 *
 * A stored tap gets the same measure (issue 47): the Checkout tap is learned on the cart, then each
 * run opens the redesigned cart and times from the loaded page to the thrown failure, with tapshot's
 * rule (the settle rule, then the check that the settled screen is the stored one: its thumbnail,
 * and the page source's progress indicators), with `graceMs: 0`, and with the rule before issue 38.
 * A plain loading view of 1.5 s before the cart is timed too, as a replay that must succeed.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pixelmatch from "pixelmatch";
import sharp from "sharp";
import { configureAi, resetAi } from "tapshot/runner";
import type { Variant } from "../demo/app/server.js";
import { pixel7 } from "../rig/profiles.js";
import { SCRIPTED_MODEL, ScriptedChannel } from "../rig/scripted-channel.js";
import { rigTarget, type Rig, type RigSession } from "../rig/session.js";
import { fromMedians, median, wallMs, type Figure } from "./stats.js";

const SEED = 4242;
const PROMPT = "the cart; the balance varies";
/** tapshot's default `timeout` for `toMatchScreenshot` (docs/api.md). */
const DEFAULT_TIMEOUT = 30_000;
const SCENARIOS: readonly { name: string; variant: Variant }[] = [
  { name: "redesigned cart", variant: "redesign" },
  { name: "banner inserted", variant: "banner" },
];

interface Decoded {
  data: Buffer;
  width: number;
  height: number;
}

async function decodePng(png: Buffer): Promise<Decoded> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Playwright's comparator with its defaults: equal when no pixel differs at threshold 0.2. */
function equalAsPlaywright(a: Decoded, b: Decoded): boolean {
  if (a.width !== b.width || a.height !== b.height) return false;
  return pixelmatch(a.data, b.data, undefined, a.width, a.height, { threshold: 0.2 }) === 0;
}

/** Playwright's `toHaveScreenshot` loop on a WebdriverIO session; true when it would pass. */
async function playwrightRule(session: RigSession, expected: Decoded): Promise<boolean> {
  const shot = async () => decodePng(Buffer.from(await session.driver.takeScreenshot(), "base64"));
  const intervals = [100, 250, 500];
  let actual = await shot();
  if (equalAsPlaywright(actual, expected)) return true;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, intervals.shift() ?? 1000));
    const previous = actual;
    actual = await shot();
    if (equalAsPlaywright(actual, previous)) return equalAsPlaywright(actual, expected);
  }
}

const CHECKOUT = "the Checkout button";

/** The tap's figures of benchmark 10: its failure on the redesigned cart under three rules, and a replay after a loading view. */
async function tapVerdicts(phone: RigSession, channel: ScriptedChannel, runs: number): Promise<Figure[]> {
  await phone.open("cart", { seed: SEED });
  const box = await phone.box("checkout-button");
  channel.script.locate = () => ({ found: true, box, reason: "scripted: the Checkout button", model: SCRIPTED_MODEL });
  await phone.ai.tap(phone.driver, CHECKOUT);
  const samples = { tapshot: [] as number[], noGrace: [] as number[], old: [] as number[], loading: [] as number[] };
  let wrong = 0;
  const time = async (rule: keyof typeof samples) => {
    const loading = rule === "loading";
    await phone.open("cart", loading ? { seed: SEED, loading: 1500 } : { variant: "redesign", seed: SEED });
    const settle = rule === "old" ? { graceMs: DEFAULT_TIMEOUT * 2 } : rule === "noGrace" ? { graceMs: 0 } : undefined;
    const ms = await wallMs(async () => {
      const replayed = await phone.ai
        .tap(phone.driver, CHECKOUT, settle ? { settle } : {})
        .then(() => true)
        .catch(() => false);
      if (replayed !== loading) wrong++;
    });
    samples[rule].push(ms);
  };
  const modelCalls = channel.count();
  for (let i = 0; i < runs; i++) for (const rule of ["tapshot", "loading", "noGrace", "old"] as const) await time(rule);
  const detail = {
    scenario: "tap on the redesigned cart",
    oldRuleMs: Math.round(median(samples.old)),
    tapshotWithoutGraceMs: Math.round(median(samples.noGrace)),
    tapshotSamplesMs: samples.tapshot.map(Math.round),
    replayAfterLoadingViewMs: samples.loading.map(Math.round),
    wrongVerdicts: wrong,
    modelCalls: channel.count() - modelCalls,
  };
  return [
    fromMedians(
      "tap on the redesigned cart: change to failure",
      "ms",
      "rule before issue 38",
      median(samples.tapshot),
      median(samples.old),
      runs,
      { detail },
    ),
  ];
}

/** Figures of benchmark 10; `runs` samples per rule and scenario (the old rule takes its 30 s each). */
export async function benchVerdict(rig: Rig, { runs }: { runs: number }): Promise<Figure[]> {
  const phone = await rig.session(pixel7);
  const storageDir = await mkdtemp(join(tmpdir(), "tapshot-bench-verdict-"));
  const channel = new ScriptedChannel({
    judge: () => ({ accept: true, varying: [], reason: "scripted: accepts the cart", model: SCRIPTED_MODEL }),
  });
  try {
    configureAi({ channel, storageDir, target: rigTarget, mode: "auto", log: false, resultsDir: false });
    await phone.open("cart", { seed: SEED });
    await phone.ai.expect(phone.driver).toMatchScreenshot("cart", PROMPT);
    const dir = join(storageDir, "_ai_", "apps", "127.0.0.1", "screenshots", "android", "cart");
    const png = (await readdir(dir)).find((f) => f.endsWith(".png") && !f.includes(".previous"));
    const expected = await decodePng(await readFile(join(dir, png!)));

    const figures: Figure[] = [];
    for (const scenario of SCENARIOS) {
      const samples = {
        tapshot: [] as number[],
        noGrace: [] as number[],
        old: [] as number[],
        playwright: [] as number[],
      };
      let passed = 0;
      const time = async (rule: keyof typeof samples) => {
        await phone.open("cart", { variant: scenario.variant, seed: SEED });
        const ms = await wallMs(async () => {
          if (rule === "playwright") {
            if (await playwrightRule(phone, expected)) passed++;
            return;
          }
          const settle =
            rule === "old" ? { graceMs: DEFAULT_TIMEOUT * 2 } : rule === "noGrace" ? { graceMs: 0 } : undefined;
          await phone.ai
            .expect(phone.driver)
            .toMatchScreenshot("cart", PROMPT, settle ? { settle } : {})
            .then(() => passed++)
            .catch(() => undefined);
        });
        samples[rule].push(ms);
      };
      for (let i = 0; i < runs; i++) {
        await time("tapshot");
        await time("playwright");
        await time("noGrace");
        await time("old");
      }
      const detail = {
        scenario: scenario.variant,
        oldRuleMs: Math.round(median(samples.old)),
        playwrightRuleMs: Math.round(median(samples.playwright)),
        tapshotWithoutGraceMs: Math.round(median(samples.noGrace)),
        tapshotSamplesMs: samples.tapshot.map(Math.round),
        runsThatPassed: passed,
        modelCalls: channel.count() - 1,
      };
      figures.push(
        fromMedians(
          `${scenario.name}: change to failure`,
          "ms",
          "rule before issue 38",
          median(samples.tapshot),
          median(samples.old),
          runs,
          { detail },
        ),
        fromMedians(
          `${scenario.name}: change to failure`,
          "ms",
          "Playwright's rule",
          median(samples.tapshot),
          median(samples.playwright),
          runs,
          { detail },
        ),
      );
    }
    figures.push(...(await tapVerdicts(phone, channel, runs)));
    return figures;
  } finally {
    resetAi();
    await rm(storageDir, { recursive: true, force: true });
  }
}
