/*
 * UiAutomator2's own scroll for whole pages (docs/api.md "Whole-page baselines"). `mobile:
 * scrollGesture` swipes an area by `percent` of its height and returns whether the area can still
 * scroll that way: the driver's server runs androidx UiObject2.scroll, which waits for the
 * accessibility scroll event and answers false once it says the end was reached, whatever the
 * pixels show. Espresso has no such command; its sessions swipe.
 */
import type { DeviceAdapter, DeviceSession, DriverScroll, ScrollAnswer } from "../core/device/description.js";
import { DeviceError } from "../core/ground/errors.js";
import { reason, textCapability, type AppiumSession } from "../appium/index.js";
import { SWIPE_MOVE_MS } from "../core/device/swipe-geometry.js";

/** `adapter` whose UiAutomator2 sessions also offer `scrollAndTell` through `mobile: scrollGesture`. */
export function withScrollGesture(adapter: DeviceAdapter): DeviceAdapter {
  return {
    ...adapter,
    open(driver): DeviceSession {
      const session = adapter.open(driver);
      const appium = driver as AppiumSession;
      if (!/^uiautomator2$/i.test(textCapability(appium.capabilities, "automationName") ?? "")) return session;
      // Screenshot pixels per tap pixel, from the description the engine asked for last.
      let scale: number | undefined;
      return {
        ...session,
        async describe(note) {
          const device = await session.describe(note);
          scale = device.scale;
          return device;
        },
        scrollAndTell: (scroll) => scrollGesture(appium, scroll, scale),
      };
    },
  };
}

async function scrollGesture(driver: AppiumSession, scroll: DriverScroll, scale: number | undefined) {
  if (scale === undefined) throw new DeviceError("scroll before describe: the engine describes a session first.");
  const { area, direction, share } = scroll;
  const units = (v: number) => Math.round(v / scale);
  const args = {
    left: units(area.x),
    top: units(area.y),
    width: Math.max(1, units(area.width)),
    height: Math.max(1, units(area.height)),
    direction,
    percent: share,
    // The scroll tap's pace (src/core/device/swipe-geometry.ts), not the driver's default 5000 dp/s.
    speed: Math.max(1, Math.round((units(area.height) * share * 1000) / SWIPE_MOVE_MS)),
  };
  let answer: unknown;
  try {
    answer = await driver.execute("mobile: scrollGesture", args);
  } catch (error) {
    throw new DeviceError(`mobile: scrollGesture ${JSON.stringify(args)} failed: ${reason(error)}`, { cause: error });
  }
  return { more: answer !== false } satisfies ScrollAnswer;
}
