/* `screenshot`: the screen as one PNG image content. */
import { answering } from "./answer.js";
import type { ToolContext } from "./context.js";

export const screenshotTool = {
  name: "screenshot",
  config: { description: "The device's screen now, as a PNG image.", inputSchema: {} },
  handler: (context: ToolContext) => () =>
    answering(async () => {
      const { driver } = context.session.current();
      const data = await driver.takeScreenshot();
      return { content: [{ type: "image", data, mimeType: "image/png" }] };
    }),
};
