import { existsSync } from "node:fs";
import path from "node:path";
import type { DeviceDescription } from "../../src/core/device/description.js";
import {
  baselineNameProblem,
  baselineFolder,
  baselineKey,
  deviceSlug,
  deviceSlugs,
  keyOnDevice,
  osVersionInKey,
  promptHash,
  slugify,
  tapKey,
} from "../../src/core/store/keys.js";
import { iphone15 as iphone15Profile, PROFILES } from "../../rig/profiles.js";

describe("slugify", () => {
  test.each([
    ["Cart Page!", "cart-page"],
    ["  the   checkout button ", "the-checkout-button"],
    ["Café crème", "cafe-creme"],
    ["--x--", "x"],
    ["購入ボタン", "x"],
    ["", "x"],
  ])("%p -> %p", (text, slug) => {
    expect(slugify(text)).toBe(slug);
  });

  test("cuts at max characters without a trailing dash", () => {
    const slug = slugify("a".repeat(10) + " " + "b".repeat(100), 11);
    expect(slug).toBe("a".repeat(10));
    expect(slugify("word ".repeat(40)).length).toBeLessThanOrEqual(60);
  });
});

describe("deviceSlug", () => {
  test.each([
    ["Google Pixel 7", "14", "google-pixel-7_14"],
    ["iPhone 15 Pro", "17.5", "iphone-15-pro_17.5"],
    ["SM-S918B", "14 (Beta)", "sm-s918b_14-beta"],
    ["iPhone", "", "iphone_x"],
  ])("%p %p -> %p", (model, osVersion, slug) => {
    expect(deviceSlug({ model, osVersion })).toBe(slug);
  });

  test("a landscape screen is its own device slug; portrait keeps the plain one", () => {
    expect(deviceSlug({ model: "Google Pixel 7", osVersion: "14", orientation: "portrait" })).toBe("google-pixel-7_14");
    expect(deviceSlug({ model: "Google Pixel 7", osVersion: "14", orientation: "landscape" })).toBe(
      "google-pixel-7_14_landscape",
    );
  });
});

describe("the OS version in keys", () => {
  test.each([
    ["17.5.1", "major.minor", "17.5"],
    ["17.5", "major.minor", "17.5"],
    ["18", "major.minor", "18.0"],
    ["18.0", "major.minor", "18.0"],
    ["8.1.0", "major", "8"],
    ["14", "major", "14"],
    ["14 (Beta)", "major", "14"],
    ["Baklava", "major", "Baklava"],
    ["17.5.1", "full", "17.5.1"],
  ] as const)("%p at %p -> %p", (version, precision, inKey) => {
    expect(osVersionInKey(version, precision)).toBe(inKey);
  });

  const device: DeviceDescription = {
    platform: "ios",
    model: "iPhone 15 Pro",
    osVersion: "17.5.1",
    screen: { width: 1179, height: 2556 },
    scale: 3,
    insets: { top: 0, bottom: 0, left: 0, right: 0 },
    orientation: "portrait",
  };

  test("defaults: major.minor on iOS, major on Android; the full version is a former slug", () => {
    expect(deviceSlugs(device, undefined, undefined)).toEqual({
      slug: "iphone-15-pro_17.5",
      former: ["iphone-15-pro_17.5.1"],
    });
    const pixel = { ...device, platform: "android" as const, model: "Google Pixel 7", osVersion: "8.1.0" };
    expect(deviceSlugs(pixel, undefined, undefined).slug).toBe("google-pixel-7_8");
  });

  test("the target's version is cut the same way", () => {
    expect(deviceSlugs(device, { osVersion: "17.6.1" }, undefined).slug).toBe("iphone-15-pro_17.6");
  });

  test("the rig's phones keep the folders of the committed demo store (storage/_ai_/)", () => {
    const root = path.join(import.meta.dirname, "..", "..", "storage", "_ai_");
    const iphone15 = deviceSlugs({ ...device, ...iphone15Profile.target }, undefined, undefined).slug;
    expect(iphone15).toBe("iphone-15_17.5");
    expect(existsSync(path.join(root, "taps", "ios", iphone15))).toBe(true);
    expect(existsSync(path.join(root, "screenshots", "ios", "cart", `${iphone15}.json`))).toBe(true);
    for (const profile of Object.values(PROFILES)) {
      const { slug } = deviceSlugs({ ...device, ...profile.target }, undefined, undefined);
      expect(slug).toBe(deviceSlug(profile.target));
    }
  });
});

