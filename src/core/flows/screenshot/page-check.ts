/*
 * Comparing a page taken now with a stored whole-page baseline (docs/api.md "Whole-page
 * baselines"): bytes first, then pixelmatch's count over the page with the same masks and
 * allowance a single screen has; a mismatch names where on the page it is ("screen 3 of 5,
 * y 1840-2100 of the page"), by the screen that first showed those rows.
 */
import type { Rect } from "../../ground/geometry.js";
import { compare, decode, type RawImage } from "../../pixels/images.js";
import { systemBarMasks } from "../../pixels/masks.js";
import type { Call } from "../../run/call.js";
import type { Use } from "../../run/lifecycle.js";
import type { BaselineRecord } from "../../store/records.js";
import { allowedDiffPixels, type ScreenshotParams } from "./input.js";
import { pagePosition, describePage, type CapturedPage } from "./page-capture.js";
import {
  describeMismatch,
  matchedDone,
  type Baseline,
  type PixelMismatch,
  type ScreenshotDone,
  type StoredBaseline,
} from "./pixel-check.js";
import { screenOfRow, type PageLayout } from "./stitch.js";

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

/** How many pixels of a stored page may differ under the call's allowance. */
export function allowedForPage(stored: StoredBaseline, params: ScreenshotParams): number {
  return allowedDiffPixels(stored.record.device.screen.width * (stored.record.fullPage?.height ?? 0), params);
}

/** Compare `page` with the stored page: done when it matches, else a mismatch naming where it differs. */
export async function comparePage(
  call: Call,
  stored: StoredBaseline,
  page: CapturedPage,
  params: ScreenshotParams,
): Promise<Use<ScreenshotDone, PixelMismatch>> {
  const allowed = allowedForPage(stored, params);
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
  if (raw.height !== page.raw.height) {
    const text =
      `the page is now ${describePage(page)}; the baseline ${raw.height} px from ${storedScreens} screen` +
      `${storedScreens === 1 ? "" : "s"}` +
      firstDifference(baseline, page.raw, page.layout);
    const diffPixels = raw.width * raw.height;
    return { mismatch: { text, healable: true, ended: "settled", baseline, shot, diffPixels, pageScreens } };
  }
  const counted = await compare(raw, page.raw, {
    threshold: params.threshold,
    masks: baseline.masks,
    diff: true,
    signal: call.deadline.signal,
  });
  if (counted.diffPixels <= allowed) return { done: matchedDone(counted.diffPixels, allowed) };
  const places = await differingPlaces(baseline, page.raw, page.layout);
  const where = places.length ? `${places.join("; ")}: ` : "";
  const text = where + describeMismatch(counted, raw, { allowed, params, counted: true });
  const { diffPixels, diffPng } = counted;
  return {
    mismatch: {
      ...{ text, healable: true, ended: "settled" as const, baseline, shot, diffPixels, pageScreens },
      ...(diffPng ? { diffPng } : {}),
    },
  };
}

/**
 * Where on the page pixels differ, as page positions: strips of {@link STRIP_ROWS} rows with a
 * differing pixel, joined while they touch; at most {@link MOST_PLACES}.
 */
async function differingPlaces(baseline: Baseline, now: RawImage, layout: PageLayout): Promise<string[]> {
  const ranges: [number, number][] = [];
  for (let y = 0; y < now.height && ranges.length <= MOST_PLACES; y += STRIP_ROWS) {
    const y1 = Math.min(now.height, y + STRIP_ROWS);
    if (!(await stripDiffers(baseline, now, y, y1))) continue;
    const last = ranges.at(-1);
    if (last && last[1] === y - 1) last[1] = y1 - 1;
    else ranges.push([y, y1 - 1]);
  }
  const named = ranges.slice(0, MOST_PLACES).map(([a, b]) => pagePosition(layout, a, b, (y) => screenOfRow(layout, y)));
  if (ranges.length > MOST_PLACES) named.push("and further down");
  return named;
}

/** Whether rows `[y0, y1)` have a pixel that differs outside the masks, by pixelmatch's count. */
async function stripDiffers(baseline: Baseline, now: RawImage, y0: number, y1: number): Promise<boolean> {
  const stride = now.width * 4;
  const a = baseline.raw.data.subarray(y0 * stride, y1 * stride);
  const b = now.data.subarray(y0 * stride, y1 * stride);
  if (a.equals(b)) return false;
  const strip = (data: Buffer): RawImage => ({ data, width: now.width, height: y1 - y0 });
  const masks = baseline.masks.map((m) => ({ ...m, y: m.y - y0 }));
  const { diffPixels } = await compare(strip(a), strip(b), { threshold: baseline.threshold, masks, stopAbove: 0 });
  return diffPixels > 0;
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
