/* `tap`: ai.tap, learned once per device and replayed after. */
import { z } from "zod";
import { answering, entryFields, jsonAnswer } from "./answer.js";
import type { ToolContext } from "./context.js";

export const tapTool = {
  name: "tap",
  config: {
    description:
      "Tap the element a prompt describes (ai.tap). Learned by the model once per device model and OS, then " +
      "replayed from storage with no model call. Quote the element's text: 'the \"Checkout\" button'.",
    inputSchema: {
      prompt: z.string().describe("What to tap"),
      verify: z.string().optional().describe("A statement the model checks after a fresh tap"),
      autoHeal: z
        .boolean()
        .optional()
        .describe("Let the model find the element again when the stored crop no longer matches"),
    },
  },
  handler: (context: ToolContext) => (input: { prompt: string; verify?: string; autoHeal?: boolean }) =>
    answering(async () => {
      const { driver, ai } = context.session.current();
      const { prompt, verify, autoHeal } = input;
      const options = { ...(verify !== undefined ? { verify } : {}), ...(autoHeal !== undefined ? { autoHeal } : {}) };
      context.prepareModel();
      const { result, entry } = await context.session.withEntry(() => ai.tap(driver, prompt, options));
      context.session.record({ tool: "tap", args: { prompt, ...options } });
      return jsonAnswer({
        outcome: result.outcome,
        aiCalls: result.aiCalls,
        point: result.point,
        ...entryFields(entry),
      });
    }),
};
