/*
 * Scrolling a whole page (docs/api.md "Whole-page baselines"): when a screen counts as settled or
 * unmoved with room for lossy frames (src/core/pixels/row-signatures.ts), how long each swipe is
 * for the scrolling band the first screens show, and getting to the page's top without a swipe at
 * the top when the page is already there.
 */
import type { DeviceDescription, Swipe } from "../../device/description.js";
import { scrollRegion, swipeFor, swipeInSpan, SWIPE_TRAVEL, type VerticalSpan } from "../../device/swipe-geometry.js";
import type { Rect } from "../../ground/geometry.js";
import { decode, type RawImage } from "../../pixels/image-decode.js";
import { systemBarMasks } from "../../pixels/masks.js";
import { alikeRowsFromTop, screensAlike } from "../../pixels/row-signatures.js";
import type { Call } from "../../run/call.js";
import { SETTLE_MAX_MS } from "../../run/scrolling.js";
import type { SettleRule } from "../../run/settle.js";
import { pollForMatch, type Shot } from "../../run/stable-screen.js";
import { MIN_OVERLAP_SHARE, shiftBetween, type StillRows } from "./stitch.js";

/**
 * The first swipe down moves a quarter of the content area: the band (the content area without a
 * sticky header and footer) is not known before two screens, and a quarter leaves the stitcher's
 * overlap for bars of up to two thirds of the content area.
 */
const FIRST_TRAVEL = 0.25;
/** Later swipes move this share of the band, twice the stitcher's minimum overlap left (and at most half the content area). */
const BAND_TRAVEL = 1 - 2 * MIN_OVERLAP_SHARE;
/**
 * The swipe that tells whether the page is at its top: 4% of the screen's height (about 37 dp on a
 * 2400 px Android phone, 34 pt on an iPhone), well under what starts a refresh (Android's
 * SwipeRefreshLayout fires after 64 dp of pull at drag rate 0.5, 128 dp of finger travel) and, held
 * before release as every swipe is (src/appium/actions.ts), no flick that dismisses an iOS sheet.
 */
export const TOP_PROBE_SHARE = 0.04;
/**
 * The first screen is the stored page's top when this share of its content rows, from the top down,
 * are alike (the rest may be the footer, which the stored page shows only at its end).
 */
const KNOWN_TOP_SHARE = 0.75;
/** A swipe back that moved the content less than this share of its travel reached the top. */
const SHORT_MOVE = 0.75;
/** The most swipes back to the top. */
const MOST_REWIND_SWIPES = 30;

/** Where a page scrolls on this screen. */
export interface PageFrame {
  /** The content area between the system bars. */
  region: Rect;
  /** Its rows, as the stitcher takes them. */
  top: number;
  bottom: number;
}

export function pageFrame(device: Pick<DeviceDescription, "screen" | "insets">): PageFrame {
  const region = scrollRegion(device);
  return { region, top: device.insets.top, bottom: device.screen.height - device.insets.bottom };
}

/** Whether two screenshots show the same content rows, with room for lossy frames: a swipe between them moved nothing. */
export function alikeShots(frame: PageFrame, a: Shot, b: Shot): boolean {
  return a.raw === b.raw || screensAlike(a.raw, b.raw, frame);
}

/**
 * The screen once `settle.shots` screenshots in a row are alike in the content rows (the single
 * screen's settle rule with room for lossy frames), waiting at most an even share of what is left
 * among the `looks` to come, and {@link SETTLE_MAX_MS}.
 */
export async function settledLook(
  call: Call,
  { settle, until, looks, frame }: { settle: SettleRule; until: number; looks: number; frame: PageFrame },
): Promise<{ shot: Shot; settled: boolean }> {
  const now = Date.now();
  const share = Math.min(SETTLE_MAX_MS, Math.max(0, until - now) / Math.max(1, looks));
  const same = async (a: Buffer, b: Buffer) => a.equals(b) || screensAlike(await decode(a), await decode(b), frame);
  const poll = {
    until: now + share,
    masks: systemBarMasks(call.device),
    settle: { shots: settle.shots, graceMs: 0 },
    same,
  };
  // Nothing matches: the poll ends once the screen has settled, or at its share of the time.
  const polled = await pollForMatch(call, poll, async () => ({ matched: false, value: undefined }));
  if (polled.ended !== "settled") call.note("a screen of the page did not settle: its last screenshot was taken");
  return { shot: { png: polled.png, raw: await decode(polled.png) }, settled: polled.ended === "settled" };
}

