/**
 * A multiremote wdio run with tapshot's service: two emulated phones of the rig in one session,
 * each its own device (adapter and target chosen per instance from what it asked for).
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TapshotService } from "tapshot/wdio";
import { freePort } from "../../rig/ports.js";
import { capabilitiesFor, iphone15, iphoneSE, type PhoneProfile } from "../../rig/profiles.js";
import { rigAdapter } from "../../rig/rig-adapter.js";

const appium = new URL(process.env.APPIUM_URL ?? "http://127.0.0.1:4723");
const scratch = process.env.EXAMPLE_TMP_DIR ?? tmpdir();
const PHONES: Record<string, PhoneProfile> = { iphone15, iphoneSE };

async function instance(profile: PhoneProfile) {
  return {
    hostname: appium.hostname,
    port: Number(appium.port),
    path: "/",
    capabilities: capabilitiesFor(profile, {
      chromedriverPort: await freePort(),
      userDataDir: mkdtempSync(join(scratch, "tapshot-multiremote-chromium-")),
    }),
  };
}

/** The profile an instance was opened with, by the emulated viewport it asked for. */
function profileOf(driver: WebdriverIO.Browser): PhoneProfile {
  type Asked = { "goog:chromeOptions"?: { mobileEmulation?: { deviceMetrics?: { width?: number } } } };
  const asked = (driver.requestedCapabilities ??
    (driver.options as { capabilities?: unknown } | undefined)?.capabilities) as Asked | undefined;
  const width = asked?.["goog:chromeOptions"]?.mobileEmulation?.deviceMetrics?.width;
  const profile = Object.values(PHONES).find((p) => p.width === width);
  if (!profile) throw new Error(`no rig profile has a ${width} px wide viewport`);
  return profile;
}

const adapters = new Map(Object.values(PHONES).map((p) => [p, rigAdapter(p)]));

export const config: WebdriverIO.Config = {
  runner: "local",
  // Set here as well as per instance, or the launcher downloads a chromedriver for "chrome".
  hostname: appium.hostname,
  port: Number(appium.port),
  path: "/",
  specs: ["./specs/multiremote.e2e.ts"],
  // Multiremote: named instances (WDIO's type for capabilities lists only the one-session form).
  capabilities: {
    iphone15: await instance(iphone15),
    iphoneSE: await instance(iphoneSE),
  } as unknown as WebdriverIO.Config["capabilities"],
  baseUrl: process.env.SHOP_URL,
  framework: "mocha",
  mochaOpts: { timeout: 120_000 },
  reporters: ["dot"],
  services: [
    [
      TapshotService,
      {
        adapter: (driver: WebdriverIO.Browser) => adapters.get(profileOf(driver))!,
        target: (driver: WebdriverIO.Browser) => profileOf(driver).target,
      },
    ],
  ],
  logLevel: "warn",
  connectionRetryCount: 0,
  connectionRetryTimeout: 90_000,
};
