/*
 * The accessibility evidence of the heal ladder (docs/heal.md): the driver's page source read
 * once, capped in size and time, parsed into the elements a user can see, with their stable
 * attributes and bounds in screenshot pixels clipped to the screen. A page source that is
 * missing, too big, slow, unparsable or a web page's HTML is a skip (a note in the call's log),
 * never a failure of the tap.
 */
import type { Platform } from "./description.js";
import { contains, type Point, type Rect, type Size } from "../ground/geometry.js";

/** A page source longer than this is not parsed: parsing is synchronous, so its size bounds its time. */
export const PAGE_SOURCE_MAX_CHARS = 2_000_000;
/** Reading the page source takes 0.3-2 s on real devices; a driver slower than this is given up on. */
export const PAGE_SOURCE_TIMEOUT_MS = 5_000;

/**
 * The attributes kept per platform, most stable first. UiAutomator2 serves `resource-id`,
 * `content-desc`, `text`, `class` and `bounds="[x1,y1][x2,y2]"` in pixels; XCUITest serves
 * `name` (the accessibility id, or the label when none is set), `label`, `value`, `type` and
 * `x`/`y`/`width`/`height` in points.
 */
const ID_ATTRIBUTES: Record<Platform, string> = { android: "resource-id", ios: "name" };
const TEXT_ATTRIBUTES: Record<Platform, string[]> = { android: ["text", "content-desc"], ios: ["label", "value"] };
const CLASS_ATTRIBUTES: Record<Platform, string> = { android: "class", ios: "type" };
/**
 * The attributes saying an element is hidden (`"false"`): UiAutomator2 serves `displayed`
 * (AccessibilityNodeInfo.isVisibleToUser); Espresso serves `visible` (appium-espresso-driver's
 * SourceDocument.kt writes ViewElement.isVisible, which is ViewMatchers.isDisplayed()) and no
 * `displayed`; XCUITest serves `visible` (read from the accessibility layer; appium-xcuitest-driver's
 * element-attributes reference). A hidden element is not what the user tapped, nor a place to tap.
 */
const HIDDEN: Record<Platform, string[]> = { android: ["displayed", "visible"], ios: ["visible"] };
/** An element covering this share of the screen or more is a container, never "the element at the point". */
const CONTAINER_SHARE = 0.5;
/** An element with an id is preferred over a smaller one without, when at most this many times its area. */
const ID_PREFERENCE_AREA = 4;
/** An element less than this share of which lies on the screen is scrolled away, not a place to tap. */
const MIN_VISIBLE_SHARE = 0.5;

/** One element of the page source: its stable attributes (as the driver names them) and bounds. */
export interface A11yElement {
  /** Non-empty stable attributes, e.g. `{ "resource-id": "com.shop:id/checkout", class: "android.widget.Button" }`. */
  attributes: Record<string, string>;
  /** In screenshot pixels. */
  bounds: Rect;
}

/** What a session's page source read gave. */
export type PageSourceReading<E = A11yElement> =
  | { elements: E[]; ms: number }
  /**
   * `absent`: the session serves no page source at all, which is not worth a note. `busy`: a web
   * page's HTML, not parsed, that marks content as loading (see {@link progressIndicator}).
   */
  | { skipped: string; absent?: true; busy?: string };

/** The limits of one read; tests pass smaller ones. */
export interface PageSourceLimits {
  maxChars: number;
  timeoutMs: number;
}

const LIMITS: PageSourceLimits = { maxChars: PAGE_SOURCE_MAX_CHARS, timeoutMs: PAGE_SOURCE_TIMEOUT_MS };

/** What parsing needs of the device: its platform, the scale of iOS points and the screen to clip to. */
export interface PageSourceDevice {
  platform: Platform;
  scale: number;
  /** In screenshot pixels. */
  screen: Size;
}

/**
 * Read and parse the page source; `skipped` says why there are no elements. The read is raced
 * with `signal` (the call's deadline) as well as the cap in `limits`: a driver's slow `/source`
 * is given up on when either ends, never waited for past the call's deadline.
 */
