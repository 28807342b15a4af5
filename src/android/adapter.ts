/**
 * The Android device adapter (docs/design.md section 2) for Appium UiAutomator2 and Espresso
 * sessions. Android taps are in pixels, so the scale is usually 1.
 */
import { appiumAdapter } from "../appium/index.js";
import { describeAndroid } from "./describe.js";
import { withScrollGesture } from "./scroll-gesture.js";

export const androidAdapter = withScrollGesture(
  appiumAdapter(
    {
      platform: "android",
      entry: "tapshot/android",
      automationNames: ["uiautomator2", "espresso"],
      driverLabel: "UiAutomator2 or Espresso",
      // appium-uiautomator2-driver lib/driver.ts: only CHROME_NO_PROXY routes (/context, /execute) stay native.
      inWebContext:
        "the driver sends screenshots, the window size and taps to chromedriver (the web view only, in CSS pixels), " +
        "while mobile: commands and the system bars stay native",
    },
    describeAndroid,
  ),
);
