/*
 * A web page's page source (a Chromium session, the rig's emulated phones): the DOM serialised in the
 * page into the XML shape the real driver of the session's platform serves, so that everything reading
 * a native page source (src/core/device/page-source-parse.ts: the page-source rung of a first learn,
 * `ai.act`'s observation, the heal ladder's accessibility rung, `find`'s element) reads a web page too.
 * The serialiser runs in the page as a W3C `execute/sync` script, sent as its source text.
 */
import { DeviceError } from "../core/ground/errors.js";
import type { Platform } from "../core/device/description.js";
import type { AppiumSession } from "./session.js";

/** What {@link domPageSource} serialises for. */
export interface DomSourceOptions {
  /** Whose page source shape: UiAutomator2's (Android) or XCUITest's (iOS). */
  platform: Platform;
  /** Screenshot pixels per CSS pixel: Android bounds are in device pixels, iOS frames in points (CSS pixels). */
  scale: number;
  /**
   * List the options of a `<select>` marked `data-tapshot-open` under it, as a phone's dropdown shows them:
   * for a harness that stands in for the phone's own list (the rig's taps); off by default.
   */
  listOpenSelects?: boolean;
}

/**
 * The page source of a web page: the DOM serialised into the XML shape the real driver of the
 * platform serves: UiAutomator2's `<node resource-id text content-desc
 * class bounds="[x1,y1][x2,y2]">` in device pixels on Android, XCUITest's `<XCUIElementType*
 * name label value x y width height>` in points (CSS pixels here) on iOS. An element's `id` or
 * `data-testid` plays the resource-id / accessibility id (as React Native's testID does on
 * phones), `aria-label` the content-desc / label, and an element the browser does not render
 * visibly (`checkVisibility` with `visibility: hidden`) is `displayed="false"` / `visible="false"`.
 * Form controls get the platform's classes, as `ai.act`'s observation reads them
 * (docs/api.md "ai.act"): an `<input>` or `<textarea>` is a text field (`android.widget.EditText`
 * with the typed text in `text` and the placeholder in `hint`, `password` for a password input;
 * `XCUIElementTypeTextField` / `SecureTextField` with the typed text, or else the placeholder, in
 * `value` and the placeholder in `placeholderValue`), a checkbox, `role="switch"` and a radio are
 * `CheckBox` / `Switch` / `RadioButton` (`XCUIElementTypeSwitch` with `value` "1"/"0", `RadioButton`),
 * a `<select>` (or `role="combobox"`, `aria-haspopup="listbox"`) is a `Spinner` (`XCUIElementTypePopUpButton`)
 * and `role="option"` a `CheckedTextView` (`MenuItem`); a `<select>` marked open is listed with its options
 * under it as a dropdown's `CheckedTextView`s (`MenuItem`s) when `listOpenSelects` asks, a link is a clickable `TextView`
 * (`XCUIElementTypeLink`), and `role="progressbar"` or `aria-busy="true"` is a `ProgressBar`
 * (`ActivityIndicator`). A `<label for>` names its control when it has no `aria-label`. Every element
 * serves `enabled` (false when disabled or `aria-disabled`) and, on Android, `selected`
 * (`aria-selected`), as UiAutomator2 and XCUITest serve them. Shadow roots are walked too (web components).
 */
export async function domPageSource(
  session: Pick<AppiumSession, "execute">,
  { platform, scale, listOpenSelects = false }: DomSourceOptions,
): Promise<string> {
  const source = await session.execute(DOM_SOURCE_SCRIPT, platform, scale, listOpenSelects);
  if (typeof source !== "string") {
    throw new DeviceError(`The page did not serialise its DOM: its script answered ${typeof source}, not text.`);
  }
  return source;
}

/** Runs in the page (no closure over this module): the DOM as the platform's page-source XML. */
function serialiseDom(platform: string, scale: number, listOpenSelects: boolean): string {
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
  /** An open `<select>`'s options, listed under it as a phone's dropdown (`listOpenSelects`). */
  const options = (el: Element, r: DOMRect): string => {
    if (!listOpenSelects || !(el instanceof HTMLSelectElement) || !el.hasAttribute("data-tapshot-open")) return "";
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
}

/** {@link serialiseDom} as a W3C `execute/sync` script body: its source, called with the script's arguments. */
const DOM_SOURCE_SCRIPT = `return (${serialiseDom.toString()}).apply(null, arguments);`;
