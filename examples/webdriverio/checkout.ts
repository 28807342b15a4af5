/**
 * tapshot in a plain WebdriverIO script, no test runner: open a session with `remote()`, add
 * `aiTap` and `aiMatchScreenshot`, check the cart, tap "Checkout", check the order summary.
 * Everything about your device comes from the environment: `APPIUM_URL` (default
 * http://127.0.0.1:4723), `APPIUM_CAPABILITIES` as JSON (default: the Android device adb sees,
 * through UiAutomator2) and, for a web app, `START_URL`. A failed check throws, so the script
 * exits non-zero.
 */
import { remote } from "webdriverio";
import { gemini } from "tapshot/providers";
import { configureAi } from "tapshot/runner";
import { addAiCommands } from "tapshot/wdio";

const appium = new URL(process.env.APPIUM_URL || "http://127.0.0.1:4723");
const capabilities = JSON.parse(
  process.env.APPIUM_CAPABILITIES || '{ "platformName": "Android", "appium:automationName": "UiAutomator2" }',
) as WebdriverIO.Capabilities;

// gemini() reads GEMINI_API_KEY at its first model request; with TAPSHOT_MODE=replay (CI) none is made.
configureAi({ channel: gemini() });
const browser = await remote({
  protocol: appium.protocol === "https:" ? "https" : "http",
  hostname: appium.hostname,
  port: Number(appium.port || (appium.protocol === "https:" ? 443 : 80)),
  path: appium.pathname,
  capabilities,
  logLevel: "warn",
});
try {
  // tapshot drives the session as Android or iOS by its platformName.
  addAiCommands(browser);
  if (process.env.START_URL) await browser.url(process.env.START_URL);

  const cart = await browser.aiMatchScreenshot("cart", 'the cart with 2 items, a "Total" and a "Checkout" button');
  console.log(`cart: ${cart.outcome}`);
  const tap = await browser.aiTap('the "Checkout" button', { verify: 'the "Order summary" is shown' });
  console.log(`the "Checkout" button: ${tap.outcome}`);
  const summary = await browser.aiMatchScreenshot(
    "order-summary",
    'the "Order summary" with the items and a "Place order" button',
  );
  console.log(`order-summary: ${summary.outcome}`);
} finally {
  await browser.deleteSession();
}
