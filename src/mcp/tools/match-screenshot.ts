/* `match_screenshot`: expect(driver).toMatchScreenshot(name, prompt), a baseline per device. */
import { z } from "zod";
import { answering, entryFields, jsonAnswer } from "./answer.js";
import type { ToolContext } from "./context.js";

export const matchScreenshotTool = {
  name: "match_screenshot",
  config: {
    description:
      "Compare the screen with its stored baseline (expect(driver).toMatchScreenshot): the first run stores one, " +
      "judged by the model against the prompt; later runs compare pixels with no model.",
    inputSchema: {
      name: z.string().describe("The baseline's name: [a-z0-9._-], e.g. cart-page"),
      prompt: z.string().describe("What the screen should show; name varying content so it is masked"),
    },
  },
  handler: (context: ToolContext) => (input: { name: string; prompt: string }) =>
    answering(async () => {
      const { driver, ai } = context.session.current();
      const { name, prompt } = input;
      context.prepareModel();
      const { result, entry } = await context.session.withEntry(() =>
        ai.expect(driver).toMatchScreenshot(name, prompt),
      );
      context.session.record({ tool: "match_screenshot", args: { name, prompt } });
      return jsonAnswer({ ...result, ...entryFields(entry) });
    }),
};
