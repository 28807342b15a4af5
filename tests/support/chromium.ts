/**
 * A headless Debian Chromium for the tests of tapshot's own pages (the report, the review page),
 * driven through chromedriver by WebdriverIO. Everything it writes stays in `profile`.
 */
import { execFileSync } from "node:child_process";
import path from "node:path";
import { remote } from "webdriverio";

/** The path of an installed binary, or an error saying how to install it. */
export function which(binary: string): string {
  try {
    return execFileSync("which", [binary], { encoding: "utf8" }).trim();
  } catch {
    throw new Error(
      `${binary} is not installed: run "bash scripts/setup.sh" (installs Debian's chromium and chromium-driver).`,
    );
  }
}

/** A browser session with its cache and user data under `profile` (nothing is downloaded). */
export function openChromium(profile: string): Promise<WebdriverIO.Browser> {
  return remote({
    logLevel: "warn",
    cacheDir: path.join(profile, "cache"),
    capabilities: {
      browserName: "chrome",
      "goog:chromeOptions": {
        binary: which("chromium"),
        args: [
          "--headless=new",
          "--no-sandbox",
          "--disable-gpu",
          "--disable-background-networking",
          "--disable-component-update",
          "--disable-sync",
          "--no-first-run",
          "--window-size=1280,900",
          `--user-data-dir=${path.join(profile, "user-data")}`,
        ],
      },
      "wdio:chromedriverOptions": { binary: which("chromedriver") },
    },
  });
}
