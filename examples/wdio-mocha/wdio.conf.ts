/**
 * A WebdriverIO + Mocha run with tapshot's service. Everything about your device comes from the
 * environment, so this file runs unchanged on your phone, an emulator or a device farm:
 *
 * - `APPIUM_URL`: your Appium server (default http://127.0.0.1:4723).
 * - `APPIUM_CAPABILITIES`: the session's capabilities as JSON (default: the Android device adb
 *   sees, through UiAutomator2). Add `appium:app` or `appium:appPackage` to start your app.
 * - `START_URL`: for a web app, the page the specs open first (optional).
 */
import { gemini } from "tapshot/providers";
import { TapshotService } from "tapshot/wdio";

const appium = new URL(process.env.APPIUM_URL || "http://127.0.0.1:4723");
const capabilities = JSON.parse(
  process.env.APPIUM_CAPABILITIES || '{ "platformName": "Android", "appium:automationName": "UiAutomator2" }',
) as WebdriverIO.Capabilities;

export const config: WebdriverIO.Config = {
  runner: "local",
  protocol: appium.protocol === "https:" ? "https" : "http",
  hostname: appium.hostname,
  port: Number(appium.port || (appium.protocol === "https:" ? 443 : 80)),
  path: appium.pathname,
  specs: ["./specs/**/*.e2e.ts"],
  maxInstances: 1,
  capabilities: [capabilities],
  framework: "mocha",
  mochaOpts: { timeout: 120_000 },
  reporters: [
    "dot",
    [
      "allure",
      {
        outputDir: process.env.ALLURE_RESULTS_DIR || "allure-results",
        // tapshot attaches the images that matter (expected, actual, diff) itself.
        disableWebdriverStepsReporting: true,
        disableWebdriverScreenshotsReporting: true,
      },
    ],
  ],
  // gemini() reads GEMINI_API_KEY at its first model request. With CI set the service replays what
  // storage/_ai_/ holds and asks no model, so CI needs no key.
  services: [[TapshotService, { channel: gemini() }]],
  logLevel: "warn",
  connectionRetryCount: 0,
  connectionRetryTimeout: 120_000,
};
