/**
 * The device adapter for the rig's emulated phones (DESIGN.md section 3): Chromium under
 * Appium, where screenshots are in device pixels and taps are W3C touch actions in CSS pixels.
 */
import type { DeviceAdapter, DeviceDescription, Point } from "../../../src/core/device.js";
import { DeviceError } from "../../../src/core/errors.js";
import { imageSize } from "../../../src/core/images.js";
import type { PhoneProfile } from "./profiles.js";
import type { Browser } from "webdriverio";
import { tapActions } from "../../../src/core/adapter-kit.js";

/** What the page reports about its viewport. */
export interface Viewport {
  /** CSS pixels. */
  width: number;
  height: number;
  devicePixelRatio: number;
}

function isBrowser(driver: unknown): driver is Browser {
  const d = driver as Partial<Browser> | null;
  return (
    typeof d === "object" &&
    d !== null &&
    typeof d.sessionId === "string" &&
    typeof d.takeScreenshot === "function" &&
    typeof d.performActions === "function" &&
    typeof d.execute === "function"
  );
}

/** The viewport as the page reports it. */
export async function readViewport(driver: Browser): Promise<Viewport> {
  return driver.execute(() => ({
    width: window.innerWidth,
    height: window.innerHeight,
    devicePixelRatio: window.devicePixelRatio,
  }));
}

/**
 * An adapter for sessions opened on `profile`. `describe` reports what the rig really is
 * (model `Chromium <w>x<h>@<ratio>`, osVersion = the Chromium version); the phone identity
 * (`Google Pixel 7`, `14`) comes from the run's target, as on a device farm: see `rigTarget`.
 */
export function rigAdapter(profile: PhoneProfile): DeviceAdapter {
  const screenshot = async (driver: unknown) => {
    const base64 = await (driver as Browser).takeScreenshot();
    return Buffer.from(base64, "base64");
  };
  return {
    platform: profile.platform,

    assertDriver(driver) {
      if (!isBrowser(driver)) {
        throw new DeviceError(
          "The rig adapter needs a WebdriverIO Browser connected to the rig's Appium server " +
            "(openRigSession(...).driver); got " +
            (driver === null ? "null" : typeof driver) +
            ".",
        );
      }
    },

    async describe(driver, note) {
      const browser = driver as Browser;
      const viewport = await readViewport(browser);
      const { width, height } = await imageSize(await screenshot(browser));
      // Scale from the screenshot against the window width, as DESIGN.md asks (never from a table).
      const scale = width / viewport.width;
      if (Math.abs(scale - viewport.devicePixelRatio) > 0.01) {
        note(
          `screenshot width ${width} / viewport width ${viewport.width} = ${scale.toFixed(3)}, ` +
            `but the page reports devicePixelRatio ${viewport.devicePixelRatio}; using ${scale.toFixed(3)}`,
        );
      }
      const caps = browser.capabilities as { browserVersion?: string };
      const ratio = String(viewport.devicePixelRatio);
      const inset = (css: number) => Math.round(css * scale);
      const description: DeviceDescription = {
        platform: profile.platform,
        model: `Chromium ${viewport.width}x${viewport.height}@${ratio}`,
        osVersion: caps.browserVersion || "unknown",
        screen: { width, height },
        scale,
        insets: { top: inset(profile.bars.top), bottom: inset(profile.bars.bottom), left: 0, right: 0 },
        orientation: width > height ? "landscape" : "portrait",
      };
      return description;
    },

    screenshot,

    async tap(driver, point: Point, device: DeviceDescription) {
      const x = Math.round(point.x / device.scale);
      const y = Math.round(point.y / device.scale);
      await touchTap(driver as Browser, x, y);
    },
  };
}

/** A W3C touch tap at a point in CSS pixels of the viewport: the same action the Appium adapters send. */
export async function touchTap(driver: Browser, x: number, y: number): Promise<void> {
  await driver.performActions(tapActions(x, y));
  await driver.releaseActions();
}
