/*
 * Taking a whole page (docs/api.md "Whole-page baselines"): get to the top (without a swipe at the
 * top when the page is there already), then look at the settled screen and swipe down with swipes
 * sized to the scrolling band (src/core/flows/screenshot/page-scroll.ts) until a swipe moves
 * nothing, the driver says the end, or `maxScreens` / `maxHeight` is reached, and stitch what was
 * seen (src/core/flows/screenshot/stitch.ts).
 */
import type { Swipe } from "../../device/description.js";
import { DeviceError, InputError } from "../../ground/errors.js";
import { decodeRegion, imageSize, type RawImage } from "../../pixels/image-decode.js";
import { encodePng } from "../../pixels/image-encode.js";
import type { Size } from "../../ground/geometry.js";
import type { Call } from "../../run/call.js";
import { swipesText } from "../../run/scrolling.js";
import type { SettleRule } from "../../run/settle.js";
import type { Shot } from "../../run/stable-screen.js";
import type { FullPageParams } from "./page-options.js";
import {
  alikeShots,
  forwardSwipe,
  pageFrame,
  scrollBy,
  settledLook,
  toPageTop,
  type Look,
  type PageFrame,
} from "./page-scroll.js";
import { stillRowsOf, stitchScreens, StitchError, type StitchedPage } from "./stitch.js";

/** A page as taken on this call: the stitched image, its PNG, and how the taking ended. */
export interface CapturedPage extends StitchedPage {
  png: Buffer;
  /** `end`: a swipe moved nothing; `maxScreens` or `maxHeight`: cut there. */
  ended: "end" | "maxScreens" | "maxHeight";
  /** Whether every screen settled before it was taken (else the last screenshot of one still changing was). */
  settled: boolean;
}

/** How a page is taken: how far at most, by when, and when each screen counts as settled. */
export interface PageTaking {
  fullPage: FullPageParams;
  /** The settle rule's `shots` apply to each screen; its `graceMs` does not (a page is taken once). */
  settle: SettleRule;
  until: number;
  /** The stored page's PNG, when comparing: a first screen showing its top needs no swipe to find the top. */
  storedPage?: Buffer;
}

/** `5 screens, 9120 px, to the end of the page`, for details and notes. */
export function describePage(page: Pick<CapturedPage, "layout" | "ended">): string {
  const screens = page.layout.offsets.length;
  const end =
    page.ended === "end"
      ? "to the end of the page"
      : page.ended === "maxScreens"
        ? "cut at fullPage.maxScreens"
        : "cut at fullPage.maxHeight";
  return `${screens} screen${screens === 1 ? "" : "s"}, ${page.layout.height} px, ${end}`;
}

/** Take the page from its top: to the top, then screens and swipes down until the end or a limit; stitched. */
export async function capturePage(
  call: Call,
  { fullPage, settle, until, storedPage }: PageTaking,
): Promise<CapturedPage> {
  const { device } = call;
  if (fullPage.maxHeight < device.screen.height) {
    throw new InputError(
      `fullPage.maxHeight ${fullPage.maxHeight} is less than one ${device.screen.width}x${device.screen.height} ` +
        `screen; give at least ${device.screen.height}.`,
    );
  }
  const frame = pageFrame(device);
  if (frame.region.height < 4) {
    throw new DeviceError(`the ${device.screen.width}x${device.screen.height} screen has no room to swipe in.`);
  }
  let settled = true;
  const look = async (looks: number) => {
    const seen = await settledLook(call, { settle, until, looks, frame });
    settled &&= seen.settled;
    return seen.shot;
  };
  // Getting to the top takes at most half of what is left, as a scroll tap's rewind.
  const rewindEnd = Date.now() + Math.max(0, until - Date.now()) / 2;
  // A screen on the way settles as fast as any: it may wait a fifth of that time, not a 31st (the most swipes back).
  const settledOnTheWay = new WeakSet<Shot>();
  const rewindLook = async (looks: number) => {
    const seen = await settledLook(call, { settle, until: rewindEnd, looks: Math.min(looks, 5), frame });
    if (seen.settled) settledOnTheWay.add(seen.shot);
    return seen.shot;
  };
  const knownTop = storedPage && (await topOf(storedPage, device.screen));
  const top = await toPageTop(call, { first: await rewindLook(1), frame, look: rewindLook, knownTop });
  // The top screen is the page's first.
  settled &&= settledOnTheWay.has(top.shot);
  if (top.swipes > 0) call.note(`scrolled to the top of the page with ${swipesText(top.swipes, "up")}`);
  const seen = await screensDown(call, { first: top.shot, frame, fullPage, look });
  return finish(call, { ...seen, settled, frame, fullPage });
}

