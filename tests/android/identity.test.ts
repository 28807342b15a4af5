/**
 * The Android identity rules as a table of examples: what the adapter reads from driver-shaped
 * answers (tests/support/appium-driver-double.ts) and the store slug it ends in. Emulators are
 * named by their AVD profile, never by the image's generic model or the adb serial.
 */
import { androidAdapter } from "../../src/android/adapter.js";
import { applyTarget, type DescribedDevice } from "../../src/core/device/description.js";
import { DeviceError } from "../../src/core/ground/errors.js";
import { deviceSlugs } from "../../src/core/store/keys.js";
import {
  AppiumDriverDouble,
  EMULATOR_IMAGE,
  uiautomator2Script,
  type AndroidProfile,
} from "../support/appium-driver-double.js";

async function identify(profile: Partial<AndroidProfile>) {
  const notes: string[] = [];
  const driver = new AppiumDriverDouble(uiautomator2Script(profile));
  const device: DescribedDevice = await androidAdapter.open(driver).describe((m) => notes.push(m));
  return { device, notes };
}

describe("android identity: one model, one slug", () => {
  test.each<[string, Partial<AndroidProfile>, string, string]>([
    ["a Pixel 7 on Android 14", {}, "Google Pixel 7", "google-pixel-7_14"],
    ["a Pixel 7 on an older release, 8.1.0", { platformVersion: "8.1.0" }, "Google Pixel 7", "google-pixel-7_8"],
    [
      "the same on 8.1.1: one key per major release",
      { platformVersion: "8.1.1" },
      "Google Pixel 7",
      "google-pixel-7_8",
    ],
    [
      "an emulator of AVD profile Pixel_7_API_34",
      { ...EMULATOR_IMAGE, avd: "Pixel_7_API_34" },
      "Android emulator Pixel_7_API_34",
      "android-emulator-pixel-7-api-34_14",
    ],
    [
      "an emulator of another profile, same image",
      { ...EMULATOR_IMAGE, avd: "@Pixel_Tablet_API_34", width: 1600, height: 2560 },
      "Android emulator Pixel_Tablet_API_34",
      "android-emulator-pixel-tablet-api-34_14",
    ],
  ])("%s", async (_case, profile, model, slug) => {
    const { device } = await identify(profile);
    expect(device.model).toBe(model);
    expect(deviceSlugs(device, undefined, undefined).slug).toBe(slug);
  });

  test("an emulator named by its profile still reads what older versions stored under the image's model", async () => {
    const { device, notes } = await identify({ ...EMULATOR_IMAGE, avd: "Pixel_7_API_34" });
    expect(deviceSlugs(device, undefined, undefined).former).toEqual(["google-sdk-gphone64-x86-64_14"]);
    expect(notes.join("\n")).toMatch(/an emulator; named by its AVD profile \(capability avd\)/);
  });

  test("an emulator without its AVD profile fails with a clear error unless the target names the model", async () => {
    const { device } = await identify(EMULATOR_IMAGE);
    expect(() => applyTarget(device, undefined)).toThrow(DeviceError);
    expect(() => applyTarget(device, { osVersion: "14" })).toThrow(
      /emulator \(emulator-5554\) reports the generic model "Google sdk_gphone64_x86_64".*configureAi\(\{ target: \{ model: "Pixel 7 emulator" \} \}\)/,
    );
    const named = applyTarget(device, { model: "Pixel 7 emulator" });
    expect(named.model).toBe("Pixel 7 emulator");
    expect(deviceSlugs(device, { model: "Pixel 7 emulator" }, undefined).slug).toBe("pixel-7-emulator_14");
  });

  test("the adb serial is never the model, even when nothing else names the device", async () => {
    const script = uiautomator2Script(EMULATOR_IMAGE);
    delete script.mobile["mobile: deviceInfo"];
    delete script.capabilities.deviceModel;
    const device = await androidAdapter.open(new AppiumDriverDouble(script)).describe(() => undefined);
    expect(device.model).not.toMatch(/emulator-5554/);
    expect(() => applyTarget(device, undefined)).toThrow(/This Android emulator \(emulator-5554\) reports no model/);
  });

  test('configureAi({ osVersionKey: "full" }) keeps the whole release in the key', async () => {
    const { device } = await identify({ platformVersion: "8.1.0" });
    expect(deviceSlugs(device, undefined, "full").slug).toBe("google-pixel-7_8.1.0");
    expect(deviceSlugs(device, undefined, undefined).former).toEqual(["google-pixel-7_8.1.0"]);
  });
});
