/**
 * The device adapter for the rig's emulated phones (docs/design.md section 2): Chromium under
 * Appium, where screenshots are in device pixels and taps are W3C touch actions in CSS pixels.
 */
import type { Browser } from "webdriverio";
import {
  DeviceError,
  clearFocused,
  keysToFocused,
  domPageSource,
  typeIntoFocused,
  typeIntoElement,
  fieldBySelectors,
  elementDriver,
  elementMatches,
  elementRects,
  webElementAt,
  imageSize,
  swipeActions,
  tapActions,
  type DeviceAdapter,
  type DeviceDescription,
  type DeviceSession,
  type Point,
  type PressKey,
  type Swipe,
} from "tapshot/adapter";
import type { PhoneProfile } from "./profiles.js";

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
  return {
    platform: profile.platform,
    driverOf: elementDriver,
    open(driver): DeviceSession {
      if (!isBrowser(driver)) {
        throw new DeviceError(
          "The rig adapter needs a WebdriverIO Browser connected to the rig's Appium server " +
            "(openRigSession(...).driver); got " +
            (driver === null ? "null" : typeof driver) +
            ".",
        );
      }
      const screenshot = async () => Buffer.from(await driver.takeScreenshot(), "base64");
      let scale = 1;
      return {
        async describe(note) {
          const viewport = await readViewport(driver);
          const { width, height } = await imageSize(await screenshot());
          // Scale from the screenshot against the window width (docs/devices.md), never from a table.
          scale = width / viewport.width;
          if (Math.abs(scale - viewport.devicePixelRatio) > 0.01) {
            note(
              `screenshot width ${width} / viewport width ${viewport.width} = ${scale.toFixed(3)}, ` +
                `but the page reports devicePixelRatio ${viewport.devicePixelRatio}; using ${scale.toFixed(3)}`,
            );
          }
          const caps = driver.capabilities as { browserVersion?: string };
          const inset = (css: number) => Math.round(css * scale);
          const description: DeviceDescription = {
            platform: profile.platform,
            model: `Chromium ${viewport.width}x${viewport.height}@${viewport.devicePixelRatio}`,
            osVersion: caps.browserVersion || "unknown",
            screen: { width, height },
            scale,
            insets: { top: inset(profile.bars.top), bottom: inset(profile.bars.bottom), left: 0, right: 0 },
            orientation: width > height ? "landscape" : "portrait",
          };
          return description;
        },
        screenshot,
        // A browser session's app is the site it shows: the host of the page at the first call. The port is
        // left out, as the rig's shop (like a developer's server) listens on a new free port each run.
        appIdentity: async () => new URL(await driver.getUrl()).hostname || undefined,
        pageSource: () => domPageSource(driver, { platform: profile.platform, scale, listOpenSelects: true }),
        async elementRects(targets) {
          // The kit's lookup (driver.$ and W3C getElementRect); a web element's rect is measured from the
          // document's corner, so the page's scroll offset is subtracted.
          const pageScroll = await driver.execute(() => ({ x: window.scrollX, y: window.scrollY }));
          return elementRects(driver, targets, { scale, pageScroll });
        },
        async elementMatches(target) {
          const pageScroll = await driver.execute(() => ({ x: window.scrollX, y: window.scrollY }));
          return elementMatches(driver, target, { scale, pageScroll });
        },
        // find's element: the one at the point in the page, as a WebdriverIO element.
        async elementAt({ point }) {
          const css = { x: Math.round(point.x / scale), y: Math.round(point.y / scale) };
          return webElementAt(driver, css, async (reference: Record<string, string>) => driver.$(reference as never));
        },
        async tap(point: Point) {
          await rigTap(driver, Math.round(point.x / scale), Math.round(point.y / scale));
        },
        // As on the Appium adapters (src/appium/typing.ts): a field its selectors name is typed into as an
        // element, any other is tapped and typing goes to the focused element; chromedriver answers W3C Find
        // Elements, Get Active Element, Element Clear and Element Send Keys on the page's DOM.
        async fill({ point, text, selectors = [] }) {
          const id = await fieldBySelectors(driver, selectors.map(cssOfIdSelector));
          if (id) return typeIntoElement(driver, { id, text });
          await rigTap(driver, Math.round(point.x / scale), Math.round(point.y / scale));
          await typeIntoFocused(driver, text);
        },
        async clear({ point }) {
          await rigTap(driver, Math.round(point.x / scale), Math.round(point.y / scale));
          await clearFocused(driver);
        },
        async pressKey(key: PressKey) {
          await rigKey(driver, profile.platform, key);
        },
        async swipe({ from, to, durationMs }: Swipe) {
          const css = (p: Point) => ({ x: Math.round(p.x / scale), y: Math.round(p.y / scale) });
          // The W3C touch actions the Appium adapters send; chromedriver dispatches them as touch events.
          await driver.performActions(swipeActions(css(from), css(to), durationMs));
          await driver.releaseActions();
        },
      };
    },
  };
}

