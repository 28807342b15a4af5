/* Taps and swipes as W3C touch actions, in the driver's tap units. */
import type { Point, Rect } from "../core/ground/geometry.js";
import { DeviceError } from "../core/ground/errors.js";
import { reason } from "./readings.js";
import type { AppiumSession } from "./session.js";

/** How long the finger stays down in a tap. */
export const TAP_HOLD_MS = 50;

/** A tap as W3C actions: one touch pointer moved to (x, y) in the viewport, pressed, held, released. */
export function tapActions(x: number, y: number) {
  return [
    {
      type: "pointer",
      id: "finger1",
      parameters: { pointerType: "touch" },
      actions: [
        { type: "pointerMove", duration: 0, origin: "viewport", x, y },
        { type: "pointerDown", button: 0 },
        { type: "pause", duration: TAP_HOLD_MS },
        { type: "pointerUp", button: 0 },
      ],
    },
  ];
}

/**
 * Hold before the move starts and after it ends. The pause before release stops the finger, so
 * the platform's velocity tracker sees no speed at release and the list does not fling on
 * (Android's VelocityTracker and UIKit's scroll views both take the velocity of the last moves).
 */
export const SWIPE_HOLD_MS = 200;

/**
 * A swipe as W3C actions, in tap units of the viewport: press at `from`, hold, move to `to`
 * over `durationMs` (the driver interpolates the moves), hold, release. UiAutomator2 and
 * XCUITest both take W3C pointer actions, as WebdriverIO 9's `swipe` sends them.
 */
export function swipeActions(from: Point, to: Point, durationMs: number) {
  return [
    {
      type: "pointer",
      id: "finger1",
      parameters: { pointerType: "touch" },
      actions: [
        { type: "pointerMove", duration: 0, origin: "viewport", x: from.x, y: from.y },
        { type: "pointerDown", button: 0 },
        { type: "pause", duration: SWIPE_HOLD_MS },
        { type: "pointerMove", duration: durationMs, origin: "viewport", x: to.x, y: to.y },
        { type: "pause", duration: SWIPE_HOLD_MS },
        { type: "pointerUp", button: 0 },
      ],
    },
  ];
}

/** Send a swipe between points in tap units, then release the input state. */
export async function performSwipe(driver: AppiumSession, from: Point, to: Point, durationMs: number): Promise<void> {
  try {
    await driver.performActions(swipeActions(from, to, durationMs));
  } catch (error) {
    throw new DeviceError(`The swipe from (${from.x}, ${from.y}) to (${to.x}, ${to.y}) failed: ${reason(error)}`, {
      cause: error,
    });
  }
  try {
    await driver.releaseActions();
  } catch {
    // As after a tap: the swipe went through.
  }
}

/** Convert a point in screenshot pixels to whole tap units inside `bounds` (tap units). */
export function toTapUnits(point: Point, scale: number, bounds: Rect): Point {
  const clamp = (v: number, from: number, size: number) =>
    Math.min(Math.max(Math.round(v), Math.ceil(from)), Math.ceil(from) + Math.max(0, Math.floor(size) - 1));
  return { x: clamp(point.x / scale, bounds.x, bounds.width), y: clamp(point.y / scale, bounds.y, bounds.height) };
}

/** Send a tap at a point in tap units, then release the input state. */
export async function performTap(driver: AppiumSession, at: Point): Promise<void> {
  try {
    await driver.performActions(tapActions(at.x, at.y));
  } catch (error) {
    // W3C "move target out of bounds": Espresso refuses points outside the app's displayMetrics or window.
    const outside = error instanceof Error && error.name === "move target out of bounds";
    throw new DeviceError(
      `The tap at (${at.x}, ${at.y}) failed: ${reason(error)}` +
        (outside
          ? ". The driver accepts taps only inside the app under test's window (not on system bars or other " +
            "windows): the stored point lies outside it on this device; learn the tap again here"
          : ""),
      { cause: error },
    );
  }
  try {
    await driver.releaseActions();
  } catch {
    // The tap went through; a driver that cannot release leaves no pressed pointer behind here.
  }
}