describe("promptHash", () => {
  test("is 10 hex digits and stable", () => {
    expect(promptHash("the checkout button", undefined)).toMatch(/^[0-9a-f]{10}$/);
    expect(promptHash("the checkout button", undefined)).toBe(promptHash("the checkout button", undefined));
  });

  test("covers the exact prompt and the verify text", () => {
    const base = promptHash("the checkout button", undefined);
    expect(promptHash("The checkout button", undefined)).not.toBe(base);
    expect(promptHash("the checkout button ", undefined)).not.toBe(base);
    expect(promptHash("the checkout button", "the order summary is shown")).not.toBe(base);
    expect(promptHash("the checkout button", "")).not.toBe(base);
    // The boundary between prompt and verify is part of the hash.
    expect(promptHash("a b", "c")).not.toBe(promptHash("a", "b c"));
  });
});

describe("keys", () => {
  test("a tap key follows taps/<platform>/<device>/<prompt-slug>-<hash>", () => {
    const key = tapKey("android", "google-pixel-7_14", "The Checkout button", "order shown");
    expect(key).toBe(
      `taps/android/google-pixel-7_14/the-checkout-button-${promptHash("The Checkout button", "order shown")}`,
    );
  });

  test("prompts with one slug get different keys", () => {
    expect(tapKey("ios", "d", "Buy!", undefined)).not.toBe(tapKey("ios", "d", "buy", undefined));
  });

  test("a long prompt's slug is cut to 48 characters", () => {
    const key = tapKey("ios", "iphone-15-pro_17.5", "the ".repeat(50) + "button", undefined);
    const file = key.split("/").pop()!;
    expect(file.length).toBeLessThanOrEqual(48 + 1 + 10);
  });

  test("keyOnDevice swaps the device slug of a tap or baseline key, whatever the name", () => {
    expect(keyOnDevice("taps/ios/iphone-15-pro_17.5/buy-0123456789", "iphone16-1_17.5.1")).toBe(
      "taps/ios/iphone16-1_17.5.1/buy-0123456789",
    );
    expect(keyOnDevice("screenshots/ios/iphone-15-pro_17.5/iphone-15-pro_17.5", "iphone16-1_17.5.1")).toBe(
      "screenshots/ios/iphone-15-pro_17.5/iphone16-1_17.5.1",
    );
  });

  test("a baseline key follows screenshots/<platform>/<name>/<device>", () => {
    expect(baselineKey("ios", "cart-page", "iphone-15-pro_17.5")).toBe("screenshots/ios/cart-page/iphone-15-pro_17.5");
    expect(baselineFolder("ios", "cart-page")).toBe("screenshots/ios/cart-page");
  });

  test.each(["cart-page", "cart_page.v2", "a", "1.0", "console", "com10", "9-lives"])(
    "baseline name %p is valid",
    (name) => {
      expect(baselineNameProblem(name)).toBeUndefined();
    },
  );

  test.each([
    ["cart page", /may hold only lower-case letters/],
    ["cart/page", /may hold only lower-case letters/],
    ["", /may hold only lower-case letters/],
    ["cart:page", /may hold only lower-case letters/],
    ["ä", /may hold only lower-case letters/],
    ["Cart-Page", /upper-case letters.*ignore case/],
    [".", /start with a letter or digit/],
    ["..", /start with a letter or digit/],
    [".locks", /start with a letter or digit/],
    ["-cart", /start with a letter or digit/],
    ["a.", /ends with a dot/],
    ["con", /Windows reserves it/],
    ["nul.png", /Windows reserves it/],
    ["lpt1", /Windows reserves it/],
    ["a".repeat(101), /longer than 100/],
  ])("baseline name %p is invalid: %p", (name, problem) => {
    expect(baselineNameProblem(name)).toMatch(problem);
  });
});
