/*
 * Where a scroll swipes (docs/api.md "Scrolling to find" and "Whole-page baselines"): one fixed
 * swipe per direction, computed from the described device, in screenshot pixels, so a replay
 * swipes exactly what was learned. Shared by scroll taps and full-page baselines.
 */
import type { DeviceDescription, Swipe } from "./description.js";

export type { Swipe } from "./description.js";
import type { Point, Rect } from "../ground/geometry.js";

/** Which way the content moves into view: `down` shows what is below (the finger moves up). */
export type ScrollDirection = "down" | "up" | "left" | "right";

/**
 * Share of the scroll region the finger travels. Half a region leaves the rows seen last on the
 * screen, so an element cut by the edge before a swipe is whole after it.
 */
export const SWIPE_TRAVEL = 0.5;
/**
 * How long the move takes. Slow enough that no platform flings: WebdriverIO 9's own `swipe`
 * moves 95% of the screen in 1500 ms; this moves half in 800 ms, about the same speed.
 */
export const SWIPE_MOVE_MS = 800;
/**
 * Kept clear of the region's ends along the swipe, as a share (25%): far from the home indicator
 * and the bottom edge (iOS's home gesture), the status bar (pull-down shades) and, for sideways
 * swipes, Android's back-gesture edges (about 24 dp each side with gesture navigation).
 */
const END_MARGIN = (1 - SWIPE_TRAVEL) / 2;

/**
 * The region swipes happen in: `within` (clipped to the screen) or the screen outside its system
 * bars (the status bar, the navigation bar or home indicator).
 */
export function scrollRegion(device: Pick<DeviceDescription, "screen" | "insets">, within?: Rect): Rect {
  const { screen, insets } = device;
  const content = {
    x: insets.left,
    y: insets.top,
    width: screen.width - insets.left - insets.right,
    height: screen.height - insets.top - insets.bottom,
  };
  if (!within) return content;
  const x0 = Math.max(content.x, within.x);
  const y0 = Math.max(content.y, within.y);
  const x1 = Math.min(content.x + content.width, within.x + within.width);
  const y1 = Math.min(content.y + content.height, within.y + within.height);
  return { x: x0, y: y0, width: Math.max(0, x1 - x0), height: Math.max(0, y1 - y0) };
}

/**
 * The swipe that scrolls `region` in `direction`: along its centre line, from one end margin to
 * the other. Scrolling `down` moves the finger up, from 75% of the region's height to 25%.
 */
export function swipeFor(region: Rect, direction: ScrollDirection): Swipe {
  const along = direction === "down" || direction === "up" ? "y" : "x";
  const start = along === "y" ? region.y : region.x;
  const length = along === "y" ? region.height : region.width;
  const near = Math.round(start + length * END_MARGIN);
  const far = Math.round(start + length * (1 - END_MARGIN));
  // The finger moves against the direction the content should come from.
  const [a, b] = direction === "down" || direction === "right" ? [far, near] : [near, far];
  const across = Math.round(along === "y" ? region.x + region.width / 2 : region.y + region.height / 2);
  const point = (at: number): Point => (along === "y" ? { x: across, y: at } : { x: at, y: across });
  return { from: point(a), to: point(b), durationMs: SWIPE_MOVE_MS };
}

/** The direction that undoes `direction`: back towards the start of the list. */
export function opposite(direction: ScrollDirection): ScrollDirection {
  return ({ down: "up", up: "down", left: "right", right: "left" } as const)[direction];
}

/** The axis a direction scrolls along. */
export function axisOf(direction: ScrollDirection): "x" | "y" {
  return direction === "down" || direction === "up" ? "y" : "x";
}

/** Rows `[y0, y1)` at column `x`: where a vertical swipe happens. */
export interface VerticalSpan {
  x: number;
  y0: number;
  y1: number;
}

/**
 * A vertical swipe of `travel` pixels centred on `span` (a whole page's scrolling band, below its
 * sticky header and above its footer), in the scroll tap's time: `down` moves the finger up.
 */
export function swipeInSpan(span: VerticalSpan, travel: number, direction: "down" | "up"): Swipe {
  const centre = (span.y0 + span.y1) / 2;
  const half = Math.min(travel, span.y1 - span.y0) / 2;
  const low = { x: Math.round(span.x), y: Math.round(centre + half) };
  const high = { x: Math.round(span.x), y: Math.round(centre - half) };
  const durationMs = SWIPE_MOVE_MS;
  return direction === "down" ? { from: low, to: high, durationMs } : { from: high, to: low, durationMs };
}
