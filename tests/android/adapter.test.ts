/**
 * Contract tests of the Android adapter against a driver double that answers like
 * appium-uiautomator2-driver (shapes and their sources: tests/support/appium-driver-double.ts).
 */
import type { Browser } from "webdriverio";
import { androidAdapter } from "../../src/android/adapter.js";
import type { AppiumSession } from "../../src/appium/index.js";
import { applyTarget, type DeviceDescription } from "../../src/core/device/description.js";
import { DeviceError } from "../../src/core/ground/errors.js";
import {
  AppiumDriverDouble,
  espressoScript,
  uiautomator2Script,
  w3cError,
  xcuitestScript,
  type DoubleScript,
} from "../support/appium-driver-double.js";
import { engineSessions } from "../support/engine-sessions.js";

const android = engineSessions(androidAdapter);

// A WebdriverIO Browser is what the adapters take: this line fails to compile if the session type drifts from it.
export const browserIsASession: (browser: Browser) => AppiumSession = (browser) => browser;

async function describe_(script: DoubleScript) {
  const driver = new AppiumDriverDouble(script);
  const notes: string[] = [];
  const device = await android.describe(driver, (m) => notes.push(m));
  return { driver, device, notes };
}

function lastTap(driver: AppiumDriverDouble) {
  const payload = driver.actions.at(-1) as [{ actions: [{ x: number; y: number }] }];
  return { x: payload[0].actions[0].x, y: payload[0].actions[0].y };
}

describe("android identity", () => {
  test("a Pixel 7 is described from mobile: deviceInfo and the screenshot", async () => {
    const { device, driver } = await describe_(uiautomator2Script());
    expect(device).toEqual<DeviceDescription>({
      platform: "android",
      model: "Google Pixel 7",
      osVersion: "14",
      screen: { width: 1080, height: 2400 },
      scale: 1,
      insets: { top: 118, bottom: 63, left: 0, right: 0 },
      orientation: "portrait",
    });
    expect(driver.count("takeScreenshot")).toBe(1);
    expect(driver.count("execute mobile: deviceInfo")).toBe(1);
  });

  test("the maker is not repeated when the model already names it", async () => {
    const samsung = await describe_(uiautomator2Script({ manufacturer: "samsung", model: "SM-S911B" }));
    expect(samsung.device.model).toBe("samsung SM-S911B");
    const oneplus = await describe_(uiautomator2Script({ manufacturer: "OnePlus", model: "OnePlus 9" }));
    expect(oneplus.device.model).toBe("OnePlus 9");
  });

  test("a window that leaves out the navigation bar keeps scale 1 and is noted", async () => {
    const { device, notes } = await describe_(uiautomator2Script({ server: "legacy" }));
    expect(device.scale).toBe(1);
    expect(notes.join("\n")).toMatch(/1080x2337 against a 1080x2400 screenshot.*leaves out a system bar/);
  });

  test("a full-screen window gives no notes", async () => {
    const { notes } = await describe_(uiautomator2Script({ server: "androidx" }));
    expect(notes).toEqual([]);
  });

  test("the run's target overrides what the device says", async () => {
    const { device } = await describe_(uiautomator2Script());
    const target = applyTarget(device, { model: "Pixel 7 (farm 12)", osVersion: "14 QPR3" });
    expect(target).toMatchObject({ model: "Pixel 7 (farm 12)", osVersion: "14 QPR3", platform: "android" });
    expect(target.screen).toEqual(device.screen);
  });
});

describe("android scale and taps", () => {
  test("the exact W3C action payload of a tap, then releaseActions", async () => {
    const { device, driver } = await describe_(uiautomator2Script());
    await android.tap(driver, { x: 540.4, y: 1199.6 }, device);
    expect(driver.actions).toEqual([
      [
        {
          type: "pointer",
          id: "finger1",
          parameters: { pointerType: "touch" },
          actions: [
            { type: "pointerMove", duration: 0, origin: "viewport", x: 540, y: 1200 },
            { type: "pointerDown", button: 0 },
            { type: "pause", duration: 50 },
            { type: "pointerUp", button: 0 },
          ],
        },
      ],
    ]);
    expect(driver.calls.slice(-2)).toEqual(["performActions", "releaseActions"]);
  });

  test("a window smaller than the screenshot (display scaling) divides taps by the scale", async () => {
    const { device, driver, notes } = await describe_(uiautomator2Script({ windowDownscale: 1.5, server: "androidx" }));
    expect(device.scale).toBe(1.5);
    expect(device.screen).toEqual({ width: 1080, height: 2400 });
    expect(notes.join("\n")).toMatch(/taps are scaled by 1\/1.5/);
    await android.tap(driver, { x: 540, y: 1200 }, device);
    expect(lastTap(driver)).toEqual({ x: 360, y: 800 });
  });

  test("taps are clamped into the window the driver reports", async () => {
    const { device, driver } = await describe_(uiautomator2Script({ server: "legacy" }));
    await android.tap(driver, { x: 1200, y: 2390 }, device);
    expect(lastTap(driver)).toEqual({ x: 1079, y: 2336 });
    await android.tap(driver, { x: -4, y: -1 }, device);
    expect(lastTap(driver)).toEqual({ x: 0, y: 0 });
  });

  test("a failing tap is a DeviceError", async () => {
    const { device, driver } = await describe_(uiautomator2Script());
    driver.performActions = async () => {
      throw w3cError("invalid argument", "Coordinate [x=1.0, y=2.0] is outside of element rect");
    };
    await expect(android.tap(driver, { x: 1, y: 2 }, device)).rejects.toThrow(/tap at \(1, 2\) failed: Coordinate/);
  });
});

