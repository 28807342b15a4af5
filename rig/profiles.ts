/**
 * The rig's emulated phones (Chromium `mobileEmulation.deviceMetrics`) and the Appium
 * capabilities that open a session on one of them.
 */
import { execFileSync } from "node:child_process";
import type { Platform, Target } from "tapshot/adapter";

/** One emulated phone: its CSS viewport, pixel ratio, system bars and the identity the run's target gives it. */
export interface PhoneProfile {
  /** Short id, used in logs and as the session cache key. */
  readonly id: string;
  readonly platform: Platform;
  /** Viewport in CSS pixels (the tap units on the rig). */
  readonly width: number;
  readonly height: number;
  /** Screenshot pixels per CSS pixel. */
  readonly pixelRatio: number;
  /**
   * System bars in CSS pixels. The demo app draws them (status bar with a clock, navigation bar /
   * home indicator) when the session opens its pages, and the rig adapter reports them as insets.
   */
  readonly bars: { readonly top: number; readonly bottom: number };
  /** The device identity, supplied through `configureAi({ target })` (see `rigTarget` in session.ts). */
  readonly target: Required<Target>;
}

/** Android-like: Google Pixel 7, 412x915 CSS px at 2.625 (screenshots 1082x2402). */
export const pixel7: PhoneProfile = {
  id: "pixel-7",
  platform: "android",
  width: 412,
  height: 915,
  pixelRatio: 2.625,
  bars: { top: 24, bottom: 16 },
  target: { platform: "android", model: "Google Pixel 7", osVersion: "14" },
};

/** A second Android size: Samsung Galaxy S23, 360x780 CSS px at 3 (screenshots 1080x2340). */
export const galaxyS23: PhoneProfile = {
  id: "galaxy-s23",
  platform: "android",
  width: 360,
  height: 780,
  pixelRatio: 3,
  bars: { top: 24, bottom: 16 },
  target: { platform: "android", model: "Samsung Galaxy S23", osVersion: "14" },
};

/** iOS-like: iPhone 15, 393x852 points at 3 (screenshots 1179x2556). */
export const iphone15: PhoneProfile = {
  id: "iphone-15",
  platform: "ios",
  width: 393,
  height: 852,
  pixelRatio: 3,
  bars: { top: 47, bottom: 34 },
  target: { platform: "ios", model: "iPhone 15", osVersion: "17.5" },
};

/** A second iOS size: iPhone SE (3rd generation), 375x667 points at 2 (screenshots 750x1334). */
export const iphoneSE: PhoneProfile = {
  id: "iphone-se",
  platform: "ios",
  width: 375,
  height: 667,
  pixelRatio: 2,
  bars: { top: 20, bottom: 0 },
  target: { platform: "ios", model: "iPhone SE (3rd generation)", osVersion: "17.5" },
};

/** Every profile, by id. */
export const PROFILES: Readonly<Record<string, PhoneProfile>> = Object.fromEntries(
  [pixel7, galaxyS23, iphone15, iphoneSE].map((p) => [p.id, p]),
);

/** The screenshot size a profile gives, in pixels. */
export function screenshotSize(profile: PhoneProfile): { width: number; height: number } {
  return {
    width: Math.round(profile.width * profile.pixelRatio),
    height: Math.round(profile.height * profile.pixelRatio),
  };
}

/** Paths of Debian's chromium and chromedriver. */
export interface BrowserPaths {
  chromium: string;
  chromedriver: string;
}

let browserPaths: BrowserPaths | undefined;

/** Find Debian's chromium and chromedriver on PATH (`TAPSHOT_CHROMIUM` / `TAPSHOT_CHROMEDRIVER` override). */
export function findBrowser(): BrowserPaths {
  if (browserPaths) return browserPaths;
  const chromium = process.env.TAPSHOT_CHROMIUM || which("chromium") || which("chromium-browser");
  const chromedriver = process.env.TAPSHOT_CHROMEDRIVER || which("chromedriver");
  if (!chromium || !chromedriver) {
    const missing = [!chromium && "chromium", !chromedriver && "chromedriver"].filter(Boolean).join(" and ");
    throw new Error(
      `The Appium rig needs Debian's chromium and chromium-driver, but ${missing} is not on PATH. ` +
        `Run \`bash scripts/setup.sh\` as root (or \`sudo apt-get install -y chromium chromium-driver\`), ` +
        `or point TAPSHOT_CHROMIUM / TAPSHOT_CHROMEDRIVER at the binaries.`,
    );
  }
  browserPaths = { chromium, chromedriver };
  return browserPaths;
}

function which(command: string): string | undefined {
  try {
    return (
      execFileSync("which", [command], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim() || undefined
    );
  } catch {
    return undefined;
  }
}

/** Headless flags for a quiet, reproducible Chromium (CONTRIBUTING.md, "The rig"). */
export const CHROMIUM_ARGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
  "--disable-dev-shm-usage",
  "--hide-scrollbars",
  "--font-render-hinting=none",
];

/** What one session needs beyond the profile: its own chromedriver port and browser profile folder. */
export interface SessionResources {
  /** A free port for this session's chromedriver (the driver's default 9515 would collide across sessions). */
  chromedriverPort: number;
  /** A fresh, empty `--user-data-dir`. */
  userDataDir: string;
}

/** Appium capabilities for a Chromium session emulating `profile`. */
export function capabilitiesFor(profile: PhoneProfile, resources: SessionResources): WebdriverIO.Capabilities {
  const { chromium, chromedriver } = findBrowser();
  return {
    platformName: "linux",
    browserName: "chrome",
    "appium:automationName": "Chromium",
    "appium:executable": chromedriver,
    "appium:chromedriverPort": resources.chromedriverPort,
    "appium:autodownloadEnabled": false,
    "appium:newCommandTimeout": 300,
    // Plain WebDriver: no BiDi websocket, which the rig does not need and which slows every session down.
    "wdio:enforceWebDriverClassic": true,
    "goog:chromeOptions": {
      binary: chromium,
      args: [...CHROMIUM_ARGS, `--user-data-dir=${resources.userDataDir}`],
      mobileEmulation: {
        deviceMetrics: { width: profile.width, height: profile.height, pixelRatio: profile.pixelRatio, touch: true },
      },
    },
  } as WebdriverIO.Capabilities;
}
