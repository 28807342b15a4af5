/**
 * Contract tests of the iOS adapter against a driver double that answers like
 * appium-xcuitest-driver / WebDriverAgent (shapes and their sources: tests/support/appium-driver-double.ts).
 */
import { iosAdapter } from "../../src/ios/adapter.js";
import { applyTarget, type DeviceDescription } from "../../src/core/device/description.js";
import { DeviceError } from "../../src/core/ground/errors.js";
import {
  AppiumDriverDouble,
  uiautomator2Script,
  w3cError,
  xcuitestScript,
  type DoubleScript,
} from "../support/appium-driver-double.js";
import { engineSessions } from "../support/engine-sessions.js";

const ios = engineSessions(iosAdapter);

async function describe_(script: DoubleScript) {
  const driver = new AppiumDriverDouble(script);
  const notes: string[] = [];
  const device = await ios.describe(driver, (m) => notes.push(m));
  return { driver, device, notes };
}

function lastTap(driver: AppiumDriverDouble) {
  const payload = driver.actions.at(-1) as [{ actions: [{ x: number; y: number }] }];
  return { x: payload[0].actions[0].x, y: payload[0].actions[0].y };
}

const SE_2: Parameters<typeof xcuitestScript>[0] = {
  name: "Team SE",
  platformVersion: "16.7",
  widthPt: 375,
  heightPt: 667,
  scale: 2,
  statusBarPt: 20,
  realDevice: { productType: "iPhone12,8", productVersion: "16.7.2", deviceName: "Team SE", hardwareModel: "D79AP" },
};

describe("ios identity and insets", () => {
  test("an iPhone 15 Pro simulator (3x, Dynamic Island)", async () => {
    const { device, notes } = await describe_(xcuitestScript());
    expect(device).toEqual<DeviceDescription>({
      platform: "ios",
      model: "iPhone 15 Pro",
      osVersion: "17.5",
      screen: { width: 1179, height: 2556 },
      scale: 3,
      // 54 pt status bar; 34 pt home indicator strip.
      insets: { top: 162, bottom: 102, left: 0, right: 0 },
      orientation: "portrait",
    });
    expect(notes).toEqual([]);
  });

  test("a real iPhone SE (2x, home button) is named from its product type, with the lockdown OS version", async () => {
    const { device } = await describe_(xcuitestScript(SE_2));
    expect(device).toMatchObject({
      model: "iPhone SE (2nd generation)",
      osVersion: "16.7.2",
      screen: { width: 750, height: 1334 },
      scale: 2,
      insets: { top: 40, bottom: 0, left: 0, right: 0 },
    });
  });

  test("a 1x iPad with a home button", async () => {
    const { device } = await describe_(
      xcuitestScript({
        name: "iPad 2",
        kind: "iPad",
        platformVersion: "9.3",
        widthPt: 768,
        heightPt: 1024,
        scale: 1,
        statusBarPt: 20,
      }),
    );
    expect(device).toMatchObject({ scale: 1, screen: { width: 768, height: 1024 }, insets: { top: 20, bottom: 0 } });
  });

  test("a 4:3 iPad without a home button is told by its taller status bar", async () => {
    const { device } = await describe_(
      xcuitestScript({
        name: "iPad Pro (12.9-inch) (6th generation)",
        kind: "iPad",
        widthPt: 1024,
        heightPt: 1366,
        scale: 2,
        statusBarPt: 24,
      }),
    );
    expect(device.insets).toEqual({ top: 48, bottom: 40, left: 0, right: 0 });
  });

  test("a generic model name is kept but noted, and the run's target replaces it", async () => {
    const script = xcuitestScript();
    script.capabilities.deviceName = "iPhone";
    const { device, notes } = await describe_(script);
    expect(device.model).toBe("iPhone");
    expect(notes.join("\n")).toMatch(/"iPhone" does not say which model.*configureAi\(\{ target: \{ model \} \}\)/);
    expect(applyTarget(device, { model: "iPhone 15 Pro", osVersion: "17.5.1" })).toMatchObject({
      model: "iPhone 15 Pro",
      osVersion: "17.5.1",
      scale: 3,
    });
  });
});

