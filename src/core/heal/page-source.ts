/**
 * The accessibility evidence of the heal ladder (docs/heal.md): the driver's page source read
 * once, capped in size and time, parsed into elements with their stable attributes and bounds
 * in screenshot pixels. A page source that is missing, too big, slow or unparsable is a skip
 * (a note in the call's log), never a failure of the tap.
 */
import { XMLParser } from "fast-xml-parser";
import type { Platform } from "../device.js";
import type { Point, Rect } from "../geometry.js";

/** A page source longer than this is not parsed: parsing is synchronous, so its size bounds its time. */
export const PAGE_SOURCE_MAX_CHARS = 2_000_000;
/** Reading the page source takes 0.3-2 s on real devices; a driver slower than this is given up on. */
export const PAGE_SOURCE_TIMEOUT_MS = 5_000;

/**
 * The attributes kept per platform, most stable first. UiAutomator2 serves `resource-id`,
 * `content-desc`, `text`, `class` and `bounds="[x1,y1][x2,y2]"` in pixels; XCUITest serves
 * `name` (the accessibility id), `label`, `value`, `type` and `x`/`y`/`width`/`height` in points.
 */
const ID_ATTRIBUTES: Record<Platform, string> = { android: "resource-id", ios: "name" };
const TEXT_ATTRIBUTES: Record<Platform, string[]> = { android: ["text", "content-desc"], ios: ["label", "value"] };
const CLASS_ATTRIBUTES: Record<Platform, string> = { android: "class", ios: "type" };

/** One element of the page source: its stable attributes (as the driver names them) and bounds. */
export interface A11yElement {
  /** Non-empty stable attributes, e.g. `{ "resource-id": "com.shop:id/checkout", class: "android.widget.Button" }`. */
  attributes: Record<string, string>;
  /** In screenshot pixels. */
  bounds: Rect;
}

/** What a session's page source read gave. */
export type PageSourceReading =
  | { elements: A11yElement[]; ms: number }
  /** `absent`: the session serves no page source at all, which is not worth a note. */
  | { skipped: string; absent?: true };

/** The limits of one read; tests pass smaller ones. */
export interface PageSourceLimits {
  maxChars: number;
  timeoutMs: number;
}

const LIMITS: PageSourceLimits = { maxChars: PAGE_SOURCE_MAX_CHARS, timeoutMs: PAGE_SOURCE_TIMEOUT_MS };

