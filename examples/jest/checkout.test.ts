/**
 * Jest with tapshot's matcher and commands on a plain `remote()` session. Everything about your
 * device comes from the environment: `APPIUM_URL` (default http://127.0.0.1:4723),
 * `APPIUM_CAPABILITIES` as JSON (default: the Android device adb sees, through UiAutomator2) and,
 * for a web app, `START_URL`.
 */
import { remote } from "webdriverio";
import { gemini } from "tapshot/providers";
import { configureAi } from "tapshot/runner";
import { addAiCommands, aiMatchers } from "tapshot/wdio";

expect.extend(aiMatchers());

const appium = new URL(process.env.APPIUM_URL || "http://127.0.0.1:4723");
const capabilities = JSON.parse(
  process.env.APPIUM_CAPABILITIES || '{ "platformName": "Android", "appium:automationName": "UiAutomator2" }',
) as WebdriverIO.Capabilities;

let browser: WebdriverIO.Browser;

beforeAll(async () => {
  // gemini() reads GEMINI_API_KEY at its first model request; with TAPSHOT_MODE=replay (CI) none is made.
  configureAi({ channel: gemini() });
  browser = await remote({
    protocol: appium.protocol === "https:" ? "https" : "http",
    hostname: appium.hostname,
    port: Number(appium.port || (appium.protocol === "https:" ? 443 : 80)),
    path: appium.pathname,
    capabilities,
    logLevel: "warn",
  });
  // tapshot drives the session as Android or iOS by its platformName.
  addAiCommands(browser);
  if (process.env.START_URL) await browser.url(process.env.START_URL);
});

afterAll(async () => {
  await browser?.deleteSession();
});

test("cart", async () => {
  // No name given: the baseline is named after the test, "cart".
  await expect(browser).toMatchAiScreenshot('the cart with 2 items, a "Total" and a "Checkout" button');
});

test("checkout", async () => {
  const tap = await browser.aiTap('the "Checkout" button', { verify: 'the "Order summary" is shown' });
  console.log(`the tap was ${tap.outcome}`);
  await expect(browser).toMatchAiScreenshot(
    "order-summary",
    'the "Order summary" with the items and a "Place order" button',
  );
});