describe("ios scale and taps", () => {
  test("the exact W3C action payload of a tap, in points", async () => {
    const { device, driver } = await describe_(xcuitestScript());
    await ios.tap(driver, { x: 600, y: 1500.4 }, device);
    expect(driver.actions).toEqual([
      [
        {
          type: "pointer",
          id: "finger1",
          parameters: { pointerType: "touch" },
          actions: [
            { type: "pointerMove", duration: 0, origin: "viewport", x: 200, y: 500 },
            { type: "pointerDown", button: 0 },
            { type: "pause", duration: 50 },
            { type: "pointerUp", button: 0 },
          ],
        },
      ],
    ]);
    expect(driver.calls.slice(-2)).toEqual(["performActions", "releaseActions"]);
  });

  test("taps are clamped into the screen in points", async () => {
    const { device, driver } = await describe_(xcuitestScript());
    await ios.tap(driver, { x: 5000, y: -20 }, device);
    expect(lastTap(driver)).toEqual({ x: 392, y: 0 });
  });

  test("an app window smaller than the screen does not skew the scale or the Y of taps", async () => {
    // An app not built for this screen size: WDA's /window/rect is the app frame, 375x812 pt.
    const { device, driver, notes } = await describe_(
      xcuitestScript({ appWindow: { x: 0, y: 0, width: 375, height: 812 } }),
    );
    expect(device.scale).toBe(3);
    expect(notes.join("\n")).toMatch(
      /the app's window is 375x812 pt at 0,0, the screen 393x852 pt; taps use screen points/,
    );
    await ios.tap(driver, { x: 1170, y: 2550 }, device);
    expect(lastTap(driver)).toEqual({ x: 390, y: 850 });
  });

  test("older WDA without screenSize: the window gives the scale when it agrees with the reported scale", async () => {
    const { device, notes } = await describe_(xcuitestScript({ legacyScreenInfo: true }));
    expect(device.scale).toBe(3);
    expect(notes.join("\n")).toMatch(
      /ios scale: screenshot \/ mobile: deviceScreenInfo screenSize had none; used screenshot \/ window width/,
    );
  });

  test("older WDA and a smaller app window: the reported scale wins over the window", async () => {
    const { device, notes } = await describe_(
      xcuitestScript({ legacyScreenInfo: true, appWindow: { x: 0, y: 0, width: 375, height: 812 } }),
    );
    expect(device.scale).toBe(3);
    expect(notes.join("\n")).toMatch(
      /window width failed \(the app's window \(375x812 pt at 0,0\) is not the whole screen.*used the reported screen scale/,
    );
  });

  test("without mobile: deviceScreenInfo the window gives the scale and the status bar is estimated", async () => {
    const script = xcuitestScript();
    delete script.mobile["mobile: deviceScreenInfo"];
    const { device, notes } = await describe_(script);
    expect(device.scale).toBe(3);
    expect(device.insets).toEqual({ top: 162, bottom: 102, left: 0, right: 0 });
    const text = notes.join("\n");
    expect(text).toMatch(/ios screen scale: mobile: deviceScreenInfo scale failed \(Unsupported execute method/);
    expect(text).toMatch(/ios status bar: .*used the model table \(src\/ios\/models.ts\)/);
  });

  test("pixelRatio and statBarHeight session capabilities are not read: XCUITest 5 and later never send them", async () => {
    // appium-xcuitest-driver commit 047a4f0 (version 5): getSession no longer returns statBarHeight or pixelRatio.
    // Stale values a runner passes along must not stand in for the device's own readings.
    const script = xcuitestScript();
    delete script.mobile["mobile: deviceScreenInfo"];
    Object.assign(script.capabilities, { pixelRatio: 2, statBarHeight: 20 });
    const { device, notes } = await describe_(script);
    expect(device.scale).toBe(3);
    expect(device.insets.top).toBe(162);
    expect(notes.join("\n")).not.toMatch(/capability (pixelRatio|statBarHeight)/);
  });

  test("a screen scale the screenshots contradict is noted and the screenshots win", async () => {
    const script = xcuitestScript();
    (script.mobile["mobile: deviceScreenInfo"] as Record<string, unknown>).scale = 2;
    const { device, notes } = await describe_(script);
    expect(device.scale).toBe(3);
    expect(notes.join("\n")).toMatch(/screenshots have 3 px per point, the device reports scale 2/);
  });
});

describe("ios landscape", () => {
  test("geometry, the hidden status bar and the home indicator follow the orientation", async () => {
    const { device, driver } = await describe_(xcuitestScript({ orientation: "landscape" }));
    expect(device).toMatchObject({
      screen: { width: 2556, height: 1179 },
      orientation: "landscape",
      scale: 3,
      // iPhones hide the status bar in landscape; the home indicator strip is 21 pt.
      insets: { top: 0, bottom: 63, left: 0, right: 0 },
    });
    await ios.tap(driver, { x: 2555, y: 1178 }, device);
    expect(lastTap(driver)).toEqual({ x: 851, y: 392 });
  });

  test("a window rect in portrait dimensions is turned to the screenshot", async () => {
    const script = xcuitestScript({ orientation: "landscape", legacyScreenInfo: true });
    script.windowRect = { x: 0, y: 0, width: 393, height: 852 };
    const { device } = await describe_(script);
    expect(device.scale).toBe(3);
  });
});

describe("ios fallbacks and sessions", () => {
  test("without mobile: deviceInfo, capabilities name the device", async () => {
    const script = xcuitestScript();
    script.mobile["mobile: deviceInfo"] = w3cError("unknown error", "Could not proxy command to the remote server");
    const { device, notes } = await describe_(script);
    expect(device).toMatchObject({ model: "iPhone 15 Pro", osVersion: "17.5", scale: 3 });
    expect(notes.join("\n")).toMatch(/ios model: mobile: deviceInfo lockdownInfo.ProductType failed \(Could not proxy/);
  });

  test("a UiAutomator2 session is refused with a clear error", () => {
    const driver = new AppiumDriverDouble(uiautomator2Script());
    expect(() => ios.assertDriver(driver)).toThrow(DeviceError);
    expect(() => ios.assertDriver(driver)).toThrow(/Appium XCUITest session; this session's platformName is "Android"/);
  });

  test("a browser session that is not Appium iOS is refused", () => {
    const script = xcuitestScript();
    script.capabilities = { browserName: "chrome", "appium:automationName": "Chromium", platformName: "linux" };
    expect(() => ios.assertDriver(new AppiumDriverDouble({ ...script, platform: "android" }))).toThrow(
      /platformName is "linux"/,
    );
  });
});

describe("ios rotation", () => {
  // appium-xcuitest-driver memoizes getScreenInfo per session (lib/driver.ts MEMOIZED_FUNCTIONS), so
  // `mobile: deviceScreenInfo` keeps answering what it read first, in the orientation of that moment.
  test("after rotating to landscape, a memoized portrait status bar is not used as the top inset", async () => {
    const driver = new AppiumDriverDouble(xcuitestScript());
    await ios.describe(driver, () => undefined);
    const memoized = driver.script.mobile["mobile: deviceScreenInfo"];
    driver.script = xcuitestScript({ orientation: "landscape" });
    driver.script.mobile["mobile: deviceScreenInfo"] = memoized;
    const notes: string[] = [];
    const landscape = await ios.describe(driver, (m) => notes.push(m));
    expect(landscape).toMatchObject({ orientation: "landscape", scale: 3, insets: { top: 0, bottom: 63 } });
    await ios.tap(driver, { x: 2555, y: 1178 }, landscape);
    expect(lastTap(driver)).toEqual({ x: 851, y: 392 });
  });

  test("a session that started in landscape estimates the portrait status bar, with a note", async () => {
    const script = xcuitestScript();
    script.mobile["mobile: deviceScreenInfo"] = xcuitestScript({ orientation: "landscape" }).mobile[
      "mobile: deviceScreenInfo"
    ];
    const { device, notes } = await describe_(script);
    expect(device.insets).toEqual({ top: 162, bottom: 102, left: 0, right: 0 });
    expect(notes.join("\n")).toMatch(
      /ios status bar: mobile: deviceScreenInfo statusBarSize failed \(it was read in landscape/,
    );
  });
});

describe("ios web contexts", () => {
  // appium-xcuitest-driver lib/commands/screenshots.ts: in a web context with webScreenshotMode page or
  // viewport the screenshot is the web view's; actions run in the page (lib/commands/gesture.ts).
  test("a session in a web view fails with how to switch to NATIVE_APP", async () => {
    const script = xcuitestScript();
    script.context = "WEBVIEW_1234.1";
    await expect(describe_(script)).rejects.toThrow(
      /tapshot\/ios works in the native context; this session is in the "WEBVIEW_1234.1" context.*webScreenshotMode.*switchContext\("NATIVE_APP"\)/,
    );
  });

  test("a switch to a web context is caught before the tap", async () => {
    const { device, driver } = await describe_(xcuitestScript());
    driver.script.context = "WEBVIEW_1234.1";
    await expect(ios.tap(driver, { x: 30, y: 30 }, device)).rejects.toThrow(DeviceError);
    expect(driver.count("performActions")).toBe(0);
  });
});

describe("ios app window origin", () => {
  // WebDriverAgent measures action coordinates from the active app's frame; /window/rect reports that
  // frame with its origin (WebDriverAgentLib/Commands/FBElementCommands.m handleGetWindowRect).
  const SPLIT: Parameters<typeof xcuitestScript>[0] = {
    name: "iPad Pro 11-inch (M4)",
    kind: "iPad",
    widthPt: 834,
    heightPt: 1210,
    scale: 2,
    statusBarPt: 24,
    orientation: "landscape",
    // The app on the right half of a landscape iPad in Split View.
    appWindow: { x: 605, y: 0, width: 605, height: 834 },
  };

  test("in Split View taps are sent from the app window's origin", async () => {
    const { device, driver, notes } = await describe_(xcuitestScript(SPLIT));
    expect(device.screen).toEqual({ width: 2420, height: 1668 });
    expect(notes.join("\n")).toMatch(/app's window is 605x834 pt at 605,0 .*taps are sent from the window's origin/);
    // Screen point (900, 400) is (295, 400) in the app's frame.
    await ios.tap(driver, { x: 1800, y: 800 }, device);
    expect(lastTap(driver)).toEqual({ x: 295, y: 400 });
  });

  test("a point outside the app's window is refused with a clear error, not sent", async () => {
    const { device, driver } = await describe_(xcuitestScript(SPLIT));
    await expect(ios.tap(driver, { x: 400, y: 800 }, device)).rejects.toThrow(
      /tap at \(200, 400\) lies outside the app's window \(605x834 at 605,0\).*Split View/,
    );
    expect(driver.count("performActions")).toBe(0);
  });

  test("a Slide Over window with a vertical offset", async () => {
    const { device, driver } = await describe_(
      xcuitestScript({ ...SPLIT, appWindow: { x: 850, y: 40, width: 320, height: 760 } }),
    );
    await ios.tap(driver, { x: 2000, y: 1000 }, device);
    expect(lastTap(driver)).toEqual({ x: 150, y: 460 });
  });
});

describe("ios status bar read while hidden", () => {
  // appium-xcuitest-driver memoizes getScreenInfo per session (lib/driver.ts MEMOIZED_FUNCTIONS): a first
  // reading taken on a splash screen or a video has a 0x0 statusBarSize for the whole session.
  function hiddenAtFirstRead(profile: Parameters<typeof xcuitestScript>[0]): DoubleScript {
    const script = xcuitestScript(profile);
    (script.mobile["mobile: deviceScreenInfo"] as Record<string, unknown>).statusBarSize = { width: 0, height: 0 };
    script.capabilities.statBarHeight = 0;
    return script;
  }

  test.each<[string, Parameters<typeof xcuitestScript>[0], number]>([
    ["iPhone 13 (47 pt)", { name: "iPhone 13", widthPt: 390, heightPt: 844, statusBarPt: 47 }, 141],
    ["iPhone 16 Pro (62 pt)", { name: "iPhone 16 Pro", widthPt: 402, heightPt: 874, statusBarPt: 62 }, 186],
    ["iPhone 11 Pro (44 pt)", { name: "iPhone 11 Pro", widthPt: 375, heightPt: 812, statusBarPt: 44 }, 132],
  ])("a zero inset in portrait on an %s is re-derived from the model table", async (_name, profile, top) => {
    const { device, notes } = await describe_(hiddenAtFirstRead(profile));
    expect(device.insets.top).toBe(top);
    expect(notes.join("\n")).toMatch(
      /ios status bar: mobile: deviceScreenInfo statusBarSize failed \(its height is 0 in portrait, where this device shows a status bar.*used the model table/,
    );
  });

  test("a model the table lacks gets the estimate, noted", async () => {
    const { device, notes } = await describe_(
      hiddenAtFirstRead({ name: "iPhone 1[45].*", widthPt: 393, heightPt: 852, statusBarPt: 54 }),
    );
    expect(device.insets.top).toBe(162);
    expect(notes.join("\n")).toMatch(/ios status bar: .*estimated from the screen shape/);
  });

  test("an iPad without a home button is estimated at 24 pt, not an iPhone's 54", async () => {
    const { device } = await describe_(
      hiddenAtFirstRead({
        name: "iPad Pro 11-inch (M4)",
        kind: "iPad",
        widthPt: 834,
        heightPt: 1210,
        scale: 2,
        statusBarPt: 24,
      }),
    );
    expect(device.insets).toMatchObject({ top: 48, bottom: 40 });
  });

  test("a hidden status bar in landscape on an iPhone stays 0", async () => {
    const { device } = await describe_(hiddenAtFirstRead({ orientation: "landscape" }));
    expect(device.insets.top).toBe(0);
  });
});
