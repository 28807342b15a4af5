/**
 * The iOS device adapter (DESIGN.md section 3) for Appium XCUITest sessions.
 * WebDriverAgent taps are in points: a point in screenshot pixels is divided by the scale.
 */
import { appiumAdapter } from "../core/adapter-kit.js";
import { describeIos } from "./describe.js";

export const iosAdapter = appiumAdapter(
  { platform: "ios", entry: "tapshot/ios", automationNames: ["xcuitest"], driverLabel: "XCUITest" },
  describeIos,
);
