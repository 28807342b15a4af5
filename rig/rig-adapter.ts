/**
 * The device adapter for the rig's emulated phones (docs/design.md section 2): Chromium under
 * Appium, where screenshots are in device pixels and taps are W3C touch actions in CSS pixels.
 */
import type { Browser } from "webdriverio";
import {
  DeviceError,
  clearFocused,
  keysToFocused,
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
 * source gave that id (its `id` or `data-testid`, see {@link domPageSource}).
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
 * served in the page source by {@link domPageSource}), and a tap on one chooses it; any other tap
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

/**
 * The rig's page is HTML, so its page source is the DOM serialised into the XML shape the real
 * driver of the profile's platform serves: UiAutomator2's `<node resource-id text content-desc
 * class bounds="[x1,y1][x2,y2]">` in device pixels on Android, XCUITest's `<XCUIElementType*
 * name label value x y width height>` in points (CSS pixels here) on iOS. An element's `id` or
 * `data-testid` plays the resource-id / accessibility id (as React Native's testID does on
 * phones), `aria-label` the content-desc / label, and an element the browser does not render
 * visibly (`checkVisibility` with `visibility: hidden`) is `displayed="false"` / `visible="false"`.
 * Form controls get the platform's classes, as `ai.act`'s observation reads them
 * (src/core/device/controls.ts): an `<input>` or `<textarea>` is a text field (`android.widget.EditText`
 * with the typed text in `text` and the placeholder in `hint`, `password` for a password input;
 * `XCUIElementTypeTextField` / `SecureTextField` with the typed text, or else the placeholder, in
 * `value` and the placeholder in `placeholderValue`), a checkbox, `role="switch"` and a radio are
 * `CheckBox` / `Switch` / `RadioButton` (`XCUIElementTypeSwitch` with `value` "1"/"0", `RadioButton`),
 * a `<select>` (or `role="combobox"`, `aria-haspopup="listbox"`) is a `Spinner` (`XCUIElementTypePopUpButton`)
 * and `role="option"` a `CheckedTextView` (`MenuItem`); a `<select>`'s options, once tapped open, are
 * listed under it as a dropdown's `CheckedTextView`s (`MenuItem`s), a link is a clickable `TextView`
 * (`XCUIElementTypeLink`), and `role="progressbar"` or `aria-busy="true"` is a `ProgressBar`
 * (`ActivityIndicator`). A `<label for>` names its control when it has no `aria-label`. Every element
 * serves `enabled` (false when disabled or `aria-disabled`) and, on Android, `selected`
 * (`aria-selected`), as UiAutomator2 and XCUITest serve them. Shadow roots are walked too (web components).
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
      const role = (el: Element) => el.getAttribute("role") ?? "";
      const inputType = (el: Element) => (el.tagName === "INPUT" ? (el as HTMLInputElement).type : "");
      /** What a phone's driver would call the element: a field, a toggle, a select, a button, a link, busy. */
      const kindOf = (el: Element) => {
        if (role(el) === "progressbar" || el.getAttribute("aria-busy") === "true") return "busy";
        if (role(el) === "switch") return "switch";
        if (inputType(el) === "checkbox") return "checkbox";
        if (inputType(el) === "radio" || role(el) === "radio") return "radio";
        if (el.tagName === "SELECT" || role(el) === "combobox" || el.getAttribute("aria-haspopup") === "listbox")
          return "select";
        if (role(el) === "option" || role(el) === "menuitemradio") return "option";
        if (
          el.tagName === "TEXTAREA" ||
          (el.tagName === "INPUT" && !["button", "submit", "reset", "image", "hidden"].includes(inputType(el)))
        )
          return "field";
        if (el.tagName === "BUTTON" || role(el) === "button" || ["button", "submit"].includes(inputType(el)))
          return "button";
        if (el.tagName === "A" && el.hasAttribute("href")) return "link";
        return "";
      };
      const labelOf = (el: Element) => {
        const aria = el.getAttribute("aria-label");
        if (aria) return aria;
        const labels = (el as HTMLInputElement).labels;
        return labels && labels.length ? (labels[0]!.textContent ?? "").trim() : "";
      };
      const isChecked = (el: Element) =>
        el.tagName === "INPUT" ? (el as HTMLInputElement).checked : el.getAttribute("aria-checked") === "true";
      const ANDROID: Record<string, string> = {
        busy: "android.widget.ProgressBar",
        switch: "android.widget.Switch",
        checkbox: "android.widget.CheckBox",
        radio: "android.widget.RadioButton",
        select: "android.widget.Spinner",
        option: "android.widget.CheckedTextView",
        field: "android.widget.EditText",
        button: "android.widget.Button",
        link: "android.widget.TextView",
      };
      const IOS: Record<string, string> = {
        busy: "XCUIElementTypeActivityIndicator",
        switch: "XCUIElementTypeSwitch",
        checkbox: "XCUIElementTypeSwitch",
        radio: "XCUIElementTypeRadioButton",
        select: "XCUIElementTypePopUpButton",
        option: "XCUIElementTypeMenuItem",
        field: "XCUIElementTypeTextField",
        button: "XCUIElementTypeButton",
        link: "XCUIElementTypeLink",
      };
      /** An open `<select>`'s options, listed under it as a phone's dropdown (see rigTap). */
      const options = (el: Element, r: DOMRect): string => {
        if (!(el instanceof HTMLSelectElement) || !el.hasAttribute("data-tapshot-open")) return "";
        return Array.from(el.options)
          .map((o, i) => {
            const top = r.bottom + i * r.height;
            const text = esc(o.text.trim());
            if (platform === "android") {
              const px = (v: number) => Math.round(v * scale);
              return (
                `<node class="android.widget.CheckedTextView" resource-id="android:id/text1" text="${text}" ` +
                `clickable="true" displayed="true" enabled="true" checked="${o.selected}" ` +
                `bounds="[${px(r.left)},${px(top)}][${px(r.right)},${px(top + r.height)}]"/>`
              );
            }
            return (
              `<XCUIElementTypeMenuItem type="XCUIElementTypeMenuItem" name="${text}" label="${text}" enabled="true" ` +
              `x="${Math.round(r.left)}" y="${Math.round(top)}" width="${Math.round(r.width)}" height="${Math.round(r.height)}" visible="true"/>`
            );
          })
          .join("");
      };
      const walk = (el: Element): string => {
        const r = el.getBoundingClientRect();
        const kids = [...Array.from(el.children), ...Array.from(el.shadowRoot?.children ?? [])];
        const children = kids.map(walk).join("") + options(el, r);
        if (r.width <= 0 || r.height <= 0) return children;
        const id = el.id || (el.getAttribute("data-testid") ?? "");
        const kind = kindOf(el);
        const label = labelOf(el);
        const field = kind === "field" ? (el as HTMLInputElement) : null;
        const select = el instanceof HTMLSelectElement ? el : null;
        const toggle = kind === "switch" || kind === "checkbox" || kind === "radio";
        // A password field's text is dots in the drivers' page sources (Android's PasswordTransformationMethod in
        // UiAutomator2's `text`, XCUITest's SecureTextField `value`): the typed password is never in the source.
        const typed = field && inputType(el) === "password" ? "\u2022".repeat(field.value.length) : field?.value;
        const text = field ? typed! : select ? (select.selectedOptions[0]?.text ?? "").trim() : ownText(el);
        const shown = el.checkVisibility({ visibilityProperty: true });
        const enabled = !(el as HTMLButtonElement).disabled && el.getAttribute("aria-disabled") !== "true";
        const placeholder = field?.placeholder ?? "";
        if (platform === "android") {
          const cls = ANDROID[kind] ?? (text ? "android.widget.TextView" : "android.view.View");
          const px = (v: number) => Math.round(v * scale);
          const bounds = `[${px(r.left)},${px(r.top)}][${px(r.right)},${px(r.bottom)}]`;
          const selected = el.getAttribute("aria-selected") === "true";
          const extra =
            (toggle ? ` checkable="true" checked="${isChecked(el)}"` : "") +
            (kind && kind !== "busy" ? ` clickable="true"` : "") +
            (field ? ` hint="${esc(placeholder)}" password="${inputType(el) === "password"}"` : "");
          return (
            `<node class="${cls}" resource-id="${esc(id)}" text="${esc(text)}" content-desc="${esc(label)}" ` +
            `displayed="${shown}" enabled="${enabled}" selected="${selected}"${extra} bounds="${bounds}">` +
            `${children}</node>`
          );
        }
        const type =
          field && inputType(el) === "password"
            ? "XCUIElementTypeSecureTextField"
            : (IOS[kind] ?? (text ? "XCUIElementTypeStaticText" : "XCUIElementTypeOther"));
        const value = field ? typed || placeholder : toggle ? (isChecked(el) ? "1" : "0") : select ? text : "";
        const extra = field ? ` placeholderValue="${esc(placeholder)}"` : "";
        return (
          `<${type} type="${type}" name="${esc(id)}" label="${esc(field || toggle || select ? label : label || text)}" ` +
          `value="${esc(value)}"${extra} enabled="${enabled}" ` +
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
