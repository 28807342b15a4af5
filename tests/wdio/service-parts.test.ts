/**
 * The parts of tapshot/wdio that need no session: the target from returned capabilities, the CI
 * mode rule, option checks, default baseline names, and what goes to Allure. The wdio run itself is
 * tests/wdio/wdio-example.test.ts.
 */
import {
  aiMatchers,
  allureArtifactReporter,
  ScreenshotMismatchError,
  ConfigError,
  DeviceError,
  InputError,
  setDefaultAdapter,
  targetFromCapabilities,
  TapshotService,
  usesAllure,
  type AllureApi,
} from "tapshot/wdio";
import { defaultBaselineName, setRunningTest } from "../../src/matchers/test-title.js";
import { serviceMode } from "../../src/wdio/ci.js";
import { reportHeal } from "../../src/wdio/allure.js";
import { adapterFor } from "../../src/wdio/platform-api.js";
import { androidAdapter } from "../../src/android/adapter.js";
import type { DeviceAdapter } from "tapshot/adapter";

describe("targetFromCapabilities", () => {
  test("a farm's device name becomes the model when the device names none in its capabilities", () => {
    // BrowserStack App Automate: bstack:options (browserstack.com/docs/app-automate/capabilities).
    expect(
      targetFromCapabilities({
        platformName: "iOS",
        "bstack:options": { deviceName: "iPhone 15 Pro", osVersion: "17" },
      }),
    ).toEqual({ model: "iPhone 15 Pro" });
    // LambdaTest: lt:options.deviceName.
    expect(targetFromCapabilities({ "lt:options": { deviceName: "Galaxy S23" } })).toEqual({ model: "Galaxy S23" });
    // Sauce Labs: the allocated device in appium:deviceName beside sauce:options.
    expect(targetFromCapabilities({ "appium:deviceName": "iPhone 14", "sauce:options": {} })).toEqual({
      model: "iPhone 14",
    });
  });

  test("what the device reports wins: UiAutomator2's deviceModel leaves the model to the adapter", () => {
    expect(
      targetFromCapabilities({
        "bstack:options": { deviceName: "Google Pixel 7" },
        deviceManufacturer: "Google",
        deviceModel: "Pixel 7a",
      }),
    ).toEqual({});
  });

  test("no model from a selection pattern, a plain Appium deviceName (an emulator id) or nothing", () => {
    expect(targetFromCapabilities({ "appium:deviceName": "Google.*", "sauce:options": {} })).toEqual({});
    expect(targetFromCapabilities({ "lt:options": { deviceName: "Galaxy S2[0-9]" } })).toEqual({});
    expect(targetFromCapabilities({ platformName: "Android", "appium:deviceName": "emulator-5554" })).toEqual({});
    expect(targetFromCapabilities(undefined)).toEqual({});
  });
});

describe("the service's mode", () => {
  test("replay on CI, unless the options or TAPSHOT_MODE say otherwise", () => {
    expect(serviceMode(undefined, { CI: "true" })).toBe("replay");
    expect(serviceMode(undefined, { CI: "1" })).toBe("replay");
    expect(serviceMode("auto", { CI: "true" })).toBe("auto");
    expect(serviceMode(undefined, { CI: "true", TAPSHOT_MODE: "auto" })).toBeUndefined();
    expect(serviceMode(undefined, { CI: "false" })).toBeUndefined();
    expect(serviceMode(undefined, { CI: "" })).toBeUndefined();
    expect(serviceMode(undefined, {})).toBeUndefined();
  });
});

