/*
 * Parsing a UiAutomator2 or XCUITest page source into the elements a user can see: hidden
 * elements dropped, stable attributes kept, bounds in screenshot pixels clipped to the screen.
 */
import type { Platform } from "./description.js";
import {
  CLASS_ATTRIBUTES,
  ID_ATTRIBUTES,
  isEditableClass,
  TEXT_ATTRIBUTES,
  withoutTypedText,
  type A11yElement,
} from "./a11y-element.js";
import type { Rect, Size } from "../ground/geometry.js";

/**
 * The attributes saying an element is hidden (`"false"`): UiAutomator2 serves `displayed`
 * (AccessibilityNodeInfo.isVisibleToUser); Espresso serves `visible` (appium-espresso-driver's
 * SourceDocument.kt writes ViewElement.isVisible, which is ViewMatchers.isDisplayed()) and no
 * `displayed`; XCUITest serves `visible` (read from the accessibility layer; appium-xcuitest-driver's
 * element-attributes reference). A hidden element is not what the user tapped, nor a place to tap.
 */
const HIDDEN: Record<Platform, string[]> = { android: ["displayed", "visible"], ios: ["visible"] };
/** An element less than this share of which lies on the screen is scrolled away, not a place to tap. */
const MIN_VISIBLE_SHARE = 0.5;

/** What parsing needs of the device: its platform, the scale of iOS points and the screen to clip to. */
export interface PageSourceDevice {
  platform: Platform;
  scale: number;
  /** In screenshot pixels. */
  screen: Size;
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
  /** The XML tag (the class on UiAutomator2 and Espresso, the type on XCUITest). */
  tag: string;
  /**
   * The element's precise XPath in the page source, one `tag[n]` step per level from the root
   * (`n` counts the siblings of that tag, hidden ones too, as the driver's XPath does):
   * src/core/device/node-locator.ts finds an element without a unique id by it.
   */
  path: string;
  /**
   * What `ai.act`'s observation reads beyond the stable attributes (src/core/device/controls.ts):
   * UiAutomator2's `clickable`, `checkable`, `scrollable`, `password` and `hint`, XCUITest's
   * `placeholderValue`, and the typed `text`/`value` of a field, which only the observation compares.
   */
  traits: Record<string, string>;
}

/** The attributes kept in {@link PageNode.traits}, per platform. */
const TRAIT_ATTRIBUTES: Record<Platform, string[]> = {
  android: ["clickable", "checkable", "scrollable", "password", "hint", "text"],
  ios: ["placeholderValue", "value"],
};

/** The states kept per platform: UiAutomator2 serves all four; XCUITest serves `enabled` and `selected`. */
const STATE_ATTRIBUTES: Record<Platform, string[]> = {
  android: ["checked", "selected", "enabled", "focused"],
  ios: ["enabled", "selected"],
};
/** Classes of text fields: Android's EditText and its subclasses, XCUITest's text element types. */

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
  const walk = (children: Ordered[], depth: number, parentPath: string) => {
    const seen = new Map<string, number>();
    for (const node of children) {
      const tag = Object.keys(node).find((k) => k !== ":@");
      if (!tag || tag.startsWith("?") || tag === "#text") continue;
      const index = (seen.get(tag) ?? 0) + 1;
      seen.set(tag, index);
      const path = `${parentPath}/${tag}[${index}]`;
      const attrs = node[":@"] ?? {};
      // Each element's own flag decides: the drivers compute it per element, ancestors included.
      if (HIDDEN[platform].every((flag) => attrs[flag] !== "false")) {
        const full = platform === "android" ? androidBounds(attrs) : iosBounds(attrs, scale);
        const bounds = full && visiblePart(full, screen);
        if (bounds) nodes.push(pageNode(attrs, { tag, path }, platform, { bounds, depth }));
      }
      walk(node[tag] as Ordered[], depth + 1, path);
    }
  };
  walk(tree, 0, "");
  return nodes;
}

function pageNode(
  attrs: Record<string, string>,
  { tag, path }: { tag: string; path: string },
  platform: Platform,
  at: { bounds: Rect; depth: number },
): PageNode {
  const stable = stableAttributes(attrs, tag, platform);
  const states: Record<string, string> = {};
  for (const name of STATE_ATTRIBUTES[platform]) if (attrs[name] !== undefined) states[name] = attrs[name];
  const editable = isEditableClass(stable[CLASS_ATTRIBUTES[platform]] ?? "", platform) || attrs.password === "true";
  // A field's typed text stays in `traits` (ai.act's `holds` reads it), never in the stored identity.
  const attributes = withoutTypedText(stable, platform, editable);
  const traits: Record<string, string> = {};
  for (const name of TRAIT_ATTRIBUTES[platform]) if (attrs[name] !== undefined) traits[name] = attrs[name];
  return { attributes, bounds: at.bounds, depth: at.depth, states, editable, tag, path, traits };
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
