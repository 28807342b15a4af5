/* `end_session`: close the device; the session's steps stay written only if write_test wrote them. */
import { answering, jsonAnswer } from "./answer.js";
import type { ToolContext } from "./context.js";

export const endSessionTool = {
  name: "end_session",
  config: { description: "End the session: its device session is deleted.", inputSchema: {} },
  handler: (context: ToolContext) => () => answering(async () => jsonAnswer({ ended: await context.session.end() })),
};
