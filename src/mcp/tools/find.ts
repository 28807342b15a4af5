/* `find`: ai.find, answered as the element's selectors. */
import { z } from "zod";
import { answering, entryFields, jsonAnswer } from "./answer.js";
import type { ToolContext } from "./context.js";

export const findTool = {
  name: "find",
  config: {
    description:
      "Find the element a description names (ai.find): learned once per device model and OS, found again with no " +
      "model. Answers its selectors: the -tapshot locator any Appium client can use, and the driver's own selector.",
    inputSchema: { description: z.string().describe("The element, e.g. 'the \"Promo code\" field'") },
  },
  handler: (context: ToolContext) => (input: { description: string }) =>
    answering(async () => {
      const { driver, ai } = context.session.current();
      const { description } = input;
      context.prepareModel();
      const { result, entry } = await context.session.withEntry(() => ai.find(driver, description));
      context.session.record({ tool: "find", args: { description } });
      const element = elementOf(result);
      return jsonAnswer({
        outcome: entry?.outcome,
        aiCalls: entry?.aiCalls,
        selectors: {
          tapshot: { using: "-tapshot", value: description },
          ...(typeof element.selector === "string" ? { driver: element.selector } : {}),
        },
        ...(element.pointOnly ? { pointOnly: true, point: element.point } : {}),
        ...entryFields(entry),
      });
    }),
};

/** The element of a platform entry's `find` (the element itself) or a platform API's (`{ element }`). */
function elementOf(result: unknown): { selector?: unknown; pointOnly?: boolean; point?: unknown } {
  const found = result as { element?: object; outcome?: string };
  const element = found.outcome && found.element ? found.element : (result as object);
  return element as { selector?: unknown; pointOnly?: boolean; point?: unknown };
}