describe("TapshotService options", () => {
  test("a bad option stops the run when WDIO constructs the service, naming the option", () => {
    expect(() => new TapshotService({ mode: "sometimes" as "auto" })).toThrow(ConfigError);
    expect(() => new TapshotService({ mode: "sometimes" as "auto" })).toThrow(/TapshotService got invalid options/);
    expect(() => new TapshotService({ adapter: 42 as never })).toThrow(/adapter must be a DeviceAdapter/);
    expect(() => new TapshotService({ storgeDir: "x" } as never)).toThrow(
      /^TapshotService got unknown option "storgeDir" \(did you mean "storageDir"\?\); known: .*, target, adapter, allure\.$/,
    );
    expect(() => new TapshotService({ alure: true } as never)).toThrow(/"alure" \(did you mean "allure"\?\)/);
    expect(() => new TapshotService({ storageDir: "storage", allure: false })).not.toThrow();
  });

  test("project: a slug is taken; a name that could leave its folder stops the run, saying the allowed form", () => {
    expect(() => new TapshotService({ project: "shop-team" })).not.toThrow();
    expect(() => new TapshotService({ project: "../other" })).toThrow(
      /^TapshotService's project "\.\.\/other" is not a project name: it holds a path separator\. Use 1-64/,
    );
  });

  test("Allure is used when the reporters list it", () => {
    expect(usesAllure(["spec", ["allure", { outputDir: "x" }]])).toBe(true);
    expect(usesAllure(["dot"])).toBe(false);
    expect(usesAllure(undefined)).toBe(false);
  });
});

describe("which adapter a session gets", () => {
  const session = (platformName: string) => ({ capabilities: { platformName } }) as unknown as WebdriverIO.Browser;
  const custom: DeviceAdapter = { platform: "ios", open: () => ({}) as never };
  afterEach(() => setDefaultAdapter(undefined));

  test("the one passed, else the default set, else Android or iOS by platformName", () => {
    expect(adapterFor(session("Android"), undefined)).toBe(androidAdapter);
    expect(() => adapterFor(session("linux"), undefined)).toThrow(DeviceError);
    expect(() => adapterFor(session("linux"), undefined)).toThrow(/or setDefaultAdapter\(adapter\)/);
    setDefaultAdapter(custom);
    expect(adapterFor(session("linux"), undefined)).toBe(custom);
    expect(adapterFor(session("Android"), undefined)).toBe(custom);
    expect(adapterFor(session("linux"), androidAdapter)).toBe(androidAdapter);
    setDefaultAdapter(() => androidAdapter);
    expect(adapterFor(session("linux"), undefined)).toBe(androidAdapter);
    setDefaultAdapter(undefined);
    expect(() => adapterFor(session("linux"), undefined)).toThrow(DeviceError);
  });

  test("anything else is a ConfigError saying what it takes", () => {
    expect(() => setDefaultAdapter({ platform: "ios" } as never)).toThrow(ConfigError);
    expect(() => setDefaultAdapter(42 as never)).toThrow(
      /^setDefaultAdapter needs a DeviceAdapter \(an object with open\(driver\), see tapshot\/adapter\), a function returning one per session, or undefined; got number\.$/,
    );
  });
});

