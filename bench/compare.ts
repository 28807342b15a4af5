/**
 * Benchmark 3, full-screen comparison: tapshot's `compare` (status-bar and home-indicator
 * masks, counting stopped once the default 0.1% allowance is exceeded) against calling
 * pixelmatch directly on the same decoded RGBA buffers, for identical, near-identical (a 20x20
 * block, 400 pixels, changed) and very different (the lower half inverted) 1179x2556
 * screenshots; then near-identical again after this process has spawned a child (as a test
 * runner that starts Appium or a browser has), where buffers kept for the process's life used
 * to make masked comparisons ~10x slower. Wall time; decoding is outside both.
 */
import { spawnSync } from "node:child_process";
import pixelmatch from "pixelmatch";
import { compare, type RawImage } from "tapshot/images";
import { systemBarMasks } from "tapshot/images";
import { IPHONE_15, invertRect, loadScreen, rgba } from "./screens.js";
import { alternate, figure, wallMs, type Figure } from "./stats.js";

/** Options of {@link benchCompare}. */
export interface CompareBenchOptions {
  runs: number;
  warmup: number;
}

export async function benchCompare({ runs, warmup }: CompareBenchOptions): Promise<Figure[]> {
  const cart = await loadScreen("cart");
  const expected: RawImage = await rgba(cart.png);
  const { width, height } = expected;
  const masks = systemBarMasks(IPHONE_15);
  const stopAbove = Math.floor(width * height * 0.001);
  const cases: { name: string; actual: RawImage; spawnFirst?: boolean }[] = [
    { name: "identical", actual: { ...expected, data: Buffer.from(expected.data) } },
    {
      name: "near-identical",
      actual: { ...expected, data: invertRect(expected, { x: 900, y: 400, width: 20, height: 20 }) },
    },
    {
      name: "very different",
      actual: { ...expected, data: invertRect(expected, { x: 0, y: height >> 1, width, height: height >> 1 }) },
    },
  ];

  const figures: Figure[] = [];
  const near = cases[1]!;
  for (const { name, actual, spawnFirst } of [
    ...cases,
    { ...near, name: "near-identical, after spawning a child", spawnFirst: true },
  ]) {
    if (spawnFirst) spawnSync(process.execPath, ["-e", ""]);
    let tapshotDiff = 0;
    let rawDiff = 0;
    const viaTapshot = () =>
      wallMs(async () => {
        tapshotDiff = (await compare(expected, actual, { threshold: 0.1, masks, stopAbove })).diffPixels;
      });
    const viaPixelmatch = () =>
      wallMs(async () => {
        rawDiff = pixelmatch(expected.data, actual.data, undefined, width, height, { threshold: 0.1 });
      });
    const samples = await alternate(runs, warmup, viaTapshot, viaPixelmatch);
    figures.push(
      figure(`compare, ${name}`, "ms", "pixelmatch on decoded buffers", samples, {
        detail: { diffPixels: { tapshot: tapshotDiff, pixelmatch: rawDiff }, masks, stopAbove },
      }),
    );
  }
  return figures;
}
