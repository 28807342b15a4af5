/*
 * Comparing a page taken now with a stored whole-page baseline (docs/api.md "Whole-page
 * baselines"): bytes first, then pixelmatch's count over the page with the same masks and
 * allowance a single screen has; a mismatch names where on the page it is ("screen 3 of 5,
 * y 1840-2100 of the page"), by the screen that first showed those rows.
 */
import type { Rect } from "../../ground/geometry.js";
import { compare } from "../../pixels/image-compare.js";
import { decode, type RawImage } from "../../pixels/image-decode.js";
import { systemBarMasks } from "../../pixels/masks.js";
import type { Call } from "../../run/call.js";
import type { Use } from "../../run/lifecycle.js";
import type { BaselineRecord } from "../../store/baseline-record.js";
import { describeAllowance, type ScreenshotParams } from "./input.js";
import { describePage, type CapturedPage } from "./page-capture.js";
import {
  allowedFor,
  matchedDone,
  type Baseline,
  type PixelMismatch,
  type ScreenshotDone,
  type StoredBaseline,
} from "./pixel-check.js";
import { pagePosition, screenOfRow, screenSlices, type PageLayout } from "./stitch.js";

/** Rows per strip when looking for where on the page pixels differ. */
const STRIP_ROWS = 16;
/** Places on the page a message names at most. */
const MOST_PLACES = 3;

/** What a page comparison ignores: the page's system bars (its first screen's status bar, its last's navigation bar), varying boxes and masks. */
export function pageMasks(
  record: Pick<BaselineRecord, "device" | "varying">,
  height: number,
  params: ScreenshotParams,
): Rect[] {
  const { device, varying } = record;
  return [
    ...systemBarMasks({ screen: { width: device.screen.width, height }, insets: device.insets }),
    ...varying,
    ...params.mask,
  ];
}

/**
 * Compare `page` with the stored page, screen by screen: each screen's rows (those it showed
 * first; the header goes with the first, the footer with the last) may differ by one screen's
 * allowance. Done when every screen passes, else a mismatch naming where the failing ones differ.
 */
export async function comparePage(
  call: Call,
  stored: StoredBaseline,
  page: CapturedPage,
  params: ScreenshotParams,
): Promise<Use<ScreenshotDone, PixelMismatch>> {
  // Each screen of a page may differ by one screen's allowance.
  const allowed = allowedFor(stored, params);
  if (page.png.equals(stored.image)) return { done: matchedDone(0, allowed) };
  const raw = await decode(stored.image);
  const baseline: Baseline = {
    png: stored.image,
    raw,
    masks: pageMasks(stored.record, raw.height, params),
    threshold: params.threshold,
  };
  const shot = { png: page.png, raw: page.raw };
  const storedScreens = stored.record.fullPage?.screens ?? 1;
  const pageScreens = page.layout.offsets.length;
  const ended = page.settled ? ("settled" as const) : ("deadline" as const);
  const common = { healable: true, ended, baseline, shot, pageScreens };
  if (raw.height !== page.raw.height) {
    const text =
      `the page is now ${describePage(page)}; the baseline ${raw.height} px from ${storedScreens} screen` +
      `${storedScreens === 1 ? "" : "s"}` +
      firstDifference(baseline, page.raw, page.layout);
    return { mismatch: { ...common, text, diffPixels: raw.width * raw.height } };
  }
  const slices = screenSlices(page.layout);
  const counts: number[] = [];
  for (const [y0, y1] of slices) counts.push(await countRows(baseline, page.raw, y0, y1));
  const diffPixels = counts.reduce((a, b) => a + b, 0);
  const failing = slices.filter((_, k) => counts[k]! > allowed);
  if (!failing.length) return { done: matchedDone(diffPixels, allowed) };
  const named: string[] = [];
  for (const [y0, y1] of failing.slice(0, MOST_PLACES)) {
    const rows = (await differingRows(baseline, page.raw, y0, y1)) ?? [y0, y1 - 1];
    const count = counts[slices.findIndex((s) => s[0] === y0)]!;
    named.push(`${pagePosition(page.layout, rows[0], rows[1])}: ${count} pixels differ`);
  }
  if (failing.length > MOST_PLACES) named.push(`and ${failing.length - MOST_PLACES} more screens`);
  const text =
    `${named.join("; ")} from the baseline, allowed ${describeAllowance(allowed, params)} per screen ` +
    `(${diffPixels} on the whole page)`;
  const drawn = await call.whileTimeLeft("drawing the page's diff", () =>
    compare(raw, page.raw, {
      threshold: params.threshold,
      masks: baseline.masks,
      diff: true,
      signal: call.deadline.signal,
    }),
  );
  return { mismatch: { ...common, text, diffPixels, ...(drawn?.diffPng ? { diffPng: drawn.diffPng } : {}) } };
}

/** The first and last rows of `[y0, y1)` in strips of {@link STRIP_ROWS} with a differing pixel; `undefined` for none. */
async function differingRows(
  baseline: Baseline,
  now: RawImage,
  y0: number,
  y1: number,
): Promise<[number, number] | undefined> {
  let found: [number, number] | undefined;
  for (let y = y0; y < y1; y += STRIP_ROWS) {
    const end = Math.min(y1, y + STRIP_ROWS);
    if (!(await countRows(baseline, now, y, end, 0))) continue;
    found = found ? [found[0], end - 1] : [y, end - 1];
  }
  return found;
}

/**
 * Pixels of rows `[y0, y1)` that differ outside the masks, by pixelmatch's count (anti-aliasing
 * read within the rows); with `stopAbove`, counting stops once more differ.
 */
async function countRows(
  baseline: Baseline,
  now: RawImage,
  y0: number,
  y1: number,
  stopAbove?: number,
): Promise<number> {
  const stride = now.width * 4;
  const a = baseline.raw.data.subarray(y0 * stride, y1 * stride);
  const b = now.data.subarray(y0 * stride, y1 * stride);
  if (a.equals(b)) return 0;
  const rows = (data: Buffer): RawImage => ({ data, width: now.width, height: y1 - y0 });
  const masks = baseline.masks.map((m) => ({ ...m, y: m.y - y0 }));
  const { diffPixels } = await compare(rows(a), rows(b), {
    threshold: baseline.threshold,
    masks,
    ...(stopAbove === undefined ? {} : { stopAbove }),
  });
  return diffPixels;
}

/** "; the first difference is at screen 2 of 4, y 900 of the page" for pages of another height, or nothing. */
function firstDifference(baseline: Baseline, now: RawImage, layout: PageLayout): string {
  const stride = now.width * 4;
  const rows = Math.min(baseline.raw.height, now.height);
  for (let y = 0; y < rows; y++) {
    if (
      !baseline.raw.data.subarray(y * stride, (y + 1) * stride).equals(now.data.subarray(y * stride, (y + 1) * stride))
    ) {
      if (baseline.masks.some((m) => m.y <= y && y < m.y + m.height && m.x <= 0 && m.x + m.width >= now.width))
        continue;
      return `; the first row that differs is y ${y} of the page, on screen ${screenOfRow(layout, y)} of ${layout.offsets.length}`;
    }
  }
  return "";
}
