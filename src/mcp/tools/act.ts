/* `act`: ai.act with values read from the server's environment, never sent through the chat. */
import { z } from "zod";
import { answering, entryFields, jsonAnswer } from "./answer.js";
import type { ToolContext } from "./context.js";

const ValueReference = z.object({ env: z.string() }).strict();

export const actTool = {
  name: "act",
  config: {
    description:
      "Reach a goal with the screen's controls (ai.act): the model chooses the steps once per device model and OS; " +
      'later runs replay them. Values are bound to environment variables on the server: { "password": { "env": ' +
      '"SHOP_PASSWORD" } }; their text never appears in a result. Say "the password", never the value, in the goal.',
    inputSchema: {
      goal: z.string().describe('e.g. "sign in with the email and the password"'),
      values: z.record(z.string(), ValueReference).optional().describe("Value names bound to environment variables"),
    },
  },
  handler: (context: ToolContext) => (input: { goal: string; values?: Record<string, { env: string }> }) =>
    answering(async () => {
      const { driver, ai } = context.session.current();
      const { goal, values } = input;
      context.prepareModel();
      const { result, entry } = await context.session.withEntry(() => ai.act(driver, goal, values ? { values } : {}));
      context.session.record({ tool: "act", args: { goal, ...(values ? { values } : {}) } });
      return jsonAnswer({ ...result, ...entryFields(entry) });
    }),
};
