/*
 * Taking a whole page (docs/api.md "Whole-page baselines"): swipe back to the top, then look at
 * the settled screen and swipe down with the scroll tap's swipe (src/core/device/swipe-geometry.ts)
 * until a swipe moves nothing (the end of the page) or `maxScreens` / `maxHeight` is reached,
 * and stitch what was seen (src/core/flows/screenshot/stitch.ts).
 */
import { DeviceError, InputError } from "../../ground/errors.js";
import { decode, encodePng } from "../../pixels/images.js";
import { systemBarMasks } from "../../pixels/masks.js";
import type { Call } from "../../run/call.js";
import { rewind, sameScreenOutsideBars, SETTLE_MAX_MS, swipesText } from "../../run/scrolling.js";
import type { SettleRule } from "../../run/settle.js";
import { pollForMatch, type Shot } from "../../run/stable-screen.js";
import { scrollRegion, swipeFor } from "../../device/swipe-geometry.js";
import type { FullPageParams } from "./page-options.js";
import { stitchScreens, StitchError, type StitchedPage } from "./stitch.js";

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

/** Take the page from its top: rewind, then screens and swipes down until the end or a limit; stitched. */
export async function capturePage(call: Call, { fullPage, settle, until }: PageTaking): Promise<CapturedPage> {
  const { device } = call;
  if (fullPage.maxHeight < device.screen.height) {
    throw new InputError(
      `fullPage.maxHeight ${fullPage.maxHeight} is less than one ${device.screen.width}x${device.screen.height} ` +
        `screen; give at least ${device.screen.height}.`,
    );
  }
  const region = scrollRegion(device);
  if (region.height < 4) {
    throw new DeviceError(`the ${device.screen.width}x${device.screen.height} screen has no room to swipe in.`);
  }
  const swipe = swipeFor(region, "down");
  const stitchOptions = {
    top: device.insets.top,
    bottom: device.screen.height - device.insets.bottom,
    expectedShift: swipe.from.y - swipe.to.y,
  };
  const rewound = await rewind(call, swipe, "down", () => until);
  if (rewound > 1) call.note(`scrolled to the top of the page with ${swipesText(rewound - 1, "up")}`);

  let settled = true;
  const look = async (looks: number) => {
    const seen = await settledLook(call, settle, until, looks);
    settled &&= seen.settled;
    return seen.shot;
  };
  const shots: Shot[] = [await look(fullPage.maxScreens)];
  let ended: CapturedPage["ended"] = "maxScreens";
  while (shots.length < fullPage.maxScreens) {
    await call.swipe(swipe);
    const next = await look(fullPage.maxScreens - shots.length);
    if (sameScreenOutsideBars(call, shots.at(-1)!, next)) {
      ended = "end";
      break;
    }
    shots.push(next);
    // A slow swipe moves the content about its own length: stop before the page would pass maxHeight.
    if (device.screen.height + shots.length * stitchOptions.expectedShift > fullPage.maxHeight) {
      ended = "maxHeight";
      break;
    }
  }
  let page = stitch(shots, stitchOptions);
  while (page.layout.height > fullPage.maxHeight && shots.length > 1) {
    shots.pop();
    ended = "maxHeight";
    page = stitch(shots, stitchOptions);
  }
  if (ended !== "end") call.note(`the page was ${describePage({ layout: page.layout, ended })}`);
  return { ...page, png: await encodePng(page.raw), ended, settled };
}

/**
 * The screen once `settle.shots` screenshots in a row are identical outside the system bars (the
 * settle rule of a single screen, src/core/run/stable-screen.ts), waiting at most an even share of
 * what is left among the `looks` to come, and {@link SETTLE_MAX_MS}.
 */
async function settledLook(
  call: Call,
  settle: SettleRule,
  until: number,
  looks: number,
): Promise<{ shot: Shot; settled: boolean }> {
  const now = Date.now();
  const share = Math.min(SETTLE_MAX_MS, Math.max(0, until - now) / Math.max(1, looks));
  const poll = { until: now + share, masks: systemBarMasks(call.device), settle: { shots: settle.shots, graceMs: 0 } };
  // Nothing matches: the poll ends once the screen has settled, or at its share of the time.
  const polled = await pollForMatch(call, poll, async () => ({ matched: false, value: undefined }));
  if (polled.ended !== "settled") call.note("a screen of the page did not settle: its last screenshot was taken");
  return { shot: { png: polled.png, raw: await decode(polled.png) }, settled: polled.ended === "settled" };
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
