/**
 * Whole pages scroll UiAutomator2 sessions with its own `mobile: scrollGesture` (the arguments and
 * boolean answer of appium-uiautomator2-driver's docs/android-mobile-gestures "mobile: scrollGesture",
 * answered by androidx UiObject2.scroll), in tap pixels; Espresso sessions, which lack it, swipe.
 */
import { androidAdapter } from "../../src/android/adapter.js";
import { AppiumDriverDouble, espressoScript, uiautomator2Script } from "../support/appium-driver-double.js";

const scroll = { area: { x: 0, y: 300, width: 1080, height: 1200 }, direction: "down" as const, share: 0.5 };

test("a UiAutomator2 session scrolls with mobile: scrollGesture in tap pixels and passes on its answer", async () => {
  const script = uiautomator2Script();
  script.mobile["mobile: scrollGesture"] = false;
  const driver = new AppiumDriverDouble(script);
  const session = androidAdapter.open(driver);
  await expect(session.scrollAndTell!(scroll)).rejects.toThrow(/scroll before describe/);
  const device = await session.describe(() => undefined);
  expect(await session.scrollAndTell!(scroll)).toEqual({ more: false });
  const sent = driver.executed.filter((e) => e.script === "mobile: scrollGesture");
  expect(sent).toHaveLength(1);
  const px = (v: number) => Math.round(v / device.scale);
  expect(sent[0]!.args[0]).toMatchObject({
    left: px(0),
    top: px(300),
    width: px(1080),
    height: px(1200),
    direction: "down",
    percent: 0.5,
  });
  script.mobile["mobile: scrollGesture"] = true;
  expect(await session.scrollAndTell!({ ...scroll, direction: "up" })).toEqual({ more: true });
});

test("an Espresso session offers no driver scroll: whole pages swipe there", async () => {
  const session = androidAdapter.open(new AppiumDriverDouble(espressoScript()));
  expect(session.scrollAndTell).toBeUndefined();
  expect(typeof session.swipe).toBe("function");
});