export async function readPageSource<E = A11yElement>(
  read: (() => Promise<string>) | undefined,
  device: PageSourceDevice,
  options: {
    signal?: AbortSignal;
    limits?: PageSourceLimits;
    /** How the XML becomes elements; default {@link parsePageSource}. */
    parse?: (xml: string, device: PageSourceDevice) => Promise<E[]>;
  } = {},
): Promise<PageSourceReading<E>> {
  if (!read) return { skipped: "this device session has no page source", absent: true };
  const { signal, limits = LIMITS } = options;
  const parse = options.parse ?? (parsePageSource as unknown as (xml: string, d: PageSourceDevice) => Promise<E[]>);
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  let xml: unknown;
  try {
    const giveUp = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${limits.timeoutMs} ms`)), limits.timeoutMs);
      onAbort = () => reject(new Error("no answer before the call's deadline"));
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
    });
    const reading = read();
    reading.catch(() => undefined);
    xml = await Promise.race([reading, giveUp]);
  } catch (error) {
    return { skipped: `reading the page source failed: ${(error as Error).message}` };
  } finally {
    clearTimeout(timer);
    if (onAbort) signal?.removeEventListener("abort", onAbort);
  }
  if (typeof xml !== "string") return { skipped: `the page source is a ${typeof xml}, not XML text` };
  if (xml.length > limits.maxChars) {
    return { skipped: `the page source has ${xml.length} characters, over the ${limits.maxChars} parsed` };
  }
  if (/^\s*(<\?xml[^>]*>\s*)?(<!doctype html|<html[\s>])/i.test(xml)) {
    const busy = htmlBusy(xml);
    const skipped = "the page source is a web page's HTML (a web context), not the accessibility tree";
    return busy ? { skipped, busy } : { skipped };
  }
  try {
    return { elements: await parse(xml, device), ms: Date.now() - started };
  } catch (error) {
    return { skipped: `the page source is not XML: ${(error as Error).message}` };
  }
}

// Loaded on the first page source, so a run that never reads one does not pay for the parser.
let xmlParser: Promise<typeof import("fast-xml-parser")> | undefined;

type Ordered = Record<string, unknown> & { ":@"?: Record<string, string> };

/**
 * Every element of a UiAutomator2 or XCUITest page source that the user can see, in document
 * order: hidden elements are dropped, bounds are clipped to the screen, and an element mostly
 * off the screen (scrolled away) is dropped.
 */
export async function parsePageSource(xml: string, device: PageSourceDevice): Promise<A11yElement[]> {
  return (await parsePageNodes(xml, device)).map(({ attributes, bounds }) => ({ attributes, bounds }));
}

/**
 * An element of the page source with what `toSatisfy`'s evidence needs beyond {@link A11yElement}:
 * how deep it is nested (its descendants follow it in document order, deeper), its states as the
 * driver names them, and whether it is a field the user types into.
 */
export interface PageNode extends A11yElement {
  /** Nesting depth in the XML, counting dropped elements too. */
  depth: number;
  /** `checked`, `selected`, `enabled` (and Android's `focused`), where the driver serves them. */
  states: Record<string, string>;
  /** A text field (EditText, XCUIElementTypeTextField...): its text or value is what the user typed. */
  editable: boolean;
}

/** The states kept per platform: UiAutomator2 serves all four; XCUITest serves `enabled` and `selected`. */
const STATE_ATTRIBUTES: Record<Platform, string[]> = {
  android: ["checked", "selected", "enabled", "focused"],
  ios: ["enabled", "selected"],
};
/** Classes of text fields: Android's EditText and its subclasses, XCUITest's text element types. */
const EDITABLE: Record<Platform, RegExp> = {
  android: /EditText|AutoCompleteTextView/,
  ios: /^XCUIElementType(TextField|SecureTextField|TextView|SearchField)$/,
};

/** {@link parsePageSource} with each element's depth, states and whether it is a text field. */
export async function parsePageNodes(xml: string, device: PageSourceDevice): Promise<PageNode[]> {
  const { XMLParser } = await (xmlParser ??= import("fast-xml-parser"));
  const { platform, scale, screen } = device;
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "",
    preserveOrder: true,
    parseAttributeValue: false,
    processEntities: true,
  });
  const tree = parser.parse(xml, true) as Ordered[];
  const nodes: PageNode[] = [];
  const walk = (children: Ordered[], depth: number) => {
    for (const node of children) {
      const tag = Object.keys(node).find((k) => k !== ":@");
      if (!tag || tag.startsWith("?") || tag === "#text") continue;
      const attrs = node[":@"] ?? {};
      // Each element's own flag decides: the drivers compute it per element, ancestors included.
      if (HIDDEN[platform].every((flag) => attrs[flag] !== "false")) {
        const full = platform === "android" ? androidBounds(attrs) : iosBounds(attrs, scale);
        const bounds = full && visiblePart(full, screen);
        if (bounds) nodes.push(pageNode(attrs, tag, platform, { bounds, depth }));
      }
      walk(node[tag] as Ordered[], depth + 1);
    }
  };
  walk(tree, 0);
  return nodes;
}

function pageNode(
  attrs: Record<string, string>,
  tag: string,
  platform: Platform,
  at: { bounds: Rect; depth: number },
): PageNode {
  const attributes = stableAttributes(attrs, tag, platform);
  const states: Record<string, string> = {};
  for (const name of STATE_ATTRIBUTES[platform]) if (attrs[name] !== undefined) states[name] = attrs[name];
  const cls = attributes[CLASS_ATTRIBUTES[platform]] ?? "";
  const editable = EDITABLE[platform].test(cls) || attrs.password === "true";
  return { attributes, bounds: at.bounds, depth: at.depth, states, editable };
}

function stableAttributes(attrs: Record<string, string>, tag: string, platform: Platform): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of [ID_ATTRIBUTES[platform], ...TEXT_ATTRIBUTES[platform], CLASS_ATTRIBUTES[platform]]) {
    const value = attrs[name]?.trim();
    if (value) kept[name] = value;
  }
  // WebDriverAgent's `name` is the accessibility identifier when one is set, else the label
  // (XCUIElement+FBWebDriverAttributes.m, wdNameWithSnapshot): a name equal to the label is no id.
  if (platform === "ios" && kept.name !== undefined && kept.name === kept.label) delete kept.name;
  // XCUITest names each element's tag after its type; an Android tag is the class too (or `node`).
  const cls = CLASS_ATTRIBUTES[platform];
  if (!kept[cls] && tag !== "node" && tag !== "hierarchy") kept[cls] = tag;
  return kept;
}

function androidBounds(attrs: Record<string, string>): Rect | undefined {
  const m = /^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$/.exec(attrs.bounds ?? "");
  if (!m) return undefined;
  const [x1, y1, x2, y2] = m.slice(1).map(Number) as [number, number, number, number];
  return x2 > x1 && y2 > y1 ? finiteRect({ x: x1, y: y1, width: x2 - x1, height: y2 - y1 }) : undefined;
}

function iosBounds(attrs: Record<string, string>, scale: number): Rect | undefined {
  const [x, y, w, h] = ["x", "y", "width", "height"].map((k) => Number(attrs[k]));
  if (![x, y, w, h].every((v) => Number.isFinite(v)) || !(w! > 0) || !(h! > 0)) return undefined;
  return finiteRect({
    x: Math.round(x! * scale),
    y: Math.round(y! * scale),
    width: Math.round(w! * scale),
    height: Math.round(h! * scale),
  });
}

/**
 * `r` when every number of it is finite. Digits past a double's range read as ±Infinity, and a
 * width of Infinity - Infinity is NaN, which passes every `<= 0` check: such an element is dropped.
 */
function finiteRect(r: Rect): Rect | undefined {
  const { x, y, width, height } = r;
  return [x, y, width, height, x + width, y + height].every(Number.isFinite) ? r : undefined;
}

/** `r` clipped to the screen, or `undefined` when less than half of it lies there. */
function visiblePart(r: Rect, screen: Size): Rect | undefined {
  const x = Math.max(0, r.x);
  const y = Math.max(0, r.y);
  const width = Math.min(screen.width, r.x + r.width) - x;
  const height = Math.min(screen.height, r.y + r.height) - y;
  if (!(width > 0 && height > 0 && width * height >= MIN_VISIBLE_SHARE * r.width * r.height)) return undefined;
  return { x, y, width, height };
}

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
  stored: Pick<A11yElement, "attributes">,
  platform: Platform,
): A11yFinding {
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
 * `elements` (see {@link parsePageSource}). A web page's HTML is not parsed, so there an element
 * marked `aria-busy="true"` or `role="progressbar"` counts, visible or not.
 */
export function progressIndicator(reading: PageSourceReading, platform: Platform): string | undefined {
  if ("skipped" in reading) return reading.busy;
  const cls = CLASS_ATTRIBUTES[platform];
  const found = reading.elements.find((e) => PROGRESS_CLASSES[platform].test(e.attributes[cls] ?? ""));
  return found && `${found.attributes[cls]} at (${found.bounds.x}, ${found.bounds.y})`;
}

/** The first HTML tag marking content as loading (WAI-ARIA `aria-busy="true"`, `role="progressbar"`), shortened. */
function htmlBusy(html: string): string | undefined {
  const tag = /<[a-z][^>]*\s(aria-busy\s*=\s*["']?true\b|role\s*=\s*["']?progressbar\b)[^>]*>/i.exec(html)?.[0];
  return tag && (tag.length > 80 ? `${tag.slice(0, 77)}...` : tag);
}
