/*
 * The driver's own element at a point `find` located (`DeviceSession.elementAt`,
 * src/core/device/description.ts): on a native session the first of the page source's selectors
 * that the driver finds exactly once (an id another element shares finds two, and the next
 * selector, the node's precise XPath, is tried); on a web session (Chromium, a web view) the
 * element `document.elementFromPoint` answers at the point in CSS pixels.
 */
import type { Point } from "../core/ground/geometry.js";
import type { AppiumSession } from "./session.js";

/** The W3C element reference key (W3C WebDriver "Elements"). */
export const W3C_ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf";

/** The first selector the driver finds exactly once, as the session's `$$` answers it; `null` for none. */
export async function nativeElementAt(driver: AppiumSession, selectors: string[]): Promise<object | null> {
  if (typeof driver.$$ !== "function") return null;
  for (const selector of selectors) {
    const found = (await driver.$$(selector)) as unknown as object[];
    if (found.length === 1) return found[0]!;
  }
  return null;
}

/** `document.elementFromPoint` at a point in CSS pixels of the viewport, with W3C `execute/sync`. */
const ELEMENT_FROM_POINT = "return document.elementFromPoint(arguments[0], arguments[1]);";

/**
 * The web element at `css` (CSS pixels of the viewport), turned by `toElement` into the client's
 * element (a WebdriverIO `$(reference)`, or the reference itself in the plugin); `null` when the
 * point holds only the document's root or body, which no test means.
 */
export async function webElementAt(
  driver: Pick<AppiumSession, "execute">,
  css: Point,
  toElement: (reference: Record<string, string>) => Promise<object>,
): Promise<object | null> {
  const reference = await driver.execute(ELEMENT_FROM_POINT, css.x, css.y);
  if (!reference || typeof reference !== "object") return null;
  const ref = reference as Record<string, unknown>;
  if (typeof ref.elementId === "string") return ref; // WebdriverIO already made it an element
  if (typeof ref[W3C_ELEMENT_KEY] !== "string") return null;
  const rootish = (await driver.execute(
    "return arguments[0] === document.documentElement || arguments[0] === document.body;",
    ref,
  )) as boolean;
  return rootish ? null : toElement({ [W3C_ELEMENT_KEY]: ref[W3C_ELEMENT_KEY] as string });
}
