/**
 * The Appium kit's element lookup for selector and element masks (src/appium/element-rects.ts)
 * through the real Android and iOS adapters, against the driver double
 * (tests/support/appium-driver-double.ts): rectangles come back in screenshot pixels, measured
 * from the screen's corner as the page source's bounds are, on an iPad window too.
 */
import { androidAdapter } from "../../src/android/adapter.js";
import { iosAdapter } from "../../src/ios/adapter.js";
import type { DeviceAdapter, DeviceSession } from "../../src/core/device/description.js";
import { parsePageSource } from "../../src/core/device/page-source-parse.js";
import { DeviceError } from "../../src/core/ground/errors.js";
import {
  AppiumDriverDouble,
  uiautomator2Script,
  w3cError,
  xcuitestScript,
  type DoubleScript,
} from "../support/appium-driver-double.js";

async function opened(adapter: DeviceAdapter, script: DoubleScript): Promise<[DeviceSession, AppiumDriverDouble]> {
  const driver = new AppiumDriverDouble(script);
  const session = adapter.open(driver);
  await session.describe(() => undefined);
  return [session, driver];
}

test("Android: UiAutomator2's rects are pixels already", async () => {
  const script = uiautomator2Script();
  script.elements = { "id=com.shop:id/price": { x: 40, y: 900, width: 300, height: 60 } };
  const [session] = await opened(androidAdapter, script);
  expect(await session.elementRects!([{ selector: "id=com.shop:id/price" }, { selector: "~gone" }])).toEqual([
    { x: 40, y: 900, width: 300, height: 60 },
    null,
  ]);
});

test("iPad window at a non-zero origin: rects and page-source bounds are screen points; taps alone start at the window", async () => {
  // Stage Manager: the app's window at (300, 120) pt. WebDriverAgent answers an element's rect and the page
  // source's x/y from the element's frame, in screen coordinates; taps are measured from the window's origin.
  const script = xcuitestScript({
    name: "iPad Pro 11-inch (M4)",
    kind: "iPad",
    widthPt: 834,
    heightPt: 1210,
    scale: 2,
    statusBarPt: 24,
    orientation: "landscape",
    appWindow: { x: 300, y: 120, width: 600, height: 560 },
  });
  const frame = { x: 350, y: 200, width: 100, height: 50 };
  script.elements = { "~price": frame, "~row": [frame, { x: 350, y: 260, width: 100, height: 50 }] };
  script.pageSource =
    '<?xml version="1.0" encoding="UTF-8"?><XCUIElementTypeApplication type="XCUIElementTypeApplication" ' +
    'name="Shop" x="300" y="120" width="600" height="560" visible="true"><XCUIElementTypeStaticText ' +
    'type="XCUIElementTypeStaticText" name="price" label="$12" x="350" y="200" width="100" height="50" ' +
    'visible="true"/></XCUIElementTypeApplication>';
  const [session, driver] = await opened(iosAdapter, script);
  const pixels = { x: 700, y: 400, width: 200, height: 100 };
  expect(await session.elementRects!([{ selector: "~price" }])).toEqual([pixels]);
  expect(await session.elementMatches!({ selector: "~row" })).toEqual([pixels, { ...pixels, y: 520 }]);

  // The page-source path reads the same element at the same place.
  const device = { platform: "ios" as const, scale: 2, screen: { width: 2420, height: 1668 } };
  const nodes = await parsePageSource(await session.pageSource!(), device);
  expect(nodes.find((n) => n.attributes.name === "price")?.bounds).toEqual(pixels);

  // A tap on the element's centre goes to the driver from the window's origin: (400 - 300, 225 - 120) pt.
  await session.tap({ x: 800, y: 450 });
  const [pointer] = driver.actions.at(-1) as { actions: object[] }[];
  expect(pointer!.actions[0]).toMatchObject({ type: "pointerMove", x: 100, y: 105 });
});

test("an element the test holds is measured by its id; a stale one is found again by its selector", async () => {
  const script = xcuitestScript();
  script.elements = { "~banner": { x: 0, y: 100, width: 393, height: 80 } };
  const [session, driver] = await opened(iosAdapter, script);
  const held = { elementId: "element-~banner", selector: "~banner" };
  expect(await session.elementRects!([{ element: held }])).toEqual([{ x: 0, y: 300, width: 1179, height: 240 }]);
  expect(driver.count("$ ~banner")).toBe(0);

  const stale = { elementId: "element-old", selector: "~banner" };
  // Not awaited by the test: a promise of the element.
  expect(await session.elementRects!([{ element: Promise.resolve(stale) }])).toEqual([
    { x: 0, y: 300, width: 1179, height: 240 },
  ]);
  expect(driver.count("$ ~banner")).toBe(1);
});

test("a driver error other than not found is a DeviceError naming the selector", async () => {
  const script = uiautomator2Script();
  script.elements = { "~price": w3cError("unknown error", "UiAutomator2 server crashed") };
  const [session] = await opened(androidAdapter, script);
  const error = await session.elementRects!([{ selector: "~price" }]).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(DeviceError);
  expect((error as Error).message).toBe('Finding the selector "~price" for a mask failed: UiAutomator2 server crashed');
});

test("in a web context element masks are refused like taps", async () => {
  const script = uiautomator2Script();
  script.elements = { "~price": { x: 0, y: 0, width: 10, height: 10 } };
  const [session, driver] = await opened(androidAdapter, script);
  script.context = "WEBVIEW_com.shop";
  await expect(session.elementRects!([{ selector: "~price" }])).rejects.toThrow(/native context.*WEBVIEW_com\.shop/);
  expect(driver.count("$ ~price")).toBe(0);
});
