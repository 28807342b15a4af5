/*
 * What an accessibility element of the page source is, and how each platform's driver names its
 * stable attributes (id, texts, class): the vocabulary the parser, the queries and the log share.
 */
import type { Platform } from "./description.js";
import type { Rect } from "../ground/geometry.js";

/**
 * The attributes kept per platform, most stable first. UiAutomator2 serves `resource-id`,
 * `content-desc`, `text`, `class` and `bounds="[x1,y1][x2,y2]"` in pixels; XCUITest serves
 * `name` (the accessibility id, or the label when none is set), `label`, `value`, `type` and
 * `x`/`y`/`width`/`height` in points.
 */
export const ID_ATTRIBUTES: Record<Platform, string> = { android: "resource-id", ios: "name" };
export const TEXT_ATTRIBUTES: Record<Platform, string[]> = {
  android: ["text", "content-desc"],
  ios: ["label", "value"],
};
export const CLASS_ATTRIBUTES: Record<Platform, string> = { android: "class", ios: "type" };

/** The attribute that holds what was typed into a field: Android's `text`, iOS's `value`. */
export const TYPED_ATTRIBUTES: Record<Platform, string> = { android: "text", ios: "value" };
/** The classes of fields a user types into, as the drivers name them. */
const EDITABLE_CLASSES: Record<Platform, RegExp> = {
  android: /EditText|AutoCompleteTextView/,
  ios: /^XCUIElementType(TextField|SecureTextField|TextView|SearchField)$/,
};

/** Whether an element of this class is a field a user types into. */
export function isEditableClass(cls: string, platform: Platform): boolean {
  return EDITABLE_CLASSES[platform].test(cls);
}

/**
 * An element's stable attributes without a field's typed text: what was typed (a password, a
 * token) is never part of an identity that is stored, logged or matched (docs/api.md "Values").
 */
export function withoutTypedText(
  attributes: Record<string, string>,
  platform: Platform,
  editable = isEditableClass(attributes[CLASS_ATTRIBUTES[platform]] ?? "", platform),
): Record<string, string> {
  if (!editable || attributes[TYPED_ATTRIBUTES[platform]] === undefined) return attributes;
  const { [TYPED_ATTRIBUTES[platform]]: _typed, ...rest } = attributes;
  return rest;
}

/** One element of the page source: its stable attributes (as the driver names them) and bounds. */
export interface A11yElement {
  /** Non-empty stable attributes, e.g. `{ "resource-id": "com.shop:id/checkout", class: "android.widget.Button" }`. */
  attributes: Record<string, string>;
  /** In screenshot pixels. */
  bounds: Rect;
}

/** An element's accessibility id, first text and class, as the platform's driver names them (each may be absent). */
export function namesOf(
  element: Pick<A11yElement, "attributes">,
  platform: Platform,
): { id?: string; text?: string; cls?: string } {
  const a = element.attributes;
  const text = TEXT_ATTRIBUTES[platform].map((n) => a[n]).find((v) => v !== undefined);
  return { id: a[ID_ATTRIBUTES[platform]], text, cls: a[CLASS_ATTRIBUTES[platform]] };
}

/** `resource-id="x", class="y"`, for log lines and model prompts. */
export function describeAttributes(attributes: Record<string, string>, names = Object.keys(attributes)): string {
  return names.map((n) => `${n}=${JSON.stringify(attributes[n])}`).join(", ");
}
