/*
 * The element under a located point as selectors the session's own driver finds (`find`,
 * src/core/flows/find/find.ts): the accessibility node under the point from the page source,
 * named by its id when no other visible node shares it, else by its precise XPath. Selectors are
 * WebdriverIO strings (`id=`, `~`, XPath), which the plugin reads as W3C locators too
 * (src/plugin/locators.ts).
 */
import type { Platform } from "./description.js";
import { ID_ATTRIBUTES, TEXT_ATTRIBUTES } from "./a11y-element.js";
import { CONTAINER_SHARE, elementAt } from "./element-queries.js";
import type { PageNode } from "./page-source-parse.js";
import { contains, type Point, type Size } from "../ground/geometry.js";

/** The node found under a point and the selectors that name it, most stable first. */
export interface NodeLocator {
  node: PageNode;
  /** Each finds the node; the session uses the first its driver finds exactly once. */
  selectors: string[];
}

/**
 * The node the user means at `point` and its selectors, or `undefined` when no node but a
 * container holds the point (a canvas, a game, a Flutter view without semantics). The node is
 * the one a tap's heal would store (`elementAt`: the smallest with an id or a text, an id
 * preferred), else the smallest node holding the point that is not a container.
 */
export function nodeLocator(
  nodes: PageNode[],
  point: Point,
  device: { platform: Platform; screen: Size },
): NodeLocator | undefined {
  const node =
    (elementAt(nodes, point, device.platform, device.screen) as PageNode | undefined) ??
    smallestAt(nodes, point, device.screen);
  if (!node) return undefined;
  return { node, selectors: [...idSelectors(nodes, node, device.platform), node.path] };
}

function smallestAt(nodes: PageNode[], point: Point, screen: Size): PageNode | undefined {
  const maxArea = CONTAINER_SHARE * screen.width * screen.height;
  const area = (n: PageNode) => n.bounds.width * n.bounds.height;
  const holding = nodes.filter((n) => contains(n.bounds, point) && area(n) < maxArea);
  return holding.reduce<PageNode | undefined>((best, n) => (!best || area(n) <= area(best) ? n : best), undefined);
}

/**
 * The id selectors of `node` that no other visible node shares: UiAutomator2's `resource-id`
 * (W3C `id`) and `content-desc` (accessibility id); XCUITest's `name` when it is an identifier
 * (the parser drops a name that only repeats the label, src/core/device/page-source-parse.ts).
 */
function idSelectors(nodes: PageNode[], node: PageNode, platform: Platform): string[] {
  const unique = (attribute: string) => {
    const value = node.attributes[attribute];
    return value !== undefined && nodes.filter((n) => n.attributes[attribute] === value).length === 1
      ? value
      : undefined;
  };
  const id = unique(ID_ATTRIBUTES[platform]);
  if (platform === "ios") return id !== undefined ? [idSelector(id, platform)] : [];
  const description = unique(TEXT_ATTRIBUTES.android[1]!);
  return [
    ...(id !== undefined ? [idSelector(id, platform)] : []),
    ...(description !== undefined ? [`~${description}`] : []),
  ];
}

/** The selector of an element by its id attribute: `id=<resource-id>` (W3C `id`) on Android, `~<name>` on iOS. */
export function idSelector(id: string, platform: Platform): string {
  return platform === "ios" ? `~${id}` : `id=${id}`;
}
