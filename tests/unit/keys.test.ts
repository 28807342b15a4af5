import {
  baselineNameProblem,
  baselineFolder,
  baselineKey,
  deviceSlug,
  promptHash,
  slugify,
  tapKey,
} from "../../src/core/store/keys.js";

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