describe("android landscape", () => {
  test("geometry and the navigation bar follow the orientation", async () => {
    const { device, driver } = await describe_(uiautomator2Script({ orientation: "landscape", navigationBar: 126 }));
    expect(device).toMatchObject({
      screen: { width: 2400, height: 1080 },
      orientation: "landscape",
      scale: 1,
      insets: { top: 118, bottom: 0, left: 0, right: 126 },
    });
    // Current servers report the whole display as the window (tests/support/appium-driver-double.ts `server`).
    await android.tap(driver, { x: 2399, y: 1079 }, device);
    expect(lastTap(driver)).toEqual({ x: 2399, y: 1079 });
  });

  test("a display size reported in the natural orientation is turned, not noted", async () => {
    const script = uiautomator2Script({ orientation: "landscape" });
    (script.mobile["mobile: deviceInfo"] as Record<string, unknown>).realDisplaySize = "1080x2400";
    const { notes } = await describe_(script);
    expect(notes.join("\n")).not.toMatch(/android display/);
  });
});

describe("android fallbacks", () => {
  test("without mobile: deviceInfo and getSystemBars on a pre-2024 server: capabilities and the window fill in", async () => {
    const script = uiautomator2Script({ server: "legacy" });
    delete script.mobile["mobile: deviceInfo"];
    script.mobile["mobile: getSystemBars"] = w3cError(
      "unknown error",
      "Cannot retrieve system bars details. Original error: adb: device offline",
    );
    const { device, notes } = await describe_(script);
    expect(device).toMatchObject({
      model: "Google Pixel 7",
      osVersion: "14",
      insets: { top: 118, bottom: 63, left: 0, right: 0 },
    });
    const text = notes.join("\n");
    expect(text).toMatch(/android model: mobile: deviceInfo failed \(Unsupported execute method 'mobile: deviceInfo'/);
    expect(text).toMatch(/used capabilities deviceManufacturer \+ deviceModel/);
    expect(text).toMatch(
      /android status bar: mobile: getSystemBars failed \(Cannot retrieve system bars.*used capability statBarHeight/,
    );
    expect(text).toMatch(/android navigation bar: .*used the window's size against the screenshot's/);
  });

  test("on a current server the window is the whole display: without getSystemBars a gesture bar is estimated", async () => {
    const script = uiautomator2Script({ server: "androidx" });
    script.mobile["mobile: getSystemBars"] = w3cError("unknown error", "Cannot retrieve system bars details");
    const { device, notes } = await describe_(script);
    // 24dp at 420 dpi is 63 px: the Pixel 7's gesture bar; the old 48dp estimate gave 126.
    expect(device.insets).toEqual({ top: 118, bottom: 63, left: 0, right: 0 });
    const text = notes.join("\n");
    expect(text).toMatch(/the window's size against the screenshot's had none; used an estimate/);
    expect(text).toMatch(/estimated 24dp \(63px\), a gesture navigation bar, the default since Android 10/);
  });

  test("before Android 10 the estimate is a 3-button bar, on the right in landscape", async () => {
    const script = uiautomator2Script({ apiVersion: "28", platformVersion: "9", orientation: "landscape" });
    script.mobile["mobile: getSystemBars"] = w3cError("unknown error", "Cannot retrieve system bars details");
    const { device, notes } = await describe_(script);
    expect(device.insets).toMatchObject({ right: 126, bottom: 0 });
    expect(notes.join("\n")).toMatch(/estimated 48dp \(126px\), a 3-button navigation bar \(API level 28\)/);
  });

  test("with no bar sources at all, the bars are estimated from the density", async () => {
    const script = uiautomator2Script({ server: "androidx" });
    script.mobile["mobile: getSystemBars"] = w3cError("unknown error", "adb: not found");
    delete script.mobile["mobile: viewportRect"];
    delete script.capabilities.statBarHeight;
    delete script.capabilities.viewportRect;
    const { device, notes } = await describe_(script);
    // 24dp status bar and 24dp gesture bar at 420 dpi (2.625 px per dp).
    expect(device.insets).toEqual({ top: 63, bottom: 63, left: 0, right: 0 });
    expect(notes.join("\n")).toMatch(
      /used an estimate of 24dp[\s\S]*estimated 24dp \(63px\), a gesture navigation bar/,
    );
  });

  test("a session that answers almost nothing still describes, names what is missing, and suggests a target", async () => {
    const script: DoubleScript = {
      platform: "android",
      driverName: "EspressoDriver",
      capabilities: { platformName: "Android", "appium:automationName": "Espresso" },
      screenshot: { width: 720, height: 1280 },
      windowRect: w3cError("unknown error", "An unknown server-side error occurred"),
      mobile: {},
    };
    const { device, notes } = await describe_(script);
    expect(device).toEqual({
      platform: "android",
      model: "Unknown Android device",
      osVersion: "unknown",
      screen: { width: 720, height: 1280 },
      scale: 1,
      insets: { top: 0, bottom: 0, left: 0, right: 0 },
      orientation: "portrait",
    });
    const text = notes.join("\n");
    expect(text).toMatch(/configureAi\(\{ target: \{ model \} \}\)/);
    expect(text).toMatch(
      /android window: getWindowRect failed \(An unknown server-side error occurred\); assumed taps/,
    );
    expect(text).toMatch(/assumed no status bar/);
  });

  test("a real device's deviceName (the adb serial) is not used as the model; a note asks for a target", async () => {
    const script = uiautomator2Script();
    delete script.mobile["mobile: deviceInfo"];
    delete script.capabilities.deviceModel;
    const { device, notes } = await describe_(script);
    expect(device.model).toBe("Unknown Android device");
    expect(notes.join("\n")).toMatch(
      /did not name its model \(deviceName is the adb serial, not a model\); set configureAi/,
    );
  });

  test("a device that reports another display size than its screenshots is noted", async () => {
    const script = uiautomator2Script();
    (script.mobile["mobile: deviceInfo"] as Record<string, unknown>).realDisplaySize = "1440x3200";
    const { device, notes } = await describe_(script);
    expect(device.screen).toEqual({ width: 1080, height: 2400 });
    expect(notes.join("\n")).toMatch(/reports 1440x3200 but screenshots are 1080x2400/);
  });
});

describe("android sessions", () => {
  test("an XCUITest session is refused with a clear error", () => {
    const driver = new AppiumDriverDouble(xcuitestScript());
    expect(() => android.assertDriver(driver)).toThrow(DeviceError);
    expect(() => android.assertDriver(driver)).toThrow(/platformName is "iOS".*Use tapshot\/ios/);
  });

  test("an object that is not a session names what it lacks", () => {
    expect(() => android.assertDriver({ capabilities: {} })).toThrow(
      /needs a WebdriverIO Browser connected to an Appium UiAutomator2 or Espresso session; this object has no sessionId, execute/,
    );
    expect(() => android.assertDriver(undefined)).toThrow(/got undefined/);
  });

  test("an Android session of another Appium driver is refused", () => {
    const script = uiautomator2Script();
    script.capabilities.automationName = "Flutter";
    expect(() => android.assertDriver(new AppiumDriverDouble(script))).toThrow(/automationName is "Flutter"/);
  });

  test("a screenshot that is not a PNG is a DeviceError", async () => {
    const script = uiautomator2Script();
    script.screenshotBase64 = Buffer.from("not an image").toString("base64");
    await expect(android.screenshot(new AppiumDriverDouble(script))).rejects.toThrow(/not a PNG/);
  });
});

describe("android rotation", () => {
  test("a new describe after rotating gives landscape geometry and tap bounds", async () => {
    const driver = new AppiumDriverDouble(uiautomator2Script());
    const portrait = await android.describe(driver, () => undefined);
    driver.script = uiautomator2Script({ orientation: "landscape", navigationBar: 126 });
    const landscape = await android.describe(driver, () => undefined);
    expect([portrait.orientation, landscape.orientation]).toEqual(["portrait", "landscape"]);
    expect(landscape.insets.right).toBe(126);
    await android.tap(driver, { x: 2399, y: 1079 }, landscape);
    expect(lastTap(driver)).toEqual({ x: 2399, y: 1079 });
  });
});

describe("android web contexts", () => {
  // In a WEBVIEW/CHROMIUM context UiAutomator2 proxies /screenshot, /window/rect and /actions to
  // chromedriver (appium-uiautomator2-driver lib/driver.ts CHROME_NO_PROXY): tapshot refuses it.
  test("a session in a web view fails before any screenshot, naming how to switch to NATIVE_APP", async () => {
    const script = uiautomator2Script();
    script.context = "WEBVIEW_com.example.shop";
    const driver = new AppiumDriverDouble(script);
    const error = await android.describe(driver, () => undefined).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeviceError);
    expect((error as Error).message).toMatch(
      /in the "WEBVIEW_com.example.shop" context, where the driver sends screenshots, the window size and taps to chromedriver.*await driver.switchContext\("NATIVE_APP"\).*switchContext\("WEBVIEW_com.example.shop"\)/,
    );
    expect(driver.count("takeScreenshot")).toBe(0);
  });

  test("a switch to a web context after describing is caught before the tap is sent", async () => {
    const driver = new AppiumDriverDouble(uiautomator2Script());
    const device = await android.describe(driver, () => undefined);
    driver.script.context = "CHROMIUM";
    await expect(android.tap(driver, { x: 10, y: 10 }, device)).rejects.toThrow(/"CHROMIUM" context/);
    expect(driver.count("performActions")).toBe(0);
    driver.script.context = "NATIVE_APP";
    await android.tap(driver, { x: 10, y: 10 }, device);
    expect(driver.count("performActions")).toBe(1);
  });

  test("the page source is read in the native context and refused in a web one, where it would be the page's HTML", async () => {
    const script = uiautomator2Script();
    script.pageSource =
      '<hierarchy rotation="0"><node resource-id="com.shop:id/checkout" bounds="[0,0][10,10]"/></hierarchy>';
    const driver = new AppiumDriverDouble(script);
    await android.describe(driver, () => undefined);
    await expect(android.pageSource(driver)).resolves.toBe(script.pageSource);
    driver.script.context = "WEBVIEW_com.example.shop";
    await expect(android.pageSource(driver)).rejects.toThrow(
      /the session is in the "WEBVIEW_com.example.shop" context, whose page source is the web page's HTML/,
    );
    expect(driver.count("getPageSource")).toBe(1);
  });
});

describe("espresso bounds", () => {
  // espresso-server PointerDispatch.kt: pointer moves outside the app's displayMetrics fail with
  // "move target out of bounds" (the double's actionBounds); getWindowRect is the whole display on API 30+.
  test("a point inside the app's window is tapped as usual", async () => {
    const { device, driver, notes } = await describe_(espressoScript());
    expect(notes.join("\n")).toMatch(/android espresso: taps only inside the app's 1080x2337 window/);
    await android.tap(driver, { x: 540, y: 2336 }, device);
    expect(lastTap(driver)).toEqual({ x: 540, y: 2336 });
  });

  test("a stored point on the navigation bar fails clearly instead of being sent or moved onto the app", async () => {
    const { device, driver } = await describe_(espressoScript());
    await expect(android.tap(driver, { x: 540, y: 2380 }, device)).rejects.toThrow(
      /tap at \(540, 2380\) lies outside the app's window \(1080x2337 at 0,0\).*Espresso taps only inside the app under test/,
    );
    expect(driver.count("performActions")).toBe(0);
  });

  test("a refusal the bounds did not foresee still says what it means", async () => {
    const script = espressoScript();
    script.mobile["mobile: getSystemBars"] = w3cError("unknown error", "adb: not found");
    script.actionBounds = { x: 0, y: 0, width: 1080, height: 2200 };
    const { device, driver } = await describe_(script);
    const error = await android.tap(driver, { x: 540, y: 2300 }, device).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeviceError);
    expect((error as Error).message).toMatch(
      /failed: The move action target \(540, 2300\) is out of bounds.*accepts taps only inside the app under test's window/,
    );
  });
});

describe("android immersive apps", () => {
  // appium-android-driver lib/commands/system-bars.ts takes `visible` from the StatusBar window's view
  // visibility, which stays VISIBLE when a full-screen app hides the bar (the double's `immersive`).
  test("a status bar reported visible but not drawn is not masked, and the note says the screenshot won", async () => {
    const { device, notes } = await describe_(uiautomator2Script({ immersive: true }));
    expect(device.insets).toEqual({ top: 0, bottom: 63, left: 0, right: 0 });
    expect(notes.join("\n")).toMatch(
      /android status bar: mobile: getSystemBars reports it visible, but the screenshot's top 118px are one colour.*used the screenshot/,
    );
  });

  test("a drawn status bar (a clock in it) is masked as getSystemBars reports it", async () => {
    const { device, notes } = await describe_(uiautomator2Script({ immersive: false }));
    expect(device.insets.top).toBe(118);
    expect(notes.join("\n")).not.toMatch(/one colour/);
  });
});
