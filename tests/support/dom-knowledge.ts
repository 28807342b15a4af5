/**
 * What the wire-level model doubles know on the rig: the demo page's DOM. A double is not a
 * model; it answers from the element boxes of the session's page, which is what lets the
 * e2e tests check that tapshot taps where the page really has the element.
 */
import type { Box, ImageFrame, Knowledge } from "../../rig/model-doubles/index.js";
import type { RigSession } from "../../rig/session.js";

/** Phrases a prompt may use for each tappable element of the demo shop. */
const TARGETS: [RegExp, string][] = [
  [/checkout/i, "checkout-button"],
  [/place order/i, "place-order-button"],
  [/continue shopping/i, "continue-button"],
  [/gift card/i, "offer-5"],
  // The promo screen's form (find, tests/wdio/ai-find.test.ts).
  [/promo code/i, "promo-input"],
  [/\bapply\b/i, "apply-button"],
  // A scroll tap's region (scroll.within as a prompt): located, never tapped.
  [/strip of offers/i, "offer-strip"],
];

/** Statements a verify may make, and the screen that makes each true. */
const STATEMENTS: [RegExp, string][] = [
  [/order summary/i, "checkout"],
  [/thank you|confirmation/i, "confirmation"],
];

/** Elements whose content changes every run; a judge marks them varying. */
const VARYING = ["balance", "order-number"];

/** The double's view of the rig: which session's page to read, and what it was asked. */
export interface DomKnowledge extends Knowledge {
  /**
   * The session whose page answers (the test sets it before each call). With several parallel
   * sessions on one profile (same page, same boxes), a check passes when any of them shows the screen.
   */
  session: RigSession | RigSession[] | undefined;
  /** Reference counts of each judge request, in order. */
  readonly judgeReferences: number[];
}

function scaleTo(box: Box, frame: ImageFrame, screenWidth: number): Box {
  const s = frame.width / screenWidth;
  return { x: box.x * s, y: box.y * s, width: box.width * s, height: box.height * s };
}

export function domKnowledge(): DomKnowledge {
  const knowledge: DomKnowledge = {
    session: undefined,
    judgeReferences: [],
    async locate(target, image) {
      const session = current();
      const testid = TARGETS.find(([phrase]) => phrase.test(target))?.[1];
      if (!testid) return { found: false, reason: `double: the demo shop has nothing like "${target}"` };
      const box = await session.findBox(testid);
      if (!box) return { found: false, reason: `double: no visible ${testid} in the page's DOM` };
      // A model sees only the screenshot: an element scrolled mostly out of view is not on it.
      const device = await session.describe();
      const cx = box.x + box.width / 2;
      const cy = box.y + box.height / 2;
      const top = device.insets.top;
      const bottom = device.screen.height - device.insets.bottom;
      if (cx < 0 || cx > device.screen.width || cy < top || cy > bottom) {
        return { found: false, reason: `double: ${testid} is scrolled out of the screen` };
      }
      return { box: scaleTo(box, image, await screenWidth(session)), reason: `double: DOM box of ${testid}` };
    },
    async check(statement) {
      const screens = await Promise.all(all().map((s) => s.currentScreen()));
      const wanted = STATEMENTS.find(([phrase]) => phrase.test(statement))?.[1];
      return {
        pass: wanted !== undefined && screens.includes(wanted as (typeof screens)[number]),
        reason: `double: the page shows the ${screens.join(", ")} screen`,
      };
    },
    async judge(_prompt, image, referenceCount) {
      knowledge.judgeReferences.push(referenceCount);
      const session = current();
      const width = await screenWidth(session);
      const varying: Box[] = [];
      for (const id of VARYING) {
        const box = await session.findBox(id);
        if (box) varying.push(scaleTo(box, image, width));
      }
      return { accept: true, reason: `double: ${await session.currentScreen()} screen`, varying };
    },
    async compare() {
      const session = current();
      const shown = await session.currentScreen();
      // On the cart, a missing Checkout button is a regression; anything else is a restyle.
      const missing = shown === "cart" && !(await session.findBox("checkout-button"));
      return {
        realChange: missing,
        reason: missing ? "double: the Checkout button is gone" : "double: same content, restyled",
        varying: [],
      };
    },
  };
  function all(): RigSession[] {
    if (!knowledge.session) throw new Error("domKnowledge.session is not set");
    return Array.isArray(knowledge.session) ? knowledge.session : [knowledge.session];
  }
  function current(): RigSession {
    return all()[0]!;
  }
  return knowledge;
}

async function screenWidth(session: RigSession): Promise<number> {
  return (await session.describe()).screen.width;
}
