/**
 * The app under test as the Appium adapters read it (src/appium/app-identity.ts), on the UiAutomator2 and
 * XCUITest doubles: what the session's capabilities declare, else the driver's foreground app.
 */
import { androidAdapter } from "../../src/android/adapter.js";
import { iosAdapter } from "../../src/ios/adapter.js";
import { AppiumDriverDouble, asBrowser, uiautomator2Script, xcuitestScript } from "../support/appium-driver-double.js";

const appOf = (adapter: typeof androidAdapter, driver: AppiumDriverDouble) =>
  adapter.open(asBrowser(driver)).appIdentity!();

test("Android: a declared appPackage (prefixed or not) wins; else mobile: getCurrentPackage answers", async () => {
  const declared = uiautomator2Script();
  declared.capabilities.appPackage = "com.example.merchant";
  const first = new AppiumDriverDouble(declared);
  expect(await appOf(androidAdapter, first)).toBe("com.example.merchant");
  expect(first.count("execute mobile: getCurrentPackage")).toBe(0);

  const prefixed = uiautomator2Script();
  prefixed.capabilities["appium:appPackage"] = "com.example.prefixed";
  expect(await appOf(androidAdapter, new AppiumDriverDouble(prefixed))).toBe("com.example.prefixed");

  const foreground = new AppiumDriverDouble(uiautomator2Script());
  expect(await appOf(androidAdapter, foreground)).toBe("com.example.shop");
  expect(foreground.count("execute mobile: getCurrentPackage")).toBe(1);
});

test("iOS: a declared bundleId wins; else mobile: activeAppInfo's bundleId; a driver without either fails", async () => {
  const declared = new AppiumDriverDouble(xcuitestScript());
  expect(await appOf(iosAdapter, declared)).toBe("com.example.shop");
  expect(declared.count("execute mobile: activeAppInfo")).toBe(0);

  const script = xcuitestScript();
  delete script.capabilities.bundleId;
  script.mobile["mobile: activeAppInfo"] = { bundleId: "com.apple.Preferences", name: "", pid: 42 };
  expect(await appOf(iosAdapter, new AppiumDriverDouble(script))).toBe("com.apple.Preferences");

  delete script.mobile["mobile: activeAppInfo"];
  await expect(appOf(iosAdapter, new AppiumDriverDouble(script))).rejects.toThrow(/Unsupported execute method/);
});