/** Read and parse the page source; `skipped` says why there are no elements. */
export async function readPageSource(
  read: (() => Promise<string>) | undefined,
  device: { platform: Platform; scale: number },
  limits: PageSourceLimits = LIMITS,
): Promise<PageSourceReading> {
  if (!read) return { skipped: "this device session has no page source", absent: true };
  const started = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let xml: unknown;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${limits.timeoutMs} ms`)), limits.timeoutMs);
    });
    xml = await Promise.race([read(), timeout]);
  } catch (error) {
    return { skipped: `reading the page source failed: ${(error as Error).message}` };
  } finally {
    clearTimeout(timer);
  }
  if (typeof xml !== "string") return { skipped: `the page source is a ${typeof xml}, not XML text` };
  if (xml.length > limits.maxChars) {
    return { skipped: `the page source has ${xml.length} characters, over the ${limits.maxChars} parsed` };
  }
  try {
    return { elements: parsePageSource(xml, device.platform, device.scale), ms: Date.now() - started };
  } catch (error) {
    return { skipped: `the page source is not XML: ${(error as Error).message}` };
  }
}

type Ordered = Record<string, unknown> & { ":@"?: Record<string, string> };

/** Every element of a UiAutomator2 or XCUITest page source with bounds, in document order. */
export function parsePageSource(xml: string, platform: Platform, scale: number): A11yElement[] {
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: "",
    preserveOrder: true,
    parseAttributeValue: false,
    processEntities: true,
  });
  const tree = parser.parse(xml, true) as Ordered[];
  const elements: A11yElement[] = [];
  const walk = (nodes: Ordered[]) => {
    for (const node of nodes) {
      const tag = Object.keys(node).find((k) => k !== ":@");
      if (!tag || tag.startsWith("?") || tag === "#text") continue;
      const attrs = node[":@"] ?? {};
      const bounds = platform === "android" ? androidBounds(attrs) : iosBounds(attrs, scale);
      if (bounds) elements.push({ attributes: stableAttributes(attrs, tag, platform), bounds });
      walk(node[tag] as Ordered[]);
    }
  };
  walk(tree);
  return elements;
}

function stableAttributes(attrs: Record<string, string>, tag: string, platform: Platform): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of [ID_ATTRIBUTES[platform], ...TEXT_ATTRIBUTES[platform], CLASS_ATTRIBUTES[platform]]) {
    const value = attrs[name]?.trim();
    if (value) kept[name] = value;
  }
  // XCUITest names each element's tag after its type; an Android tag is the class too (or `node`).
  const cls = CLASS_ATTRIBUTES[platform];
  if (!kept[cls] && tag !== "node" && tag !== "hierarchy") kept[cls] = tag;
  return kept;
}

function androidBounds(attrs: Record<string, string>): Rect | undefined {
  const m = /^\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]$/.exec(attrs.bounds ?? "");
  if (!m) return undefined;
  const [x1, y1, x2, y2] = m.slice(1).map(Number) as [number, number, number, number];
  return x2 > x1 && y2 > y1 ? { x: x1, y: y1, width: x2 - x1, height: y2 - y1 } : undefined;
}

function iosBounds(attrs: Record<string, string>, scale: number): Rect | undefined {
  const [x, y, w, h] = ["x", "y", "width", "height"].map((k) => Number(attrs[k]));
  if (![x, y, w, h].every((v) => Number.isFinite(v)) || !(w! > 0) || !(h! > 0)) return undefined;
  return {
    x: Math.round(x! * scale),
    y: Math.round(y! * scale),
    width: Math.round(w! * scale),
    height: Math.round(h! * scale),
  };
}

function contains(r: Rect, p: Point): boolean {
  return p.x >= r.x && p.y >= r.y && p.x < r.x + r.width && p.y < r.y + r.height;
}

/** The innermost (smallest) element whose bounds contain `point` and that has an attribute worth finding. */
export function elementAt(elements: A11yElement[], point: Point, platform: Platform): A11yElement | undefined {
  const findable = (e: A11yElement) =>
    e.attributes[ID_ATTRIBUTES[platform]] !== undefined ||
    TEXT_ATTRIBUTES[platform].some((a) => e.attributes[a] !== undefined);
  let best: A11yElement | undefined;
  for (const e of elements) {
    if (!contains(e.bounds, point) || !findable(e)) continue;
    if (!best || e.bounds.width * e.bounds.height <= best.bounds.width * best.bounds.height) best = e;
  }
  return best;
}

/** What looking for the stored element again found. */
export type A11yFinding =
  | { kind: "unique"; element: A11yElement; matched: string[] }
  | { kind: "ambiguous"; elements: A11yElement[]; matched: string[] }
  | { kind: "none" };

/**
 * Find `stored` among `elements` on the screen: by its id first, else by its text attributes
 * together with its class. One match whose bounds lie on `screen` is `unique`.
 */
export function findElement(
  elements: A11yElement[],
  stored: Pick<A11yElement, "attributes">,
  platform: Platform,
  screen: Rect,
): A11yFinding {
  const onScreen = elements.filter(
    (e) =>
      e.bounds.x >= screen.x &&
      e.bounds.y >= screen.y &&
      e.bounds.x + e.bounds.width <= screen.x + screen.width &&
      e.bounds.y + e.bounds.height <= screen.y + screen.height,
  );
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
    const hits = onScreen.filter((e) => matched.every((a) => e.attributes[a] === stored.attributes[a]));
    if (hits.length === 1) return { kind: "unique", element: hits[0]!, matched };
    if (hits.length > 1) ambiguous ??= { kind: "ambiguous", elements: hits, matched };
  }
  return ambiguous ?? { kind: "none" };
}

/** `resource-id="x", class="y"`, for log lines and model prompts. */
export function describeAttributes(attributes: Record<string, string>, names = Object.keys(attributes)): string {
  return names.map((n) => `${n}=${JSON.stringify(attributes[n])}`).join(", ");
}
