/**
 * The Android device adapter (docs/design.md section 2) for Appium UiAutomator2 and Espresso
 * sessions. Android taps are in pixels, so the scale is usually 1.
 */
import { appiumAdapter } from "../core/adapter-kit.js";
import { describeAndroid } from "./describe.js";

export const androidAdapter = appiumAdapter(
  {
    platform: "android",
    entry: "tapshot/android",
    automationNames: ["uiautomator2", "espresso"],
    driverLabel: "UiAutomator2 or Espresso",
  },
  describeAndroid,
);