/**
 * The swipe down to the next screen: {@link FIRST_TRAVEL} of the content area before the band is
 * known, then {@link BAND_TRAVEL} of the band, inside it (a swipe that starts on a sticky bar may
 * scroll nothing).
 */
export function forwardSwipe(frame: PageFrame, still?: StillRows): Swipe {
  const { region } = frame;
  const x = region.x + region.width / 2;
  if (!still || still.band < 4) {
    return swipeInSpan({ x, y0: region.y, y1: region.y + region.height }, FIRST_TRAVEL * region.height, "down");
  }
  const travel = Math.min(SWIPE_TRAVEL * region.height, BAND_TRAVEL * still.band);
  return swipeInSpan({ x, y0: still.head, y1: still.head + still.band }, travel, "down");
}

/**
 * Scroll by `swipe`: with the driver's own scroll where the session has one (its answer says
 * whether more can scroll), else the swipe (no answer).
 */
export async function scrollBy(call: Call, swipe: Swipe, frame: PageFrame): Promise<{ more?: boolean }> {
  const y0 = Math.min(swipe.from.y, swipe.to.y);
  const y1 = Math.max(swipe.from.y, swipe.to.y);
  const span: VerticalSpan = { x: frame.region.x, y0, y1 };
  const area = { x: span.x, y: y0, width: frame.region.width, height: Math.max(1, y1 - y0) };
  const direction = swipe.from.y > swipe.to.y ? "down" : "up";
  const answer = await call.scrollAndTell({ area, direction, share: 1 });
  if (answer) return { more: answer.more };
  await call.swipe(swipe);
  return {};
}

/** How {@link toPageTop} looks at a screen. */
export type Look = (looksLeft: number) => Promise<Shot>;

/**
 * Get from `first` to the page's top. A first screen that shows the stored page's top (`knownTop`,
 * its first screen of rows) is there: no swipe at all. Else a short swipe back first ({@link TOP_PROBE_SHARE}): if it moved
 * nothing the page is at its top, and no full swipe was made there (a pull-to-refresh list does not
 * refresh, a sheet is not dismissed). Else swipes back until the driver says nothing is above, a
 * swipe moves the content less than its travel (it reached the top on the way), or moves nothing.
 * Returns the top screen and the swipes made after the probe.
 */
export async function toPageTop(
  call: Call,
  { first, frame, look, knownTop }: { first: Shot; frame: PageFrame; look: Look; knownTop?: RawImage },
): Promise<{ shot: Shot; swipes: number }> {
  const content = frame.bottom - frame.top;
  if (knownTop && alikeRowsFromTop(first.raw, knownTop, frame) >= KNOWN_TOP_SHARE * content) {
    return { shot: first, swipes: 0 };
  }
  const probeTravel = Math.max(8, Math.round(call.device.screen.height * TOP_PROBE_SHARE));
  const x = frame.region.x + frame.region.width / 2;
  const centre = frame.region.y + frame.region.height / 2;
  await call.swipe(swipeInSpan({ x, y0: centre - probeTravel, y1: centre + probeTravel }, probeTravel, "up"));
  let shot = await look(MOST_REWIND_SWIPES + 1);
  if (alikeShots(frame, first, shot)) return { shot, swipes: 0 };
  const down = swipeFor(frame.region, "down");
  const back: Swipe = { from: down.to, to: down.from, durationMs: down.durationMs };
  const travel = Math.abs(back.to.y - back.from.y);
  const stitchFrame = { top: frame.top, bottom: frame.bottom, expectedShift: travel };
  for (let swipes = 1; swipes <= MOST_REWIND_SWIPES; swipes++) {
    const { more } = await scrollBy(call, back, frame);
    const next = await look(MOST_REWIND_SWIPES + 1 - swipes);
    if (more === false || alikeShots(frame, shot, next)) return { shot: next, swipes };
    // `next` shows what is above `shot`: the content moved down by this much.
    const moved = shiftBetween(next.raw, shot.raw, stitchFrame);
    if (moved !== undefined && moved > 0 && moved < SHORT_MOVE * travel) return { shot: next, swipes };
    shot = next;
  }
  call.note(`swiped back ${MOST_REWIND_SWIPES} times and the page still moved: taken from where it was then`);
  return { shot, swipes: MOST_REWIND_SWIPES };
}
