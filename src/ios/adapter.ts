/**
 * The iOS device adapter (docs/design.md section 2) for Appium XCUITest sessions.
 * WebDriverAgent taps are in points: a point in screenshot pixels is divided by the scale.
 */
import { appiumAdapter } from "../appium/index.js";
import { describeIos } from "./describe.js";

export const iosAdapter = appiumAdapter(
  {
    platform: "ios",
    entry: "tapshot/ios",
    automationNames: ["xcuitest"],
    driverLabel: "XCUITest",
    // appium-xcuitest-driver lib/commands/screenshots.ts getScreenshot, lib/commands/gesture.ts.
    inWebContext:
      "screenshots come from the web view when the webScreenshotMode setting is page or viewport, and " +
      "actions run in the web page",
  },
  describeIos,
);
