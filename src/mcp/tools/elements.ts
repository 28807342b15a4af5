/* `elements`: the screen's visible, labelled controls, compact (kind, text, id, bounds). */
import { answering } from "./answer.js";
import type { ToolContext } from "./context.js";

export const elementsTool = {
  name: "elements",
  config: {
    description:
      "The screen's visible, labelled controls from its page source, as a JSON list of { kind, text, id, bounds }: " +
      "what tap, find and act prompts can name (quote a control's text: 'the \"Checkout\" button').",
    inputSchema: {},
  },
  handler: (context: ToolContext) => () =>
    answering(async () => {
      const { driver, ai } = context.session.current();
      const controls = await ai.controls(driver);
      const compact = controls.map(({ kind, text, id, bounds, checked }) => ({
        kind,
        text,
        ...(id ? { id } : {}),
        bounds: [bounds.x, bounds.y, bounds.width, bounds.height],
        ...(checked !== undefined ? { checked } : {}),
      }));
      return { content: [{ type: "text", text: JSON.stringify(compact) }] };
    }),
};
