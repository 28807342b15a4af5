/**
 * The comparators benchmark 7 sets tapshot against, each called the way its users call it, with
 * one verdict rule for all that count pixels: at most 0.1% of the screen may differ (tapshot's
 * default maxDiffPixelRatio). Where a tool takes ignore regions, it gets the status bar and home
 * indicator, as tapshot masks them; pixelmatch (as Playwright calls it) and looks-same take none.
 *
 * - tapshot: `comparePng` (bytes first) or `compare` on decoded pixels, stopping once the verdict is known.
 * - Playwright-style: pngjs `PNG.sync.read` both, pixelmatch at Playwright's threshold 0.2 into a diff image.
 * - looks-same: `looksSame(a, b)` with its defaults (CIEDE2000 tolerance 2.3, anti-aliasing ignored).
 * - odiff: the `odiff-bin` binary, spawned per comparison (`compare`) or kept running (`ODiffServer`).
 * - WebdriverIO: the comparison engine of `@wdio/image-comparison-core` (what `checkScreen` runs),
 *   with its default preset (threshold 0.063, anti-aliasing counted).
 */
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import pixelmatch from "pixelmatch";
import { PNG } from "pngjs";
import { compare, comparePng, systemBarMasks, type CompareResult, type RawImage } from "tapshot/images";
import { IPHONE_15 } from "./screens.js";

/** Both files' bytes, read at once (as looks-same and odiff read their two files). */
function readBoth(a: string, b: string): Promise<[Buffer, Buffer]> {
  return Promise.all([readFile(a), readFile(b)]);
}

const require = createRequire(import.meta.url);

/** A comparator's answer: pass or fail, and its count when it gives one. */
export interface Verdict {
  pass: boolean;
  /** Differing pixels, for the report. */
  figure?: number;
  /** Set when the tool stopped counting once the verdict was known: `figure` is a lower bound. */
  stopped?: boolean;
}

/** Share of the screen that may differ for a pass. */
export const ALLOWED_RATIO = 0.001;
const { width: W, height: H } = IPHONE_15.screen;
export const ALLOWED_PIXELS = Math.floor(W * H * ALLOWED_RATIO);
export const BAR_MASKS = systemBarMasks(IPHONE_15);

/** One comparator over PNG files, PNG bytes in memory, and (tapshot and pixelmatch only) decoded pixels. */
export interface Tool {
  name: string;
  files?: (a: string, b: string, scratch: string) => Promise<Verdict>;
  bytes?: (a: Buffer, b: Buffer, scratch: string) => Promise<Verdict>;
  decoded?: (a: RawImage, b: RawImage) => Promise<Verdict>;
  close?: () => void;
}

const countVerdict = (diffPixels: number, stopped = false): Verdict => ({
  pass: diffPixels <= ALLOWED_PIXELS,
  figure: diffPixels,
  ...(stopped ? { stopped } : {}),
});
const tapshotVerdict = ({ diffPixels, stoppedAbove }: CompareResult) =>
  countVerdict(diffPixels, stoppedAbove !== undefined);

export const tapshot: Tool = {
  name: "tapshot",
  files: async (a, b) => tapshot.bytes!(...(await readBoth(a, b)), ""),
  bytes: async (a, b) => tapshotVerdict(await comparePng(a, b, { masks: BAR_MASKS, stopAbove: ALLOWED_PIXELS })),
  decoded: async (a, b) => tapshotVerdict(await compare(a, b, { masks: BAR_MASKS, stopAbove: ALLOWED_PIXELS })),
};

function playwrightStyle(a: Buffer, b: Buffer): Verdict {
  const expected = PNG.sync.read(a);
  const actual = PNG.sync.read(b);
  const diff = new PNG({ width: expected.width, height: expected.height });
  return countVerdict(
    pixelmatch(expected.data, actual.data, diff.data, expected.width, expected.height, { threshold: 0.2 }),
  );
}

export const playwright: Tool = {
  name: "pngjs + pixelmatch (Playwright)",
  files: async (a, b) => playwrightStyle(...(await readBoth(a, b))),
  bytes: async (a, b) => playwrightStyle(a, b),
  decoded: async (a, b) => countVerdict(pixelmatch(a.data, b.data, undefined, a.width, a.height, { threshold: 0.2 })),
};

type LooksSame = (a: string | Buffer, b: string | Buffer) => Promise<{ equal: boolean }>;

