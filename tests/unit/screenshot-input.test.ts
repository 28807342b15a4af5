/**
 * toMatchScreenshot's input checks (before any device or model call), the allowance
 * rule, and the mask helpers on real decoded pixels.
 */
import * as android from "../../src/android/index.js";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import * as ios from "../../src/ios/index.js";
import { InputError } from "../../src/core/ground/errors.js";
import { isUniformOutside, sameOutside, systemBarMasks, unionArea } from "../../src/core/pixels/masks.js";
import { allowedDiffPixels, checkScreenshotInput } from "../../src/core/flows/screenshot/input.js";
import { decode } from "../../src/core/pixels/image-decode.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { FakeDevice, fakeAdapter, fakeDriver, render, type FakeScene } from "../support/fake-device.js";
import { ScriptedChannel } from "../support/scripted-channel.js";

afterEach(() => resetAi());

function inputError(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as Error).message;
  }
  throw new Error("expected an InputError");
}

describe("names", () => {
  test.each([
    ["Cart Page!", "cart-page"],
    ["checkout/step 2", "checkout-step-2"],
    ["Überweisung bestätigt", "uberweisung-bestatigt"],
    ["..", "x"],
    ["a".repeat(101), "a".repeat(60)],
  ])("%j is refused with the slug it suggests", (name, slug) => {
    const message = inputError(() => checkScreenshotInput(name, "the cart", undefined));
    expect(message).toContain(`is not a valid baseline name`);
    expect(message).toContain(`Try "${slug}".`);
  });

  test.each(["cart-page", "cart_page.v2", "a", "1.0"])("%j is a valid name", (name) => {
    expect(checkScreenshotInput(name, "the cart", undefined).params.name).toBe(name);
  });

  test("a missing name or prompt says what to pass", () => {
    expect(inputError(() => checkScreenshotInput(undefined, "the cart", {}))).toContain(
      `toMatchScreenshot's name must be a non-empty string, e.g. "cart-page"`,
    );
    expect(inputError(() => checkScreenshotInput("cart", "  ", {}))).toContain("toMatchScreenshot's prompt must be");
  });

  test("an invalid name fails before the device or the model is used", async () => {
    const channel = new ScriptedChannel();
    configureAi({ channel, resultsDir: false, log: false });
    const device = new FakeDevice({ background: "#fff", elements: [] });
    const api = createPlatformApi(fakeAdapter());

    await expect(api.expect(fakeDriver(device)).toMatchScreenshot("Cart Page!", "the cart")).rejects.toThrow(
      'Try "cart-page".',
    );
    expect(device.screenshots).toBe(0);
    expect(channel.count()).toBe(0);
  });
});

test.each([
  ["android", android],
  ["ios", ios],
])("the %s entry offers expect(driver).toMatchScreenshot, checking input first", async (_, entry) => {
  // @ts-expect-error the entries take a WebdriverIO Browser; a plain object is refused at run time too (JS users).
  await expect(entry.expect({}).toMatchScreenshot("Cart Page!", "the cart")).rejects.toThrow(
    new InputError(
      'toMatchScreenshot\'s name "Cart Page!" is not a valid baseline name: it names a folder in every checkout ' +
        'of the storage, and it may hold only lower-case letters, digits, ".", "_" and "-". Try "cart-page".',
    ),
  );
});

describe("options", () => {
  const check = (options: unknown) => checkScreenshotInput("cart", "the cart", options);

  test("defaults", () => {
    expect(check(undefined)).toEqual({
      params: {
        name: "cart",
        prompt: "the cart",
        autoHeal: false,
        threshold: 0.1,
        maxDiffPixels: undefined,
        maxDiffPixelRatio: undefined,
        mask: [],
        byElement: { elements: [], prompts: [] },
        settle: { shots: 2, graceMs: 1000 },
      },
      timeout: 30_000,
      signal: undefined,
    });
  });

  test.each([
    [{ autoheal: true }, 'unknown option "autoheal"'],
    [{ threshold: 1.5 }, "threshold must be a number from 0 to 1; got 1.5"],
    [{ maxDiffPixels: 2.5 }, "maxDiffPixels must be a whole number of pixels, 0 or more; got 2.5"],
    [{ maxDiffPixels: -1 }, "maxDiffPixels must be a whole number"],
    [{ maxDiffPixelRatio: "1%" }, "maxDiffPixelRatio must be a number from 0 to 1; got 1%"],
    [{ mask: { x: 0 } }, "mask must be an array of boxes, selectors, elements or prompts"],
    [{ mask: [{ x: 0 }] }, "mask[0] must be a box { x, y, width, height } in screenshot pixels"],
    [{ mask: [" "] }, 'mask[0] is an empty selector; give one driver.$() accepts, e.g. "~price"'],
    [{ mask: [42] }, "mask[0] must be a box, a selector, a WebdriverIO element"],
    [{ mask: [{ selector: "~a", optinal: true }] }, "mask[0] has unknown key optinal; it takes selector and optional"],
    [{ mask: [{ selector: "~a", optional: "yes" }] }, "mask[0].optional must be true or false"],
    [{ mask: [{ element: { id: 3 } }] }, "mask[0].element must be a WebdriverIO element"],
    [{ mask: [{ prompt: "" }] }, "mask[0].prompt must be a non-empty text"],
    [{ mask: [{ prompt: "the date" }, { prompt: "the date" }] }, 'mask[1]: the prompt "the date" is listed twice'],
    [{ settle: { shots: 1 } }, "settle.shots must be a whole number from 2 to 20"],
    [{ settle: { graceMs: -1 } }, "settle.graceMs must be a number of milliseconds, 0 or more"],
    [
      {
        mask: [
          { x: 0, y: 0, width: 10, height: 10 },
          { x: -5, y: 0, width: 10, height: 10 },
        ],
      },
      "mask[1] must be",
    ],
    [{ autoHeal: "yes" }, "autoHeal must be true or false"],
    [{ timeout: 0 }, "timeout must be a number of milliseconds from 1 to 2147483647"],
    ["fast", "toMatchScreenshot options must be an object"],
  ])("%j is refused", (options, message) => {
    expect(inputError(() => check(options))).toContain(message);
  });

  test("given values are kept", () => {
    const mask = [{ x: 0, y: 10, width: 20, height: 30 }];
    expect(check({ threshold: 0, maxDiffPixels: 0, maxDiffPixelRatio: 0.5, mask, autoHeal: true }).params).toEqual(
      expect.objectContaining({ threshold: 0, maxDiffPixels: 0, maxDiffPixelRatio: 0.5, mask, autoHeal: true }),
    );
  });
});