/** The screens from `first` down, one swipe apart, until a swipe moves nothing, the driver says the end, or a limit. */
async function screensDown(
  call: Call,
  { first, frame, fullPage, look }: { first: Shot; frame: PageFrame; fullPage: FullPageParams; look: Look },
): Promise<{ shots: Shot[]; ended: CapturedPage["ended"]; laterTravel: number }> {
  const shots: Shot[] = [first];
  let swipe = forwardSwipe(frame);
  while (shots.length < fullPage.maxScreens) {
    const { more } = await scrollBy(call, swipe, frame);
    const next = await look(fullPage.maxScreens - shots.length);
    const last = shots.at(-1)!;
    if (alikeShots(frame, last, next)) return { shots, ended: "end", laterTravel: travelOf(swipe) };
    shots.push(next);
    if (more === false) return { shots, ended: "end", laterTravel: travelOf(swipe) };
    // The band as the last two screens show it (a header that changed once scrolled is left out of it).
    const options = { ...frame, expectedShift: travelOf(swipe) };
    swipe = forwardSwipe(frame, stillRowsOf([last.raw, next.raw], options));
    // A slow swipe moves the content about its own length: stop before the page would pass maxHeight.
    if (call.device.screen.height + shots.length * travelOf(swipe) > fullPage.maxHeight) {
      return { shots, ended: "maxHeight", laterTravel: travelOf(swipe) };
    }
  }
  return { shots, ended: "maxScreens", laterTravel: travelOf(swipe) };
}

/** The stored page's first screen of rows, or `undefined` when it is not of this screen's width (or unreadable). */
async function topOf(png: Buffer, screen: Size): Promise<RawImage | undefined> {
  try {
    const size = await imageSize(png);
    if (size.width !== screen.width || size.height < screen.height) return undefined;
    return await decodeRegion(png, { x: 0, y: 0, width: screen.width, height: screen.height });
  } catch {
    // A stored image that cannot be read fails the comparison itself, with its own message.
    return undefined;
  }
}

function travelOf(swipe: Swipe): number {
  return Math.abs(swipe.from.y - swipe.to.y);
}

/** Stitch the screens, leaving out the last ones while the page is taller than `maxHeight`. */
async function finish(
  call: Call,
  taken: {
    shots: Shot[];
    ended: CapturedPage["ended"];
    laterTravel: number;
    settled: boolean;
    frame: PageFrame;
    fullPage: FullPageParams;
  },
): Promise<CapturedPage> {
  const { shots, frame, fullPage, settled } = taken;
  let ended = taken.ended;
  // The later swipes' length: the tie-break among equally good offsets.
  const stitchOptions = { top: frame.top, bottom: frame.bottom, expectedShift: taken.laterTravel };
  let page = stitch(shots, stitchOptions);
  while (page.layout.height > fullPage.maxHeight && shots.length > 1) {
    shots.pop();
    ended = "maxHeight";
    page = stitch(shots, stitchOptions);
  }
  if (ended !== "end") call.note(`the page was ${describePage({ layout: page.layout, ended })}`);
  return { ...page, png: await encodePng(page.raw), ended, settled };
}

function stitch(shots: Shot[], options: Parameters<typeof stitchScreens>[1]): StitchedPage {
  try {
    return stitchScreens(
      shots.map((s) => s.raw),
      options,
    );
  } catch (error) {
    if (!(error instanceof StitchError)) throw error;
    throw new DeviceError(
      `the page could not be stitched: ${error.message}. A page that animates, loads content while it scrolls ` +
        `or scrolls more than one area cannot be taken whole (docs/api.md "Whole-page baselines"); ` +
        `compare its screens one by one instead.`,
      { cause: error },
    );
  }
}
