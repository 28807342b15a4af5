/**
 * The plugin's session over an Appium driver object, for the native drivers this repository
 * cannot run: an object shaped like an appium-uiautomator2-driver instance, whose own methods
 * answer from the Android driver double (tests/support/appium-driver-double.ts, shapes and
 * sources there) and whose routing is UiAutomator2's:
 * - `proxyActive()` is always true (appium-uiautomator2-driver lib/driver.ts `proxyActive`);
 * - its NO_PROXY list (same file) keeps GET /screenshot, GET /window/rect, POST and DELETE
 *   /actions, POST /execute/sync and GET /context on the driver; GET /source is proxied;
 * - `proxyRouteIsAvoided` matches that list against the URL without the base path, as
 *   @appium/base-driver's basedriver/core.js does.
 * The end-to-end path through a real server (Chromium, all proxied) is tests/plugin/plugin.test.ts.
 * Through the plugin class as Appium calls it: one AI budget per session, and a re-sent failed command.
 */
import { androidAdapter } from "../../src/android/adapter.js";
import { DeviceError } from "../../src/core/ground/errors.js";
import { sessionOf, type AppiumDriver } from "../../src/plugin/driver-session.js";
import { AppiumDriverDouble, uiautomator2Script, PIXEL_7 } from "../support/appium-driver-double.js";
import { engineSessions } from "../support/engine-sessions.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resetConfig, setConfig } from "../../src/core/config/config.js";
import { resetClaims } from "../../src/core/run/budget.js";
import { TAP_SCRIPT, TapshotPlugin } from "../../src/plugin/plugin.js";
import { SCRIPTED_MODEL, ScriptedChannel } from "../support/scripted-channel.js";

const NO_PROXY: [string, RegExp][] = [
  ["DELETE", /^\/session\/[^/]+\/actions/],
  ["GET", /^\/session\/[^/]+\/context/],
  ["GET", /^\/session\/[^/]+\/screenshot/],
  ["GET", /^\/session\/[^/]+\/window\/rect/],
  ["POST", /^\/session\/[^/]+\/actions/],
  ["POST", /^\/session\/[^/]+\/execute\/sync/],
];

/** A UiAutomator2-shaped driver object over the double; `proxied` lists what went to the server. */
function uiautomator2Driver(double: AppiumDriverDouble, sessionId = "appium-session-1") {
  const proxied: string[] = [];
  const driver = {
    sessionId,
    basePath: "",
    // What the driver keeps: the requested capabilities, not the device details it adds to its answer.
    caps: { platformName: "Android", automationName: "UiAutomator2", deviceName: "Pixel 7" },
    opts: { udid: PIXEL_7.udid },
    proxyActive: () => true,
    proxyRouteIsAvoided: (_id: string, method: string, url: string) =>
      NO_PROXY.some(([m, path]) => m === method && path.test(url)),
    async proxyCommand(url: string, method: string) {
      proxied.push(`${method} ${url}`);
      if (method === "GET" && url === `/session/${sessionId}/source`) return double.getPageSource();
      throw new Error(`the UiAutomator2 server double serves no ${method} ${url}`);
    },
    getScreenshot: () => double.takeScreenshot(),
    getWindowRect: () => double.getWindowRect(),
    performActions: (actions: object[]) => double.performActions(actions),
    releaseActions: () => double.releaseActions(),
    execute: (script: string) => double.execute(script),
    getCurrentContext: () => double.getAppiumContext(),
  } satisfies AppiumDriver;
  return { driver, proxied };
}

test("the Android adapter describes a UiAutomator2 session through the driver object as through WebdriverIO", async () => {
  const script = uiautomator2Script();
  const viaWdio = await engineSessions(androidAdapter).describe(new AppiumDriverDouble(script), () => {});
  const double = new AppiumDriverDouble(script);
  const { driver, proxied } = uiautomator2Driver(double);
  const viaPlugin = await engineSessions(androidAdapter).describe(sessionOf(driver), () => {});
  expect(viaPlugin).toEqual(viaWdio);
  // The driver kept no deviceModel: the model came from mobile: deviceInfo, a driver method, not the proxy.
  expect(double.count("execute mobile: deviceInfo")).toBe(1);
  expect(proxied).toEqual([]);
});

test("a tap goes to the driver's own performActions; the page source goes through its proxy", async () => {
  const double = new AppiumDriverDouble(uiautomator2Script());
  const { driver, proxied } = uiautomator2Driver(double);
  const session = sessionOf(driver);
  expect(sessionOf(driver)).toBe(session); // one session object per driver object, as the engine keys devices

  const opened = androidAdapter.open(session);
  await opened.describe(() => {});
  await opened.tap({ x: 540, y: 1200 });
  expect(double.actions).toHaveLength(1);
  expect(await opened.pageSource!()).toContain("hierarchy");
  expect(proxied).toEqual(["GET /session/appium-session-1/source"]);
  expect(double.count("getAppiumContext")).toBeGreaterThan(0);
});