function looksSameTool(): Tool {
  const looksSame = require("looks-same") as LooksSame;
  return {
    name: "looks-same",
    files: async (a, b) => ({ pass: (await looksSame(a, b)).equal }),
    bytes: async (a, b) => ({ pass: (await looksSame(a, b)).equal }),
  };
}

interface OdiffResult {
  match: boolean;
  reason?: string;
  diffPercentage?: number;
  diffCount?: number;
}
interface OdiffOptions {
  threshold: number;
  antialiasing: boolean;
  ignoreRegions: { x1: number; y1: number; x2: number; y2: number }[];
}
interface Odiff {
  compare(a: string, b: string, diff: string, options: OdiffOptions): Promise<OdiffResult>;
  ODiffServer: new () => {
    compare(a: string, b: string, diff: string, options: OdiffOptions): Promise<OdiffResult>;
    compareBuffers(a: Buffer, af: string, b: Buffer, bf: string, diff: string, o: OdiffOptions): Promise<OdiffResult>;
    stop(): void;
  };
}
const odiff = () => require("odiff-bin") as Odiff;
const ODIFF_OPTIONS: OdiffOptions = {
  threshold: 0.1,
  antialiasing: true,
  ignoreRegions: BAR_MASKS.map((m) => ({ x1: m.x, y1: m.y, x2: m.x + m.width - 1, y2: m.y + m.height - 1 })),
};
const odiffVerdict = (r: OdiffResult): Verdict =>
  r.match ? { pass: true, figure: 0 } : { pass: (r.diffCount ?? Infinity) <= ALLOWED_PIXELS, figure: r.diffCount };

function odiffSpawned(): Tool {
  const { compare: odiffCompare } = odiff();
  return {
    name: "odiff (spawned)",
    files: async (a, b, scratch) => odiffVerdict(await odiffCompare(a, b, join(scratch, "odiff.png"), ODIFF_OPTIONS)),
  };
}

/** odiff with one server process kept running for all comparisons. */
function odiffServer(): Tool {
  const server = new (odiff().ODiffServer)();
  return {
    name: "odiff (server)",
    files: async (a, b, scratch) =>
      odiffVerdict(await server.compare(a, b, join(scratch, "odiff-s.png"), ODIFF_OPTIONS)),
    bytes: async (a, b, scratch) =>
      odiffVerdict(await server.compareBuffers(a, "png", b, "png", join(scratch, "odiff-b.png"), ODIFF_OPTIONS)),
    close: () => server.stop(),
  };
}

type WdioCompare = (
  a: Buffer,
  b: Buffer,
  o: { output: { ignoredBoxes: { left: number; top: number; right: number; bottom: number }[] } },
) => Promise<{ rawMisMatchPercentage: number }>;

async function wdioCompare(): Promise<WdioCompare> {
  // The package's comparison engine; its entry point drives a browser session around it.
  const path = require.resolve("@wdio/image-comparison-core").replace(/index\.js$/, "pixelmatch/compareImages.js");
  return ((await import(path)) as { default: WdioCompare }).default;
}

async function wdioTool(): Promise<Tool> {
  const compareImages = await wdioCompare();
  const ignoredBoxes = BAR_MASKS.map((m) => ({
    left: m.x,
    top: m.y,
    right: m.x + m.width - 1,
    bottom: m.y + m.height - 1,
  }));
  const verdict = async (a: Buffer, b: Buffer): Promise<Verdict> => {
    const { rawMisMatchPercentage } = await compareImages(a, b, { output: { ignoredBoxes } });
    return {
      pass: rawMisMatchPercentage <= ALLOWED_RATIO * 100,
      figure: Math.round((rawMisMatchPercentage / 100) * W * H),
    };
  };
  return {
    name: "WebdriverIO image-comparison-core",
    files: async (a, b) => verdict(...(await readBoth(a, b))),
    bytes: verdict,
  };
}

/** The peers by short name; each is loaded only when asked for (the memory figure loads one per process). */
export const PEERS = {
  playwright: async () => playwright,
  "looks-same": async () => looksSameTool(),
  "odiff-spawned": async () => odiffSpawned(),
  "odiff-server": async () => odiffServer(),
  wdio: wdioTool,
} satisfies Record<string, () => Promise<Tool>>;
export type PeerName = keyof typeof PEERS;