/**
 * A phone's id selector (`id=<resource-id>`, `~<name>`) as the CSS selector of the element the rig's page
 * source gave that id (its `id` or `data-testid`, see tapshot/adapter's `domPageSource`).
 */
function cssOfIdSelector(selector: string): string {
  const id = selector.replace(/^(id=|~)/, "").replace(/["\\]/g, "\\$&");
  return `[id="${id}"], [data-testid="${id}"]`;
}

/** WebDriver's key codes (W3C WebDriver "Keyboard actions"): Enter and Tab. */
const WEBDRIVER_KEYS = { enter: "\uE007", tab: "\uE004" } as const;

/** A key as a phone's driver presses it: Enter and Tab typed into the focused element, Back as Android's. */
async function rigKey(driver: Browser, platform: "android" | "ios", key: PressKey): Promise<void> {
  if (key === "back") {
    if (platform === "ios") {
      throw new DeviceError(
        'press "back" has no iOS equivalent (iOS has no Back key): tap the app\'s own back button.',
      );
    }
    await driver.back();
    return;
  }
  if (platform === "ios" && key === "tab") {
    throw new DeviceError('press "tab" has no iOS equivalent (iOS has no Tab key): tap the next field.');
  }
  await keysToFocused(driver, WEBDRIVER_KEYS[key]);
}

/**
 * A tap as a phone shows a `<select>`: its options open as a list under it (a spinner's dropdown,
 * served in the page source by `domPageSource` with `listOpenSelects`), and a tap on one chooses it; any other tap
 * is a W3C touch tap. Chromium's own popup for a `<select>` is no part of the page, so the rig
 * stands in for the phone's list here.
 */
async function rigTap(driver: Browser, x: number, y: number): Promise<void> {
  const handled = await driver.execute(
    (x: number, y: number) => {
      const open = document.querySelector("select[data-tapshot-open]") as HTMLSelectElement | null;
      if (open) {
        open.removeAttribute("data-tapshot-open");
        const r = open.getBoundingClientRect();
        const i = Math.floor((y - r.bottom) / r.height);
        if (x >= r.left && x < r.right && i >= 0 && i < open.options.length) {
          open.value = open.options[i]!.value;
          open.dispatchEvent(new Event("input", { bubbles: true }));
          open.dispatchEvent(new Event("change", { bubbles: true }));
          return true;
        }
      }
      const hit = document.elementFromPoint(x, y);
      if (hit instanceof HTMLSelectElement && !hit.disabled) {
        hit.setAttribute("data-tapshot-open", "");
        hit.focus();
        return true;
      }
      return false;
    },
    x,
    y,
  );
  if (!handled) await touchTap(driver, x, y);
}

/** A W3C touch tap at a point in CSS pixels of the viewport: the same action the Appium adapters send. */
export async function touchTap(driver: Browser, x: number, y: number): Promise<void> {
  await driver.performActions(tapActions(x, y));
  await driver.releaseActions();
}
