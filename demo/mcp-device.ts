/**
 * The demo device for `tapshot mcp --demo demo/mcp-device.ts`: the emulated iPhone 15 that `npm run demo`
 * drives (Debian's Chromium through a real Appium 3 server, the demo shop on it), opened on the shop's
 * sign-in page or another of its screens. Tests written by the server's `write_test` open it again.
 */
import type { McpDevice } from "tapshot/mcp";
import { iphone15 } from "../rig/profiles.js";
import { rigTarget, startRig } from "../rig/session.js";

const SCREENS = ["login", "cart", "checkout", "confirmation"] as const;
type DemoScreen = (typeof SCREENS)[number];

/** Start the rig and open the shop's `screen` (default `login`) with fixed content (seed 1). */
export async function openDevice(options: { screen?: string } = {}): Promise<McpDevice> {
  const screen = (options.screen ?? "login") as DemoScreen;
  if (!SCREENS.includes(screen)) {
    throw new Error(
      `The demo device opens one of the shop's screens ${SCREENS.join(", ")}; got ${JSON.stringify(options.screen)}.`,
    );
  }
  const rig = await startRig();
  try {
    const session = await rig.session(iphone15);
    await session.open(screen, { seed: 1 });
    return { driver: session.driver, ai: session.ai, config: { target: rigTarget }, close: () => rig.stop() };
  } catch (error) {
    await rig.stop();
    throw error;
  }
}
