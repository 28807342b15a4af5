/**
 * The iOS identity rules as a table of examples: what the adapter reads from driver-shaped answers
 * (tests/support/appium-driver-double.ts) and the store slug it ends in. One model is one slug
 * whether it is a simulator or a real device, and whatever patch release it runs.
 */
import { iosAdapter } from "../../src/ios/adapter.js";
import { knownModelName, modelOfProductType } from "../../src/ios/models.js";
import type { DescribedDevice, OsVersionKey, Target } from "../../src/core/device/description.js";
import { deviceSlugs } from "../../src/core/store/keys.js";
import { AppiumDriverDouble, xcuitestScript, type IosProfile } from "../support/appium-driver-double.js";

async function identify(profile: Partial<IosProfile>, caps: Record<string, unknown> = {}) {
  const script = xcuitestScript(profile);
  Object.assign(script.capabilities, caps);
  const notes: string[] = [];
  const device: DescribedDevice = await iosAdapter.open(new AppiumDriverDouble(script)).describe((m) => notes.push(m));
  return { device, notes };
}

function real(productType: string, productVersion: string): IosProfile["realDevice"] {
  return { productType, productVersion, deviceName: "Team phone", hardwareModel: "D83AP" };
}

const PAD_13: Partial<IosProfile> = { kind: "iPad", widthPt: 834, heightPt: 1210, scale: 2, statusBarPt: 24 };

describe("ios identity: one model, one slug", () => {
  test.each<[string, Partial<IosProfile>, Record<string, unknown>, string, string]>([
    ["iPhone 15 Pro simulator, iOS 17.5", { name: "iPhone 15 Pro" }, {}, "iPhone 15 Pro", "iphone-15-pro_17.5"],
    [
      "real iPhone 15 Pro (iPhone16,1), iOS 17.5.1",
      { realDevice: real("iPhone16,1", "17.5.1") },
      { deviceName: "Team phone" },
      "iPhone 15 Pro",
      "iphone-15-pro_17.5",
    ],
    [
      "the same real model on another patch release, iOS 17.5.2",
      { realDevice: real("iPhone16,1", "17.5.2") },
      { deviceName: "iPhone" },
      "iPhone 15 Pro",
      "iphone-15-pro_17.5",
    ],
    ["a simulator name typed in lower case", { name: "iphone 15 pro" }, {}, "iPhone 15 Pro", "iphone-15-pro_17.5"],
    [
      "real iPhone 16 Pro (iPhone17,1), iOS 18.0",
      { realDevice: real("iPhone17,1", "18.0") },
      {},
      "iPhone 16 Pro",
      "iphone-16-pro_18.0",
    ],
    [
      "iPhone 16 Pro simulator, iOS 18",
      { name: "iPhone 16 Pro", platformVersion: "18" },
      {},
      "iPhone 16 Pro",
      "iphone-16-pro_18.0",
    ],
    [
      "iPad simulator as Xcode spells it",
      { ...PAD_13, name: "iPad Pro 11-inch (M4)" },
      {},
      "iPad Pro (11-inch) (M4)",
      "ipad-pro-11-inch-m4_17.5",
    ],
    [
      "the same iPad for real (iPad16,3), iPadOS 17.5.1",
      { ...PAD_13, realDevice: real("iPad16,3", "17.5.1") },
      {},
      "iPad Pro (11-inch) (M4)",
      "ipad-pro-11-inch-m4_17.5",
    ],
    [
      "iPhone SE (3rd generation) simulator",
      { name: "iPhone SE (3rd generation)", widthPt: 375, heightPt: 667, scale: 2, statusBarPt: 20 },
      {},
      "iPhone SE (3rd generation)",
      "iphone-se-3rd-generation_17.5",
    ],
  ])("%s", async (_case, profile, caps, model, slug) => {
    const { device } = await identify(profile, caps);
    expect(device.model).toBe(model);
    expect(deviceSlugs(device, undefined, undefined).slug).toBe(slug);
  });

  test("the record keeps the full OS version the device reports; only the key is cut", async () => {
    const { device } = await identify({ realDevice: real("iPhone16,1", "17.5.1") });
    expect(device.osVersion).toBe("17.5.1");
  });

  test.each<[OsVersionKey, string]>([
    ["major", "iphone-15-pro_17"],
    ["major.minor", "iphone-15-pro_17.5"],
    ["full", "iphone-15-pro_17.5.1"],
  ])("configureAi({ osVersionKey: %p }) keys a real iOS 17.5.1 device as %p", async (precision, slug) => {
    const { device } = await identify({ realDevice: real("iPhone16,1", "17.5.1") });
    expect(deviceSlugs(device, undefined, precision).slug).toBe(slug);
  });

  test("a real device also reads the slug older versions gave it (product type, full OS version)", async () => {
    const { device } = await identify({ realDevice: real("iPhone16,1", "17.5.1") });
    expect(deviceSlugs(device, undefined, undefined)).toEqual({
      slug: "iphone-15-pro_17.5",
      former: ["iphone-15-pro_17.5.1", "iphone16-1_17.5.1"],
    });
    const target: Target = { model: "iPhone 15 Pro" };
    expect(deviceSlugs(device, target, undefined).former).toEqual(["iphone-15-pro_17.5.1"]);
  });

  test("a product type the table lacks is kept, with a note naming the table", async () => {
    const { device, notes } = await identify({ realDevice: real("iPhone99,1", "27.0") });
    expect(device.model).toBe("iPhone99,1");
    expect(notes.join("\n")).toMatch(/product type iPhone99,1 is not in tapshot's model table \(src\/ios\/models.ts\)/);
  });

  test("a farm's regex device name is kept as typed, with a note suggesting a target", async () => {
    const { device, notes } = await identify({ name: "iPhone 1[45].*" });
    expect(device.model).toBe("iPhone 1[45].*");
    expect(notes.join("\n")).toMatch(/"iPhone 1\[45\]\.\*" is no iPhone or iPad model.*target: \{ model \}/);
  });
});

describe("ios model table", () => {
  test("covers current iPhones and iPads", () => {
    expect(modelOfProductType("iPhone16,1")).toBe("iPhone 15 Pro");
    expect(modelOfProductType("iPhone17,3")).toBe("iPhone 16");
    expect(modelOfProductType("iPhone17,5")).toBe("iPhone 16e");
    expect(modelOfProductType("iPhone18,1")).toBe("iPhone 17 Pro");
    expect(modelOfProductType("iPhone18,4")).toBe("iPhone Air");
    expect(modelOfProductType("iPad16,1")).toBe("iPad mini (A17 Pro)");
    expect(modelOfProductType("iPad15,7")).toBe("iPad (A16)");
    expect(modelOfProductType("iPad17,3")).toBe("iPad Pro (13-inch) (M5)");
  });

  test("Xcode's simulator spellings find the table's names", () => {
    expect(knownModelName("iPad Air 13-inch (M2)")).toBe("iPad Air (13-inch) (M2)");
    expect(knownModelName("iPhone Xs")).toBe("iPhone XS");
    expect(knownModelName("My test phone")).toBeUndefined();
  });
});
