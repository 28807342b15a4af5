/**
 * A WebdriverIO + Mocha run with tapshot's service, on the repository's demo shop: an emulated
 * iPhone 15 in Chromium under Appium (CONTRIBUTING.md, "The test rig"). On a real device, keep the
 * `services` line and put your own Appium capabilities in `capabilities` (then drop `adapter` and
 * `target`: tapshot reads the device, and a farm's device name from the returned capabilities).
 *
 * Needs an Appium server (`APPIUM_URL`, default http://127.0.0.1:4723) and the demo shop
 * (`SHOP_URL`, e.g. from `npx tsx demo/app/serve.ts 8080`).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gemini } from "tapshot/providers";
import { TapshotService } from "tapshot/wdio";
import { freePort } from "../../rig/ports.js";
import { capabilitiesFor, iphone15 } from "../../rig/profiles.js";
import { rigAdapter } from "../../rig/rig-adapter.js";

const appium = new URL(process.env.APPIUM_URL ?? "http://127.0.0.1:4723");
const scratch = process.env.EXAMPLE_TMP_DIR ?? tmpdir();

export const config: WebdriverIO.Config = {
  runner: "local",
  hostname: appium.hostname,
  port: Number(appium.port),
  path: "/",
  specs: ["./specs/**/*.e2e.ts"],
  maxInstances: 1,
  capabilities: [
    capabilitiesFor(iphone15, {
      chromedriverPort: await freePort(),
      userDataDir: mkdtempSync(join(scratch, "tapshot-example-chromium-")),
    }),
  ],
  // Each worker's session gets its own chromedriver port and browser profile (the rig's rule).
  async beforeSession(_config, capabilities) {
    Object.assign(
      capabilities,
      capabilitiesFor(iphone15, {
        chromedriverPort: await freePort(),
        userDataDir: mkdtempSync(join(scratch, "tapshot-example-chromium-")),
      }),
    );
  },
  baseUrl: process.env.SHOP_URL ?? "http://127.0.0.1:8080",
  framework: "mocha",
  mochaOpts: { timeout: 120_000 },
  reporters: [
    "dot",
    [
      "allure",
      {
        outputDir: process.env.ALLURE_RESULTS_DIR ?? "allure-results",
        // tapshot attaches the images that matter (expected, actual, diff) itself.
        disableWebdriverStepsReporting: true,
        disableWebdriverScreenshotsReporting: true,
      },
    ],
  ],
  // gemini() reads GEMINI_API_KEY at its first model request: with CI set (mode replay) no key is needed.
  services: [[TapshotService, { channel: gemini(), adapter: rigAdapter(iphone15), target: iphone15.target }]],
  logLevel: "warn",
  connectionRetryCount: 0,
  connectionRetryTimeout: 90_000,
};
