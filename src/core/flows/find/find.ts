/*
 * `find` (docs/api.md "Finding elements"): the element a description names, learned once per
 * device model and OS and replayed without a model, answered as the driver's own element. The
 * point is a tap's stored value of kind `locator` under `locators/` (src/core/store/keys.ts): the
 * same locate, crop check, heal ladder, transfer, review and lock as a tap
 * (src/core/flows/tap/tap-kind.ts), with nothing tapped. The element is then read off the screen
 * at that point by the session (`DeviceSession.elementAt`): the page source's node under it
 * (src/core/device/node-locator.ts) on native sessions, `document.elementFromPoint` on web ones.
 */
import type { Point } from "../../device/description.js";
import { describeAttributes } from "../../device/a11y-element.js";
import { nodeLocator } from "../../device/node-locator.js";
import type { Call } from "../../run/call.js";
import type { Done } from "../../run/lifecycle.js";
import { locatorKey } from "../../store/keys.js";
import { runTap, type TapParams } from "../tap/tap-kind.js";

/** What `find` is asked: a tap's parameters without `verify` or `scroll`. */
export type FindParams = Omit<TapParams, "kind" | "verify" | "scroll">;

/** What `find` answers besides its outcome and model calls. */
export interface FindDone {
  /** The stored point, in screenshot pixels. */
  point: Point;
  /**
   * The driver's own element at the point (a WebdriverIO element, a W3C reference in the plugin),
   * or `null` when no element but a container is there: the caller then answers the point alone.
   */
  element: object | null;
}

/** The store key of a locator on the call's device. */
export function findKeyOf(call: Call, params: FindParams): string {
  return locatorKey(call.device.platform, call.deviceSlug, params.prompt);
}

/** Replay, learn or heal the locator's point, then find the driver's element there. */
export async function runFind(call: Call, key: string, params: FindParams): Promise<Done<FindDone>> {
  const located = await runTap(call, key, { ...params, kind: "locator", verify: undefined });
  const { point } = located.result;
  const element = await elementAtPoint(call, point);
  const found = element ? "the driver's element" : "no element but a container: the point alone";
  return {
    ...located,
    result: { point, element },
    detail: [located.detail, `(${point.x}, ${point.y}): ${found}`].filter(Boolean).join("; "),
  };
}

/** The session's element at `point`; `null` when it has none there or cannot tell. */
async function elementAtPoint(call: Call, point: Point): Promise<object | null> {
  return call.elementAt({
    point,
    selectors: async () => {
      const reading = await call.pageNodes();
      if ("skipped" in reading) {
        call.note(`find: no page source node: ${reading.skipped}`);
        return [];
      }
      const located = nodeLocator(reading.elements, point, call.device);
      call.note(
        located
          ? `find: node ${describeAttributes(located.node.attributes)} at ${located.node.path}`
          : `find: no node but a container holds (${point.x}, ${point.y})`,
      );
      return located?.selectors ?? [];
    },
  });
}
