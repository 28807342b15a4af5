/* `start_session`: the demo device, or any Appium server's session; a second call ends the first. */
import { z } from "zod";
import { InputError } from "../../errors.js";
import { loadDeviceModule, openAppiumDevice, type McpDevice } from "../device.js";
import type { StartArguments } from "../session.js";
import { answering, jsonAnswer } from "./answer.js";
import type { ToolContext } from "./context.js";

export const startSessionTool = {
  name: "start_session",
  config: {
    description:
      "Open the device the flow runs on: { demo: true } for the embedded demo device (an emulated phone in " +
      "Chromium through a real Appium server), or { appiumUrl, capabilities } for any Appium server. A second " +
      "start_session ends the first.",
    inputSchema: {
      demo: z.boolean().optional().describe("true: the demo device"),
      screen: z.string().optional().describe('The demo shop\'s first screen: "login" (default) or "cart"'),
      appiumUrl: z.string().optional().describe('e.g. "http://127.0.0.1:4723"'),
      capabilities: z.record(z.string(), z.unknown()).optional().describe("W3C capabilities, appium: prefixed"),
    },
  },
  handler: (context: ToolContext) => (input: Record<string, unknown>) =>
    answering(async () => {
      const args = startArguments(input);
      const device = await context.session.begin(args, () => open(context, args));
      if ("demo" in args) return jsonAnswer({ started: true, demo: true });
      const caps = (device.driver.capabilities ?? {}) as Record<string, unknown>;
      return jsonAnswer({ started: true, platformName: caps.platformName, sessionId: device.driver.sessionId });
    }),
};

function startArguments(input: Record<string, unknown>): StartArguments {
  const { demo, screen, appiumUrl, capabilities } = input as {
    demo?: boolean;
    screen?: string;
    appiumUrl?: string;
    capabilities?: Record<string, unknown>;
  };
  if (demo && appiumUrl === undefined && capabilities === undefined)
    return { demo: true, ...(screen ? { screen } : {}) };
  if (!demo && appiumUrl !== undefined && capabilities !== undefined && screen === undefined) {
    return { appiumUrl, capabilities };
  }
  throw new InputError(
    "start_session takes either { demo: true } (with an optional screen) or { appiumUrl, capabilities }, not both " +
      'and not neither: e.g. { "appiumUrl": "http://127.0.0.1:4723", "capabilities": { "platformName": "Android", ' +
      '"appium:automationName": "UiAutomator2" } }.',
  );
}

async function open({ settings }: ToolContext, args: StartArguments): Promise<McpDevice> {
  if (!("demo" in args)) return openAppiumDevice(args);
  if (!settings.demoModule) {
    throw new InputError(
      "This server has no demo device: start it with --demo <module> (in tapshot's repository: " +
        "npx tapshot mcp --demo demo/mcp-device.ts), or pass { appiumUrl, capabilities }.",
    );
  }
  const module = await loadDeviceModule(settings.demoModule, settings.cwd);
  return module.openDevice(args.screen ? { screen: args.screen } : {});
}
