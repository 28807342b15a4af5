/**
 * The device adapter for the rig's emulated phones (docs/design.md section 2): Chromium under
 * Appium, where screenshots are in device pixels and taps are W3C touch actions in CSS pixels.
 */
import type { Browser } from "webdriverio";
import {
  DeviceError,
  elementDriver,
  elementMatches,
  elementRects,
  imageSize,
  swipeActions,
  tapActions,
  type DeviceAdapter,
  type DeviceDescription,
  type DeviceSession,
  type Point,
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
        pageSource: () => domPageSource(driver, profile.platform, scale),
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
        async tap(point: Point) {
          await touchTap(driver, Math.round(point.x / scale), Math.round(point.y / scale));
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

/** A W3C touch tap at a point in CSS pixels of the viewport: the same action the Appium adapters send. */
export async function touchTap(driver: Browser, x: number, y: number): Promise<void> {
  await driver.performActions(tapActions(x, y));
  await driver.releaseActions();
}

/**
 * The rig's page is HTML, so its page source is the DOM serialised into the XML shape the real
 * driver of the profile's platform serves: UiAutomator2's `<node resource-id text content-desc
 * class bounds="[x1,y1][x2,y2]">` in device pixels on Android, XCUITest's `<XCUIElementType*
 * name label value x y width height>` in points (CSS pixels here) on iOS. An element's `id` or
 * `data-testid` plays the resource-id / accessibility id (as React Native's testID does on
 * phones), `aria-label` the content-desc / label, and an element the browser does not render
 * visibly (`checkVisibility` with `visibility: hidden`) is `displayed="false"` / `visible="false"`.
 * An `<input>` or `<textarea>` is the platform's text field (`android.widget.EditText` with the typed
 * text in `text`; `XCUIElementTypeTextField` with it in `value`), a checkbox serves `checked`, and
 * every element `enabled` (false when disabled) and, on Android, `selected` (`aria-selected`), as
 * UiAutomator2 and XCUITest serve them.
 */
export async function domPageSource(driver: Browser, platform: "android" | "ios", scale: number): Promise<string> {
  return driver.execute(
    (platform: string, scale: number) => {
      const esc = (v: string) =>
        v.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
      const ownText = (el: Element) =>
        Array.from(el.childNodes)
          .filter((n) => n.nodeType === 3)
          .map((n) => n.textContent ?? "")
          .join("")
          .trim();
      const isButton = (el: Element) => el.tagName === "BUTTON" || el.getAttribute("role") === "button";
      const field = (el: Element) =>
        (el.tagName === "INPUT" &&
          !["checkbox", "radio", "button", "submit"].includes((el as HTMLInputElement).type)) ||
        el.tagName === "TEXTAREA"
          ? (el as HTMLInputElement)
          : null;
      const checkbox = (el: Element) =>
        el.tagName === "INPUT" && ["checkbox", "radio"].includes((el as HTMLInputElement).type)
          ? (el as HTMLInputElement)
          : null;
      const walk = (el: Element): string => {
        const r = el.getBoundingClientRect();
        const children = Array.from(el.children).map(walk).join("");
        if (r.width <= 0 || r.height <= 0) return children;
        const id = el.id || (el.getAttribute("data-testid") ?? "");
        const label = el.getAttribute("aria-label") ?? "";
        const typed = field(el);
        const box = checkbox(el);
        const text = typed ? typed.value : ownText(el);
        const shown = el.checkVisibility({ visibilityProperty: true });
        const enabled = !(el as HTMLButtonElement).disabled;
        const checked = box ? ` checkable="true" checked="${box.checked}"` : "";
        if (platform === "android") {
          const cls = typed
            ? "android.widget.EditText"
            : box
              ? "android.widget.CheckBox"
              : isButton(el)
                ? "android.widget.Button"
                : text
                  ? "android.widget.TextView"
                  : "android.view.View";
          const px = (v: number) => Math.round(v * scale);
          const bounds = `[${px(r.left)},${px(r.top)}][${px(r.right)},${px(r.bottom)}]`;
          const selected = el.getAttribute("aria-selected") === "true";
          return (
            `<node class="${cls}" resource-id="${esc(id)}" text="${esc(text)}" content-desc="${esc(label)}" ` +
            `displayed="${shown}" enabled="${enabled}" selected="${selected}"${checked} bounds="${bounds}">` +
            `${children}</node>`
          );
        }
        const type = typed
          ? "XCUIElementTypeTextField"
          : box
            ? "XCUIElementTypeSwitch"
            : isButton(el)
              ? "XCUIElementTypeButton"
              : text
                ? "XCUIElementTypeStaticText"
                : "XCUIElementTypeOther";
        const value = typed ? typed.value : box ? (box.checked ? "1" : "0") : "";
        return (
          `<${type} type="${type}" name="${esc(id)}" label="${esc(typed || box ? label : label || text)}" ` +
          `value="${esc(value)}" enabled="${enabled}" ` +
          `x="${Math.round(r.left)}" y="${Math.round(r.top)}" width="${Math.round(r.width)}" ` +
          `height="${Math.round(r.height)}" visible="${shown}">${children}</${type}>`
        );
      };
      const body = walk(document.body);
      return platform === "android"
        ? `<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">${body}</hierarchy>`
        : `<?xml version="1.0" encoding="UTF-8"?><XCUIElementTypeApplication type="XCUIElementTypeApplication">${body}</XCUIElementTypeApplication>`;
    },
    platform,
    scale,
  );
}
