/* `satisfy`: expect(driver).toSatisfy(statement), judged once per distinct snapshot. */
import { z } from "zod";
import { answering, entryFields, jsonAnswer } from "./answer.js";
import type { ToolContext } from "./context.js";

export const satisfyTool = {
  name: "satisfy",
  config: {
    description:
      "Assert a statement about the screen (expect(driver).toSatisfy): the model judges its text and accessibility " +
      "tree once per distinct snapshot; later runs that see the same snapshot reuse the judgment.",
    inputSchema: { statement: z.string().describe('e.g. "the cart holds 2 items"') },
  },
  handler: (context: ToolContext) => (input: { statement: string }) =>
    answering(async () => {
      const { driver, ai } = context.session.current();
      const { statement } = input;
      context.prepareModel();
      const { result, entry } = await context.session.withEntry(() => ai.expect(driver).toSatisfy(statement));
      context.session.record({ tool: "satisfy", args: { statement } });
      return jsonAnswer({ ...result, ...entryFields(entry) });
    }),
};