test("masks of every form are sorted by when they are resolved", () => {
  const box = { x: 0, y: 10, width: 20, height: 30 };
  const awaited = { elementId: "e-1", selector: "~banner" };
  // driver.$() not awaited: a promise that carries its selector.
  const pending = Object.assign(Promise.resolve(awaited), { selector: "~banner" });
  const mask = [box, "~price", awaited, pending, { selector: "~promo", optional: true }, { prompt: "the date" }];
  const { params } = checkScreenshotInput("cart", "the cart", { mask });
  expect(params.mask).toEqual([box]);
  expect(params.byElement.elements).toEqual([
    { target: { selector: "~price" }, optional: false, label: 'mask[1] ("~price")' },
    { target: { element: awaited }, optional: false, label: 'mask[2] (element "~banner")' },
    { target: { element: pending }, optional: false, label: 'mask[3] (element "~banner")' },
    { target: { selector: "~promo" }, optional: true, label: 'mask[4] ("~promo")' },
  ]);
  expect(params.byElement.prompts).toEqual([{ prompt: "the date", optional: false }]);
});

describe("allowance (as Playwright's toHaveScreenshot)", () => {
  const total = 1179 * 2556;
  test("neither set: 0.1% of all pixels", () => {
    expect(allowedDiffPixels(total, { maxDiffPixels: undefined, maxDiffPixelRatio: undefined })).toBe(3013);
  });
  test("one set: only that one applies", () => {
    expect(allowedDiffPixels(total, { maxDiffPixels: 10_000, maxDiffPixelRatio: undefined })).toBe(10_000);
    expect(allowedDiffPixels(total, { maxDiffPixels: undefined, maxDiffPixelRatio: 0.01 })).toBe(30_135);
  });
  test("both set: the stricter applies", () => {
    expect(allowedDiffPixels(total, { maxDiffPixels: 10_000, maxDiffPixelRatio: 0.01 })).toBe(10_000);
    expect(allowedDiffPixels(total, { maxDiffPixels: 50_000, maxDiffPixelRatio: 0.01 })).toBe(30_135);
    expect(allowedDiffPixels(total, { maxDiffPixels: 0, maxDiffPixelRatio: 0.01 })).toBe(0);
  });
});

describe("masks", () => {
  const device = new FakeDevice(
    { background: "#fff", elements: [] },
    { insets: { top: 24, bottom: 32, left: 0, right: 0 } },
  );

  test("system bars come from the device's insets, on every side that has one", () => {
    expect(systemBarMasks(device.description)).toEqual([
      { x: 0, y: 0, width: 360, height: 24 },
      { x: 0, y: 608, width: 360, height: 32 },
    ]);
    const landscape = { screen: { width: 640, height: 360 }, insets: { top: 20, bottom: 0, left: 30, right: 40 } };
    expect(systemBarMasks(landscape)).toEqual([
      { x: 0, y: 0, width: 640, height: 20 },
      { x: 0, y: 0, width: 30, height: 360 },
      { x: 600, y: 0, width: 40, height: 360 },
    ]);
  });

  test("union area counts overlaps once", () => {
    expect(unionArea([])).toBe(0);
    expect(
      unionArea([
        { x: 0, y: 0, width: 10, height: 10 },
        { x: 5, y: 5, width: 10, height: 10 },
        { x: 100, y: 100, width: 1, height: 1 },
      ]),
    ).toBe(100 + 100 - 25 + 1);
  });

  test("a screen of one colour outside the bars is blank; anything drawn is not", async () => {
    const bars = systemBarMasks(device.description);
    const blank: FakeScene = { background: "#000", elements: [], statusBar: "#444", navBar: "#888" };
    const raw = await decode(await render(blank, device.description));
    expect(isUniformOutside(raw, bars)).toBe(true);
    expect(isUniformOutside(raw, [])).toBe(false);

    const drawn = { ...blank, elements: [{ id: "dot", x: 100, y: 300, width: 4, height: 4, fill: "#fff" }] };
    expect(isUniformOutside(await decode(await render(drawn, device.description)), bars)).toBe(false);
  });

  test("images that differ only under masks are the same outside them", async () => {
    const a = await decode(await render({ background: "#fff", elements: [], statusBar: "#111" }, device.description));
    const b = await decode(await render({ background: "#fff", elements: [], statusBar: "#999" }, device.description));
    expect(sameOutside(a, b, [])).toBe(false);
    expect(sameOutside(a, b, systemBarMasks(device.description))).toBe(true);
    expect(sameOutside(a, b, [{ x: 0, y: 0, width: 360, height: 20 }])).toBe(false);
  });
});
