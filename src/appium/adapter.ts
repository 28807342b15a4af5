/* A DeviceAdapter over Appium sessions of one platform, from a platform's `describe`. */
import type { AdapterNote, DescribedDevice, DeviceAdapter, DeviceSession } from "../core/device/description.js";
import { DeviceError } from "../core/ground/errors.js";
import { contains, type Point, type Rect } from "../core/ground/geometry.js";
import { performSwipe, performTap, toTapUnits } from "./actions.js";
import { elementDriver, elementMatches, elementRects } from "./element-rects.js";
import { nativeElementAt } from "./element-at.js";
import { takePng } from "./readings.js";
import { clearFocused, fieldBySelectors, pressKey, typeIntoElement, typeIntoFocused } from "./typing.js";
import { appIdentity } from "./app-identity.js";
import {
  assertAppiumSession,
  assertNativeContext,
  nativePageSource,
  type AppiumSession,
  type SessionRequirement,
} from "./session.js";

/** What a platform's describe returns: the description and where taps may land (tap units). */
export interface Reading {
  device: DescribedDevice;
  /** Where taps may land, in tap units measured from the screen's corner. */
  tapBounds: Rect;
  /**
   * Where the driver measures tap coordinates from, in tap units: the app window's origin on
   * iOS (iPad Split View, Slide Over, Stage Manager). Taps outside `tapWindow` fail. Default (0, 0).
   */
  tapOrigin?: Point;
  /** The part of the screen taps can reach, when smaller than `tapBounds` (the app's window). */
  tapWindow?: Rect;
  /** Why taps cannot leave `tapWindow` and what to do, for the error. */
  tapWindowHint?: string;
}

/** A point in tap units (from the screen's corner) as the driver takes it: measured from `reading.tapOrigin`. */
export function fromTapOrigin(at: Point, reading: Pick<Reading, "tapOrigin" | "tapWindow" | "tapWindowHint">): Point {
  const window = reading.tapWindow;
  if (window && !contains(window, at)) {
    throw new DeviceError(
      `The tap at (${at.x}, ${at.y}) lies outside the app's window (${window.width}x${window.height} at ` +
        `${window.x},${window.y}), where the driver does not tap: ${reading.tapWindowHint ?? "it taps only inside the app under test"}.`,
    );
  }
  const origin = reading.tapOrigin ?? { x: 0, y: 0 };
  return { x: at.x - origin.x, y: at.y - origin.y };
}

/**
 * A DeviceAdapter over Appium sessions of one platform: session checks, PNG screenshots, and
 * taps converted to tap units with the device's scale and clamped into the bounds `describe` read.
 */
export function appiumAdapter(
  need: SessionRequirement,
  describe: (driver: AppiumSession, note: AdapterNote) => Promise<Reading>,
): DeviceAdapter {
  return {
    platform: need.platform,
    driverOf: elementDriver,
    open(driver): DeviceSession {
      assertAppiumSession(driver, need);
      // What the last describe read; a tap uses the bounds read for the device it was given.
      let last: Reading | undefined;
      const tap = async (point: Point) => {
        if (!last) throw new DeviceError("tap before describe: the engine describes a session before it taps.");
        await assertNativeContext(driver, need);
        await performTap(driver, fromTapOrigin(toTapUnits(point, last.device.scale, last.tapBounds), last));
      };
      return {
        // The context is checked when the session is described (once, and again when the screenshot's
        // size changes, as it does when a web context's screenshots start) and before every tap.
        async describe(note) {
          await assertNativeContext(driver, need);
          last = await describe(driver, note);
          return last.device;
        },
        screenshot: () => takePng(driver),
        appIdentity: () => appIdentity(driver, need.platform),
        ...(typeof driver.getPageSource === "function" ? { pageSource: () => nativePageSource(driver) } : {}),
        ...(typeof driver.$ === "function" && typeof driver.getElementRect === "function"
          ? {
              async elementRects(targets) {
                if (!last) throw new DeviceError("elementRects before describe: the engine describes a session first.");
                await assertNativeContext(driver, need);
                return elementRects(driver, targets, { scale: last.device.scale });
              },
              async elementMatches(target) {
                if (!last)
                  throw new DeviceError("elementMatches before describe: the engine describes a session first.");
                await assertNativeContext(driver, need);
                return elementMatches(driver, target, { scale: last.device.scale });
              },
              async elementAt({ selectors }) {
                await assertNativeContext(driver, need);
                return nativeElementAt(driver, await selectors());
              },
            }
          : {}),
        tap,
        // A field the selectors name is typed into as an element; any other is focused by tapping it, and
        // typing goes to the session's active element (./typing.ts).
        async fill({ point, text, selectors = [] }) {
          if (selectors.length) {
            await assertNativeContext(driver, need);
            const id = await fieldBySelectors(driver, selectors);
            if (id) return typeIntoElement(driver, { id, text });
          }
          await tap(point);
          await typeIntoFocused(driver, text);
        },
        async clear({ point }) {
          await tap(point);
          await clearFocused(driver);
        },
        async pressKey(key) {
          await assertNativeContext(driver, need);
          await pressKey(driver, need.platform, key);
        },
        async swipe({ from, to, durationMs }) {
          if (!last) throw new DeviceError("swipe before describe: the engine describes a session before it swipes.");
          await assertNativeContext(driver, need);
          const units = (p: Point) => fromTapOrigin(toTapUnits(p, last!.device.scale, last!.tapBounds), last!);
          await performSwipe(driver, units(from), units(to), durationMs);
        },
      };
    },
  };
}
