/*
 * Where the elements of selector and element masks are, in screenshot pixels: found with the
 * session's `$()` and measured with `getElementRect` (W3C `GET /element/{id}/rect`), whose
 * rectangle is in tap units measured from the screen's corner (UiAutomator2: pixels; XCUITest:
 * points). On an iPad window (Split View, Slide Over, Stage Manager) too: WebDriverAgent answers
 * the element's frame, which XCUITest gives in screen coordinates, as it does for the page
 * source's x/y; only taps are measured from the app window's origin (src/appium/adapter.ts
 * `Reading.tapOrigin`). Both element paths convert with {@link toScreenshotRect}.
 */
import type { ElementTarget } from "../core/device/description.js";
import { DeviceError, InputError } from "../core/ground/errors.js";
import type { Point, Rect } from "../core/ground/geometry.js";
import { reason } from "./readings.js";
import type { AppiumSession } from "./session.js";

/** What converts the driver's rectangles to screenshot pixels. */
export interface RectUnits {
  /** Screenshot pixels per tap unit. */
  scale: number;
  /**
   * How far the page is scrolled, in tap units, for drivers that measure from the document
   * (a web page's W3C rect adds the scroll offset); native drivers measure from the screen.
   */
  pageScroll?: Point;
}

/**
 * A driver's rectangle (tap units from the screen's corner, or from the document with
 * `units.pageScroll`) in screenshot pixels: the one conversion of every element path.
 */
export function toScreenshotRect(rect: Rect, units: RectUnits): Rect {
  const scroll = units.pageScroll ?? { x: 0, y: 0 };
  return {
    x: (rect.x - scroll.x) * units.scale,
    y: (rect.y - scroll.y) * units.scale,
    width: rect.width * units.scale,
    height: rect.height * units.scale,
  };
}

/** The slice of a WebdriverIO element read here. */
interface FoundElement {
  elementId?: string;
  selector?: unknown;
  error?: unknown;
}

/** Each target's rectangle in screenshot pixels, `null` when no element matches it. */
export async function elementRects(
  driver: AppiumSession,
  targets: ElementTarget[],
  units: RectUnits,
): Promise<(Rect | null)[]> {
  const rects: (Rect | null)[] = [];
  // One at a time: a driver serves one command per session at a time anyway.
  for (const target of targets) rects.push(await rectOf(driver, target, units));
  return rects;
}

async function rectOf(driver: AppiumSession, target: ElementTarget, units: RectUnits): Promise<Rect | null> {
  const what = "selector" in target ? `the selector ${JSON.stringify(target.selector)}` : "the mask's element";
  try {
    const held = "element" in target ? await resolved(target.element) : undefined;
    let id = "selector" in target ? await find(driver, target.selector) : held?.elementId;
    let rect = id ? await measure(driver, id) : null;
    // An element the test found earlier may be stale (the screen was redrawn): find it again by its selector.
    if (!rect && typeof held?.selector === "string") {
      id = await find(driver, held.selector);
      rect = id ? await measure(driver, id) : null;
    }
    return rect ? toScreenshotRect(rect, units) : null;
  } catch (error) {
    if (error instanceof InputError) throw error; // a selector the session cannot read: the caller's to fix
    throw new DeviceError(`Finding ${what} for a mask failed: ${errorText(error)}`, { cause: error });
  }
}

/**
 * Every element `target` matches, in screenshot pixels (`toSatisfy`): a selector's through `$$`, an
 * element object itself (found again by its selector when it went stale).
 */
export async function elementMatches(driver: AppiumSession, target: ElementTarget, units: RectUnits): Promise<Rect[]> {
  const what = "selector" in target ? `the selector ${JSON.stringify(target.selector)}` : "the element";
  try {
    const held = "element" in target ? await resolved(target.element) : undefined;
    let rects = held?.elementId ? [await measure(driver, held.elementId)].filter((r) => r !== null) : [];
    const selector = "selector" in target ? target.selector : held?.selector;
    if (!rects.length && typeof selector === "string") {
      // WebdriverIO's element array makes filter and map asynchronous: read it as a plain iterable.
      const found = driver.$$ ? ((await driver.$$(selector)) as unknown as Iterable<FoundElement>) : [];
      rects = [];
      for (const element of found) {
        const rect = element.elementId ? await measure(driver, element.elementId) : null;
        if (rect) rects.push(rect);
      }
    }
    return rects.map((r) => toScreenshotRect(r, units));
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new DeviceError(`Finding ${what} failed: ${errorText(error)}`, { cause: error });
  }
}

/**
 * The driver a WebdriverIO element belongs to: its `parent`, followed up through elements found
 * inside elements; `undefined` when `value` is no element.
 */
export function elementDriver(value: unknown): object | undefined {
  let at: unknown = value;
  for (let depth = 0; depth < 32; depth++) {
    const element = at as { elementId?: unknown; parent?: unknown } | null;
    if (!element || typeof element !== "object" || typeof element.elementId !== "string") {
      return depth > 0 && element && typeof element === "object" ? element : undefined;
    }
    at = element.parent;
  }
  return undefined;
}

/** The element id `driver.$(selector)` finds, `undefined` when none matches. */
async function find(driver: AppiumSession, selector: string): Promise<string | undefined> {
  const found = (await driver.$!(selector)) as unknown as FoundElement;
  if (found.elementId) return found.elementId;
  if (found.error && !isNotFound(found.error)) throw new Error(errorText(found.error));
  return undefined;
}

/** The element itself: not awaited by the test, `driver.$()`'s result is a promise of it. */
async function resolved(element: object): Promise<FoundElement | undefined> {
  const found = (await (element as PromiseLike<FoundElement> | FoundElement)) as FoundElement | undefined;
  return found && typeof found === "object" ? found : undefined;
}

/** The element's rectangle in tap units, `null` when it is gone (stale or no longer there). */
async function measure(driver: AppiumSession, id: string): Promise<Rect | null> {
  try {
    const { x, y, width, height } = await driver.getElementRect!(id);
    return [x, y, width, height].every(Number.isFinite) ? { x, y, width, height } : null;
  } catch (error) {
    if (isNotFound(error) || /stale element/i.test(codeAndText(error))) return null;
    throw error;
  }
}

// WebdriverIO's own test for a missing element (its isElementNotFoundAgain) reads the message this way.
function isNotFound(error: unknown): boolean {
  return /no such element|could not be located|unable to find/i.test(codeAndText(error));
}

/** The W3C code too: WebdriverIO names an Error after it (`stale element reference`, `no such element`). */
function codeAndText(error: unknown): string {
  return `${error instanceof Error ? error.name : ""} ${errorText(error)}`;
}

/** An Error's message, or, for the W3C error body WebdriverIO keeps on an element not found, its `error` and `message`. */
function errorText(error: unknown): string {
  if (error instanceof Error || !error || typeof error !== "object") return reason(error);
  const body = error as { error?: unknown; message?: unknown };
  return [body.error, body.message].filter((v) => typeof v === "string").join(": ") || JSON.stringify(error);
}
