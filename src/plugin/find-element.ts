/*
 * The `-tapshot` locator strategy (docs/plugin.md "Finding elements"): `find_element("-tapshot",
 * description)` answers the session's own element that `find` (src/core/flows/find/find.ts)
 * locates, as a W3C element reference, so the client's `send_keys`, `click`, `text` and waits
 * work on it unchanged. `find_elements` answers at most that one element, and none when it is
 * missing.
 *
 * Where no element but a container is under the stored point (a canvas, a game), the answer is
 * an element of the plugin's own, as Appium's images plugin answers `-image` with elements whose
 * ids it recognises and whose commands it serves itself: its `click` taps the stored point, its
 * rect is the point (1x1, in screenshot pixels), it is displayed; every other command on it goes
 * to the driver, which knows no such element (docs/plugin.md says so).
 */
import type { PlatformApi } from "../core/engine/engine.js";
import type { PointElement } from "../core/engine/options.js";
import { ConfigError, InputError, TapshotError } from "../core/ground/errors.js";
import type { Point } from "../core/ground/geometry.js";
import { W3C_ELEMENT_KEY } from "../appium/element-at.js";

/** The strategy name a client sends. */
export const TAPSHOT_STRATEGY = "-tapshot";
/** The capability that heals a stored locator whose crop no longer matches (as `autoHeal` does for taps). */
export const AUTO_HEAL_CAP = "tapshot:autoHeal";
/** The id prefix of the plugin's own point elements. */
export const POINT_ELEMENT_PREFIX = "tapshot-point-";

/** A W3C element reference, with the older JSONWP key some clients still read. */
export type ElementReference = Record<string, string>;

function reference(id: string): ElementReference {
  return { [W3C_ELEMENT_KEY]: id, ELEMENT: id };
}

/** The point elements the plugin answered, per session: id -> the element. */
const pointElements = new Map<string, Map<string, PointElement>>();

/** Forget a session's point elements (the session ended). */
export function forgetPointElements(sessionId: string): void {
  pointElements.delete(sessionId);
}

/** The point element an id names in a session, or `undefined` for the driver's own ids. */
export function pointElementOf(sessionId: string, elementId: unknown): PointElement | undefined {
  if (typeof elementId !== "string" || !elementId.startsWith(POINT_ELEMENT_PREFIX)) return undefined;
  return pointElements.get(sessionId)?.get(elementId);
}

/** What one `-tapshot` find needs. */
export interface FindRequest {
  api: PlatformApi;
  session: { sessionId: string; capabilities: object };
  description: unknown;
  signal: AbortSignal;
}

/** Find the element; its W3C reference. Errors are tapshot's (a missing element is ElementNotFoundError). */
export async function findByDescription({ api, session, description, signal }: FindRequest): Promise<ElementReference> {
  if (typeof description !== "string" || !description.trim()) {
    throw new InputError(
      `The ${TAPSHOT_STRATEGY} strategy takes a description of the element, e.g. ` +
        `find_element("${TAPSHOT_STRATEGY}", 'the "Promo code" field'); it got ${JSON.stringify(description)}.`,
    );
  }
  const autoHeal = autoHealOf(session.capabilities as Record<string, unknown>);
  const { element } = await api.find(session, description, { signal, ...(autoHeal ? { autoHeal } : {}) });
  if ("pointOnly" in element) return reference(rememberPoint(session.sessionId, element as PointElement));
  const id = elementIdOf(element);
  if (!id)
    throw new TapshotError("device", `The driver answered an element without an id: ${JSON.stringify(element)}.`);
  return reference(id);
}

function autoHealOf(caps: Record<string, unknown>): boolean {
  const value = caps[AUTO_HEAL_CAP];
  if (value === undefined || value === null) return false;
  if (typeof value === "boolean") return value;
  throw new ConfigError(`The capability ${AUTO_HEAL_CAP} is ${JSON.stringify(value)}; use true or false.`);
}

function rememberPoint(sessionId: string, element: PointElement): string {
  const id = `${POINT_ELEMENT_PREFIX}${element.point.x}-${element.point.y}`;
  let elements = pointElements.get(sessionId);
  if (!elements) pointElements.set(sessionId, (elements = new Map()));
  elements.set(id, element);
  return id;
}

/** The id of an element as the session kit answers it (`{ elementId }`) or as a W3C reference. */
function elementIdOf(element: object): string | undefined {
  const e = element as Record<string, unknown>;
  const id = e.elementId ?? e[W3C_ELEMENT_KEY] ?? e.ELEMENT;
  return typeof id === "string" && id ? id : undefined;
}

/**
 * A command on a point element: `click` taps the point; its rect is the point (W3C rect in the
 * device's units is not known here, so screenshot pixels, said in the docs); it is displayed.
 * Anything else fails saying the element is only a point.
 */
export async function pointElementCommand(element: PointElement, command: string): Promise<unknown> {
  switch (command) {
    case "click":
      await element.click();
      return null;
    case "getElementRect":
      return rectOf(element.point);
    case "elementDisplayed":
      return true;
    default:
      throw new InputError(
        `This ${TAPSHOT_STRATEGY} element is a point on the screen, not an element of the app (no accessibility ` +
          `node is under it: a canvas, a game, a view without semantics); it supports click only, not ${command}. ` +
          `Give the view accessibility semantics to get the app's own element.`,
      );
  }
}

function rectOf(point: Point) {
  return { x: point.x, y: point.y, width: 1, height: 1 };
}
