/* The server's tools, in the order a client lists them. */
import { actTool } from "./act.js";
import { elementsTool } from "./elements.js";
import { endSessionTool } from "./end-session.js";
import { findTool } from "./find.js";
import { matchScreenshotTool } from "./match-screenshot.js";
import { satisfyTool } from "./satisfy.js";
import { screenshotTool } from "./screenshot.js";
import { startSessionTool } from "./start-session.js";
import { tapTool } from "./tap.js";
import { writeTestTool } from "./write-test.js";

export const TOOLS = [
  startSessionTool,
  screenshotTool,
  elementsTool,
  tapTool,
  findTool,
  actTool,
  satisfyTool,
  matchScreenshotTool,
  writeTestTool,
  endSessionTool,
] as const;