test("the device serial the driver chose is a capability, unless the session asked for one", () => {
  const double = new AppiumDriverDouble(uiautomator2Script());
  const { driver } = uiautomator2Driver(double);
  expect(sessionOf(driver).capabilities).toMatchObject({ udid: PIXEL_7.udid, deviceName: "Pixel 7" });
  const asked = { ...driver, caps: { ...driver.caps, udid: "emulator-5556" } };
  expect(sessionOf(asked).capabilities).toMatchObject({ udid: "emulator-5556" });
});

test("a route the driver neither proxies nor serves is a DeviceError naming it", async () => {
  const driver: AppiumDriver = { sessionId: "s", caps: { platformName: "Android" } };
  await expect(sessionOf(driver).takeScreenshot()).rejects.toThrow(
    new DeviceError(
      "This Appium driver neither proxies GET /screenshot nor has a getScreenshot method, which tapshot needs; " +
        "update the driver, or check that it is a UiAutomator2, Espresso, XCUITest or Chromium driver.",
    ),
  );
  const ended: AppiumDriver = { sessionId: null };
  await expect(sessionOf(ended).getWindowRect()).rejects.toThrow(/The Appium session has ended/);
});

describe("through the plugin class, as Appium calls it", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "tapshot-plugin-class-"));
  });
  afterEach(async () => {
    resetConfig();
    resetClaims();
    await rm(root, { recursive: true, force: true });
  });

  /** The server's configuration with a scripted model that finds a box in the middle of the screen. */
  function configure(maxAiCalls: number) {
    const channel = new ScriptedChannel({
      locate: () => ({
        found: true,
        box: { x: 400, y: 1100, width: 280, height: 200 },
        reason: "scripted",
        model: SCRIPTED_MODEL,
      }),
    });
    setConfig({
      channel,
      storageDir: join(root, "storage"),
      resultsDir: join(root, "results"),
      log: false,
      maxAiCalls,
    });
    return channel;
  }

  const next = async () => {
    throw new Error("the plugin answers its own scripts");
  };
  const tap = (plugin: TapshotPlugin, driver: AppiumDriver, prompt: string) =>
    plugin.execute(next, driver, TAP_SCRIPT, [{ prompt, timeout: 5000 }]).catch((e: unknown) => e);

  test("each Appium session has its own maxAiCalls budget", async () => {
    const channel = configure(1);
    const plugin = new TapshotPlugin("tapshot", {});
    const first = uiautomator2Driver(new AppiumDriverDouble(uiautomator2Script()), "session-a").driver;
    const second = uiautomator2Driver(new AppiumDriverDouble(uiautomator2Script()), "session-b").driver;
    expect(await tap(plugin, first, "the checkout button")).toMatchObject({ outcome: "learned" });
    // A second session on the same server: its own budget, not what is left of the first's.
    expect(await tap(plugin, second, "the cart icon")).toMatchObject({ outcome: "learned" });
    const spent = await tap(plugin, first, "the header");
    expect(spent).toMatchObject({ error: "unknown error" });
    expect((spent as Error).message).toMatch(/AI budget is spent: maxAiCalls is 1 .*counted for this device session/);
    expect(channel.count()).toBe(2);
  });

  test("a re-sent copy of a failed command gets the same error and does not run again", async () => {
    const channel = configure(0);
    const plugin = new TapshotPlugin("tapshot", {});
    const double = new AppiumDriverDouble(uiautomator2Script());
    const { driver } = uiautomator2Driver(double, "session-c");
    const failed = await tap(plugin, driver, "the checkout button");
    expect(failed).toMatchObject({ error: "unknown error" });
    const screenshots = double.count("takeScreenshot");
    expect(screenshots).toBeGreaterThan(0);
    // WebdriverIO's 3 re-sends of the same command: answered from memory, the device untouched.
    for (let n = 0; n < 3; n++) expect(await tap(plugin, driver, "the checkout button")).toBe(failed);
    expect(double.count("takeScreenshot")).toBe(screenshots);
    // Another command runs.
    expect(await tap(plugin, driver, "the header")).toMatchObject({ error: "unknown error" });
    expect(double.count("takeScreenshot")).toBeGreaterThan(screenshots);
    expect(channel.count()).toBe(0);
  });
});