describe("default baseline names", () => {
  afterEach(() => setRunningTest(undefined));

  test("come from the test's full title, numbered from the second unnamed call of a test", () => {
    setRunningTest("Cart shows two items");
    expect(defaultBaselineName("Cart shows two items")).toBe("cart-shows-two-items");
    expect(defaultBaselineName("Cart shows two items")).toBe("cart-shows-two-items-2");
    setRunningTest("Cart shows two items");
    expect(defaultBaselineName("Cart shows two items")).toBe("cart-shows-two-items");
  });

  test("outside a test there is no title: the error says to pass a name", () => {
    expect(() => defaultBaselineName(undefined)).toThrow(InputError);
    expect(() => defaultBaselineName(undefined)).toThrow(/Pass one: toMatchAiScreenshot\("cart-page"/);
  });
});

describe("Allure", () => {
  function recorder() {
    const calls: unknown[][] = [];
    const api: AllureApi = {
      addAttachment: (...args) => calls.push(["attachment", ...args]),
      addStep: (...args) => calls.push(["step", ...args]),
    };
    return { api, calls };
  }

  test("each artifact is attached; it names no place (the run folder's copy is named)", async () => {
    const { api, calls } = recorder();
    const data = Buffer.from("png bytes");
    const report = allureArtifactReporter(api);
    const where = await report({
      name: "screenshot-cart__expected.png",
      role: "expected",
      mimeType: "image/png",
      data,
      api: "toMatchScreenshot",
      subject: "cart",
      device: "iphone-15_17.5",
    });
    expect(where).toBeUndefined();
    expect(calls).toEqual([["attachment", "tapshot expected: screenshot-cart__expected.png", data, "image/png"]]);
  });

  test("a heal is a step with the warning status; other outcomes add nothing", async () => {
    const { api, calls } = recorder();
    await reportHeal(api, {
      api: "tap",
      subject: "the checkout button",
      result: { outcome: "replayed", point: { x: 1, y: 2 }, aiCalls: 0 },
    });
    await reportHeal(api, {
      api: "tap",
      subject: "the checkout button",
      result: { outcome: "healed", point: { x: 1, y: 2 }, aiCalls: 1 },
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]![0]).toBe("step");
    expect(calls[0]![1]).toBe('tapshot healed a stored value: tap "the checkout button"');
    expect(calls[0]![3]).toBe("broken");
    await reportHeal(api, {
      api: "act",
      subject: "sign in",
      result: { outcome: "healed", steps: [], history: [], aiCalls: 2 },
    });
    expect(calls[1]![1]).toBe('tapshot healed a stored value: act "sign in"');
  });
});

describe("toMatchAiScreenshot in Jest", () => {
  // A session whose aiMatchScreenshot command fails as tapshot's does on a mismatch (the rig runs the real one
  // in examples/jest and tests/wdio/wdio-example.test.ts); this checks only how Jest reports it.
  const failing = {
    aiMatchScreenshot: async (name: string) => {
      throw new ScreenshotMismatchError(
        `toMatchScreenshot "${name}": 12 pixels differ.\nArtifacts:\n  /r/diff.png`,
        12,
        0.1,
      );
    },
  };
  const jestExpect = expect as unknown as jest.Expect & { extend(m: object): void };
  jestExpect.extend(aiMatchers());

  test("a failure reads as a Jest matcher failure, with the tapshot error and its artifact lines", async () => {
    const error = await (expect(failing) as unknown as { toMatchAiScreenshot(n: string, p: string): Promise<void> })
      .toMatchAiScreenshot("cart", "the cart")
      .catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    const message = (error as Error).message;
    expect(message).toContain('expect(driver).toMatchAiScreenshot("cart")');
    expect(message).toContain(
      'ScreenshotMismatchError (screenshot-mismatch): toMatchScreenshot "cart": 12 pixels differ.\nArtifacts:\n  /r/diff.png',
    );
  });

  test("a session without tapshot's commands and .not are errors saying what to do", async () => {
    const plain = expect({}) as unknown as { toMatchAiScreenshot(n: string, p: string): Promise<void> };
    await expect(plain.toMatchAiScreenshot("cart", "the cart")).rejects.toThrow(/addAiCommands\(browser\)/);
    const not = (expect(failing) as unknown as { not: { toMatchAiScreenshot(n: string, p: string): Promise<void> } })
      .not;
    await expect(not.toMatchAiScreenshot("cart", "the cart")).rejects.toThrow(/has no \.not/);
  });
});

describe("the run id the workers share", () => {
  const saved = { run: process.env.TAPSHOT_RUN_ID, worker: process.env.WDIO_WORKER_ID };
  afterEach(() => {
    for (const [name, value] of [
      ["TAPSHOT_RUN_ID", saved.run],
      ["WDIO_WORKER_ID", saved.worker],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  test("the launcher's service sets TAPSHOT_RUN_ID for the workers it forks, so they share one budget", () => {
    delete process.env.TAPSHOT_RUN_ID;
    delete process.env.WDIO_WORKER_ID;
    new TapshotService({});
    expect(process.env.TAPSHOT_RUN_ID).toMatch(/^\d{4}-\d\d-\d\dT.*_\d+$/);
  });

  test("a worker's service, or a run id set by the user, leaves it alone", () => {
    delete process.env.TAPSHOT_RUN_ID;
    process.env.WDIO_WORKER_ID = "0-0";
    new TapshotService({});
    expect(process.env.TAPSHOT_RUN_ID).toBeUndefined();
    delete process.env.WDIO_WORKER_ID;
    process.env.TAPSHOT_RUN_ID = "nightly-42";
    new TapshotService({});
    expect(process.env.TAPSHOT_RUN_ID).toBe("nightly-42");
  });
});
