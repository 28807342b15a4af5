/*
 * Questions asked of parsed page-source elements: which element the user tapped at a point,
 * where a stored element is now, and whether a progress indicator says the screen still loads.
 */
import type { Platform } from "./description.js";
import {
  CLASS_ATTRIBUTES,
  ID_ATTRIBUTES,
  TEXT_ATTRIBUTES,
  withoutTypedText,
  type A11yElement,
} from "./a11y-element.js";
import type { PageSourceReading } from "./page-source.js";
import { contains, type Point, type Rect, type Size } from "../ground/geometry.js";

/** An element covering this share of the screen or more is a container, never "the element at the point". */
export const CONTAINER_SHARE = 0.5;
/** An element with an id is preferred over a smaller one without, when at most this many times its area. */
const ID_PREFERENCE_AREA = 4;
const area = (r: Rect) => r.width * r.height;

/**
 * The element the user tapped at `point`: the innermost (smallest) element containing it that
 * has an id or a text, leaving out containers that cover half the screen or more. An element
 * with an id wins over a smaller one without (a button's label inside the button), as long as it
 * is at most `ID_PREFERENCE_AREA` times its area, since an id outlives a redesign's new wording.
 */
export function elementAt(
  elements: A11yElement[],
  point: Point,
  platform: Platform,
  screen: Size,
): A11yElement | undefined {
  const id = ID_ATTRIBUTES[platform];
  const findable = (e: A11yElement) =>
    e.attributes[id] !== undefined || TEXT_ATTRIBUTES[platform].some((a) => e.attributes[a] !== undefined);
  const maxArea = CONTAINER_SHARE * screen.width * screen.height;
  const candidates = elements.filter((e) => contains(e.bounds, point) && findable(e) && area(e.bounds) < maxArea);
  const smallest = (of: A11yElement[]) =>
    of.reduce<A11yElement | undefined>(
      (best, e) => (!best || area(e.bounds) <= area(best.bounds) ? e : best),
      undefined,
    );
  const innermost = smallest(candidates);
  if (!innermost || innermost.attributes[id] !== undefined) return innermost;
  const withId = smallest(candidates.filter((e) => e.attributes[id] !== undefined));
  return withId && area(withId.bounds) <= ID_PREFERENCE_AREA * area(innermost.bounds) ? withId : innermost;
}

/** What looking for the stored element again found. */
export type A11yFinding =
  | { kind: "unique"; element: A11yElement; matched: string[] }
  | { kind: "ambiguous"; elements: A11yElement[]; matched: string[] }
  | { kind: "none" };

/**
 * Find `stored` among the visible `elements` (as parsed: on the screen): by its id first, else
 * by its text attributes together with its class. One match is `unique`.
 */
export function findElement(
  elements: A11yElement[],
  recorded: Pick<A11yElement, "attributes">,
  platform: Platform,
): A11yFinding {
  // A record written before fields' typed text was left out is found by its id, label and class.
  const stored = { attributes: withoutTypedText(recorded.attributes, platform) };
  const id = ID_ATTRIBUTES[platform];
  const texts = TEXT_ATTRIBUTES[platform].filter((a) => stored.attributes[a] !== undefined);
  const cls = CLASS_ATTRIBUTES[platform];
  const withClass = stored.attributes[cls] !== undefined ? [...texts, cls] : texts;
  const tries: string[][] = [];
  // An id shared by list rows is narrowed by the text; an element without an id is found by its text.
  if (stored.attributes[id] !== undefined) tries.push([id], ...(texts.length ? [[id, ...withClass]] : []));
  if (texts.length) tries.push(withClass);
  let ambiguous: A11yFinding | undefined;
  for (const matched of tries) {
    const hits = elements.filter((e) => matched.every((a) => e.attributes[a] === stored.attributes[a]));
    if (hits.length === 1) return { kind: "unique", element: hits[0]!, matched };
    if (hits.length > 1) ambiguous ??= { kind: "ambiguous", elements: hits, matched };
  }
  return ambiguous ?? { kind: "none" };
}

/**
 * The class names of progress indicators as the drivers serve them: UiAutomator2's `class` is the
 * node's accessibility class name, `android.widget.ProgressBar` for ProgressBar and the views and
 * Compose nodes built on it (Material's progress indicators, ContentLoadingProgressBar);
 * `*ProgressIndicator` covers a custom view that reports its own class. XCUITest's `type` is
 * `XCUIElementTypeActivityIndicator` for a spinner (UIActivityIndicatorView). iOS's
 * `XCUIElementTypeProgressIndicator` (UIProgressView, a determinate bar, often a permanent part of
 * a screen) is left out; Android cannot tell its determinate bars apart, so they count.
 */
const PROGRESS_CLASSES: Record<Platform, RegExp> = {
  android: /(ProgressBar|ProgressIndicator)$/,
  ios: /^XCUIElementTypeActivityIndicator$/,
};

/**
 * A visible progress indicator in the page source, described for the log (`android.widget.ProgressBar
 * at (x, y)`), or `undefined`: the screen says it is still loading. Hidden indicators are not in
 * `elements` (see `parsePageSource`). A web page's HTML is not parsed, so there an element
 * marked `aria-busy="true"` or `role="progressbar"` counts, visible or not.
 */
export function progressIndicator(reading: PageSourceReading, platform: Platform): string | undefined {
  if ("skipped" in reading) return reading.busy;
  const cls = CLASS_ATTRIBUTES[platform];
  const found = reading.elements.find((e) => PROGRESS_CLASSES[platform].test(e.attributes[cls] ?? ""));
  return found && `${found.attributes[cls]} at (${found.bounds.x}, ${found.bounds.y})`;
}
