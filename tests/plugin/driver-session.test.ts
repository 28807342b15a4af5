/**
 * The plugin's session over an Appium driver object, for the native drivers this repository
 * cannot run: an object shaped like an appium-uiautomator2-driver instance, whose own methods
 * answer from the Android driver double (tests/support/appium-driver-double.ts, shapes and
 * sources there) and whose routing is UiAutomator2's:
 * - `proxyActive()` is always true (appium-uiautomator2-driver lib/driver.ts `proxyActive`);
 * - its NO_PROXY list (same file) keeps GET /screenshot, GET /window/rect, POST and DELETE
 *   /actions, POST /execute/sync and GET /context on the driver; GET /source is proxied;
 * - `proxyRouteIsAvoided` matches that list against the URL without the base path, as
 *   @appium/base-driver's basedriver/core.js does.
 * The end-to-end path through a real server (Chromium, all proxied) is tests/plugin/plugin.test.ts.
 * Find Element (POST /element, /elements) and Get Element Rect are proxied to the UiAutomator2 server
 * (not on that list), whose double answers W3C element references and "no such element" as the
 * server does (io.appium.uiautomator2 FindElement: `{ ELEMENT, element-6066-… }`).
 * Through the plugin class as Appium calls it: one AI budget per session, a re-sent failed command,
 * selector masks of `tapshot: matchScreenshot` and the selector of `tapshot: satisfy`. `ai.act`'s
 * typing (src/appium/typing.ts) goes through the same routing.
 */
import { androidAdapter } from "../../src/android/adapter.js";
import { DeviceError } from "../../src/core/ground/errors.js";
import { sessionOf, type AppiumDriver } from "../../src/plugin/driver-session.js";
import { typeIntoFocused } from "../../src/appium/typing.js";
import { W3C_ELEMENT_KEY } from "../../src/appium/element-at.js";
import { AppiumDriverDouble, uiautomator2Script, PIXEL_7, w3cError } from "../support/appium-driver-double.js";
import sharp from "sharp";
import { engineSessions } from "../support/engine-sessions.js";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resetConfig, setConfig } from "../../src/core/config/config.js";
import { resetClaims } from "../../src/core/run/budget.js";
import {
  ACT_SCRIPT,
  MATCH_SCREENSHOT_SCRIPT,
  SATISFY_SCRIPT,
  TAP_SCRIPT,
  TapshotPlugin,
} from "../../src/plugin/plugin.js";
import { LoginApp } from "../support/login-app.js";
import { SCRIPTED_MODEL, ScriptedChannel } from "../support/scripted-channel.js";

const NO_PROXY: [string, RegExp][] = [
  ["DELETE", /^\/session\/[^/]+\/actions/],
  ["GET", /^\/session\/[^/]+\/context/],
  ["GET", /^\/session\/[^/]+\/screenshot/],
  ["GET", /^\/session\/[^/]+\/window\/rect/],
  ["POST", /^\/session\/[^/]+\/actions/],
  ["POST", /^\/session\/[^/]+\/execute\/sync/],
];

const W3C_ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

/**
 * The UiAutomator2 server's element routes over the double's `elements` (keyed by WebdriverIO
 * selector: `~x` is accessibility id x, `id=x` is id x); `undefined` for another route.
 */
async function uiautomator2Elements(double: AppiumDriverDouble, path: string, method: string, body?: unknown) {
  const reference = (id: string) => ({ ELEMENT: id, [W3C_ELEMENT]: id });
  const locator = (body ?? {}) as { using?: string; value?: string };
  const key =
    locator.using === "accessibility id" ? `~${locator.value}` : locator.using === "id" ? `id=${locator.value}` : "";
  if (method === "POST" && path === "/element") {
    const found = (await double.$!(key)) as unknown as { elementId?: string };
    if (!found.elementId) {
      throw w3cError(
        "no such element",
        "An element could not be located on the page using the given search parameters.",
      );
    }
    return reference(found.elementId);
  }
  if (method === "POST" && path === "/elements") {
    const found = (await double.$$!(key)) as unknown as { elementId: string }[];
    return found.map((e) => reference(e.elementId));
  }
  const rect = /^\/element\/([^/]+)\/rect$/.exec(path);
  if (method === "GET" && rect) return double.getElementRect(decodeURIComponent(rect[1]!));
  // ai.act's typing: Get Active Element, Element Clear and Element Send Keys ({ text }).
  if (method === "GET" && path === "/element/active") return double.getActiveElement();
  const typing = /^\/element\/([^/]+)\/(clear|value)$/.exec(path);
  if (method === "POST" && typing) {
    const id = decodeURIComponent(typing[1]!);
    if (typing[2] === "clear") await double.elementClear(id);
    else await double.elementSendKeys(id, (body as { text: string }).text);
    return null;
  }
  return undefined;
}

/** A UiAutomator2-shaped driver object over the double; `proxied` lists what went to the server. */
function uiautomator2Driver(double: AppiumDriverDouble, sessionId = "appium-session-1") {
  const proxied: string[] = [];
  const driver = {
    sessionId,
    basePath: "",
    // What the driver keeps: the requested capabilities, not the device details it adds to its answer.
    caps: { platformName: "Android", automationName: "UiAutomator2", deviceName: "Pixel 7" },
    opts: { udid: PIXEL_7.udid },
    proxyActive: () => true,
    proxyRouteIsAvoided: (_id: string, method: string, url: string) =>
      NO_PROXY.some(([m, path]) => m === method && path.test(url)),
    async proxyCommand(url: string, method: string, body?: unknown) {
      proxied.push(`${method} ${url}${body ? ` ${JSON.stringify(body)}` : ""}`);
      if (method === "GET" && url === `/session/${sessionId}/source`) return double.getPageSource();
      const found = await uiautomator2Elements(double, url.slice(`/session/${sessionId}`.length), method, body);
      if (found !== undefined) return found;
      throw new Error(`the UiAutomator2 server double serves no ${method} ${url}`);
    },
    getScreenshot: () => double.takeScreenshot(),
    getWindowRect: () => double.getWindowRect(),
    performActions: (actions: object[]) => double.performActions(actions),
    releaseActions: () => double.releaseActions(),
    execute: (script: string) => double.execute(script),
    getCurrentContext: () => double.getAppiumContext(),
  } satisfies AppiumDriver;
  return { driver, proxied };
}

test("the Android adapter describes a UiAutomator2 session through the driver object as through WebdriverIO", async () => {
  const script = uiautomator2Script();
  const viaWdio = await engineSessions(androidAdapter).describe(new AppiumDriverDouble(script), () => {});
  const double = new AppiumDriverDouble(script);
  const { driver, proxied } = uiautomator2Driver(double);
  const viaPlugin = await engineSessions(androidAdapter).describe(sessionOf(driver), () => {});
  expect(viaPlugin).toEqual(viaWdio);
  // The driver kept no deviceModel: the model came from mobile: deviceInfo, a driver method, not the proxy.
  expect(double.count("execute mobile: deviceInfo")).toBe(1);
  expect(proxied).toEqual([]);
});

test("a tap goes to the driver's own performActions; the page source goes through its proxy", async () => {
  const double = new AppiumDriverDouble(uiautomator2Script());
  const { driver, proxied } = uiautomator2Driver(double);
  const session = sessionOf(driver);
  expect(sessionOf(driver)).toBe(session); // one session object per driver object, as the engine keys devices

  const opened = androidAdapter.open(session);
  await opened.describe(() => {});
  await opened.tap({ x: 540, y: 1200 });
  expect(double.actions).toHaveLength(1);
  expect(await opened.pageSource!()).toContain("hierarchy");
  expect(proxied).toEqual(["GET /session/appium-session-1/source"]);
  expect(double.count("getAppiumContext")).toBeGreaterThan(0);
});

test("the device serial the driver chose is a capability, unless the session asked for one", () => {
  const double = new AppiumDriverDouble(uiautomator2Script());
  const { driver } = uiautomator2Driver(double);
  expect(sessionOf(driver).capabilities).toMatchObject({ udid: PIXEL_7.udid, deviceName: "Pixel 7" });
  const asked = { ...driver, caps: { ...driver.caps, udid: "emulator-5556" } };
  expect(sessionOf(asked).capabilities).toMatchObject({ udid: "emulator-5556" });
});

test("a route the driver neither proxies nor serves is a DeviceError naming it", async () => {
  const driver: AppiumDriver = { sessionId: "s", caps: { platformName: "Android" } };
  await expect(sessionOf(driver).takeScreenshot()).rejects.toThrow(
    new DeviceError(
      "This Appium driver neither proxies GET /screenshot nor has a getScreenshot method, which tapshot needs; " +
        "update the driver, or check that it is a UiAutomator2, Espresso, XCUITest or Chromium driver.",
    ),
  );
  const ended: AppiumDriver = { sessionId: null };
  await expect(sessionOf(ended).getWindowRect()).rejects.toThrow(/The Appium session has ended/);
});

test("ai.act's typing: active element, clear and send keys through the proxy, or the driver's own commands", async () => {
  // UiAutomator2 answers Get Active Element with both reference keys (io.appium.uiautomator2 Element JSON).
  const reference = { ELEMENT: "el-7", [W3C_ELEMENT]: "el-7" };
  const proxied: string[] = [];
  const proxying: AppiumDriver = {
    sessionId: "s-proxy",
    caps: { platformName: "Android", automationName: "UiAutomator2" },
    proxyActive: () => true,
    proxyRouteIsAvoided: () => false,
    async proxyCommand(url: string, method: string, body?: unknown) {
      proxied.push(`${method} ${url} ${JSON.stringify(body ?? null)}`);
      return url.endsWith("/element/active") ? reference : null;
    },
  };
  await typeIntoFocused(sessionOf(proxying), "typed-value");
  expect(proxied).toEqual([
    "GET /session/s-proxy/element/active null",
    "POST /session/s-proxy/element/el-7/clear {}",
    'POST /session/s-proxy/element/el-7/value {"text":"typed-value"}',
  ]);

  // A driver that keeps the routes: base-driver's commands active, clear, setValue(text, elementId) and back.
  const own: string[] = [];
  const keeping: AppiumDriver = {
    sessionId: "s-own",
    caps: { platformName: "Android" },
    active: async () => reference,
    clear: async (id: string) => own.push(`clear ${id}`),
    setValue: async (text: string, id: string) => own.push(`setValue ${text} ${id}`),
    back: async () => own.push("back"),
  };
  await typeIntoFocused(sessionOf(keeping), "typed-value");
  await sessionOf(keeping).back!();
  expect(own).toEqual(["clear el-7", "setValue typed-value el-7", "back"]);
});

describe("through the plugin class, as Appium calls it", () => {
  let root: string;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), "tapshot-plugin-class-"));
  });
  afterEach(async () => {
    resetConfig();
    resetClaims();
    await rm(root, { recursive: true, force: true });
  });

  /** The server's configuration with a scripted model that finds a box in the middle of the screen. */
  function configure(maxAiCalls: number) {
    const channel = new ScriptedChannel({
      locate: () => ({
        found: true,
        box: { x: 400, y: 1100, width: 280, height: 200 },
        reason: "scripted",
        model: SCRIPTED_MODEL,
      }),
    });
    setConfig({
      channel,
      storageDir: join(root, "storage"),
      resultsDir: join(root, "results"),
      log: false,
      maxAiCalls,
    });
    return channel;
  }

  const next = async () => {
    throw new Error("the plugin answers its own scripts");
  };
  const tap = (plugin: TapshotPlugin, driver: AppiumDriver, prompt: string) =>
    plugin.execute(next, driver, TAP_SCRIPT, [{ prompt, timeout: 5000 }]).catch((e: unknown) => e);

  test("each Appium session has its own maxAiCalls budget", async () => {
    const channel = configure(1);
    const plugin = new TapshotPlugin("tapshot", {});
    const first = uiautomator2Driver(new AppiumDriverDouble(uiautomator2Script()), "session-a").driver;
    const second = uiautomator2Driver(new AppiumDriverDouble(uiautomator2Script()), "session-b").driver;
    expect(await tap(plugin, first, "the checkout button")).toMatchObject({ outcome: "learned" });
    // A second session on the same server: its own budget, not what is left of the first's.
    expect(await tap(plugin, second, "the cart icon")).toMatchObject({ outcome: "learned" });
    const spent = await tap(plugin, first, "the header");
    expect(spent).toMatchObject({ error: "unknown error" });
    expect((spent as Error).message).toMatch(/AI budget is spent: maxAiCalls is 1 .*counted for this device session/);
    expect(channel.count()).toBe(2);
  });

  test("tapshot: matchScreenshot masks a selector through the driver's find-element and rect commands", async () => {
    const channel = new ScriptedChannel({ judge: () => ({ accept: true, reason: "scripted", model: SCRIPTED_MODEL }) });
    setConfig({ channel, storageDir: join(root, "storage"), resultsDir: join(root, "results"), log: false });
    const plugin = new TapshotPlugin("tapshot", {});
    const double = new AppiumDriverDouble(uiautomator2Script());
    double.script.elements = { "~price": { x: 100, y: 900, width: 400, height: 200 } };
    await drawCart(double);
    const { driver, proxied } = uiautomator2Driver(double, "session-mask");
    const params = { name: "cart", prompt: "the cart", mask: [{ selector: "~price" }], timeout: 10_000 };
    const learned = await plugin.execute(next, driver, MATCH_SCREENSHOT_SCRIPT, [params]);
    expect(learned).toMatchObject({ outcome: "stored", aiCalls: 1 });
    expect(proxied).toContain('POST /session/session-mask/element {"using":"accessibility id","value":"price"}');
    expect(proxied).toContain("GET /session/session-mask/element/element-~price/rect");

    // The price changes inside its rect: masked, so the baseline still matches, without the model.
    double.script.screenshotBase64 = await paint(await double.takeScreenshot(), {
      x: 150,
      y: 950,
      width: 300,
      height: 100,
    });
    expect(await plugin.execute(next, driver, MATCH_SCREENSHOT_SCRIPT, [params])).toMatchObject({
      outcome: "matched",
      diffPixels: 0,
    });
    // The same change without the mask is a mismatch.
    const unmasked = await plugin
      .execute(next, driver, MATCH_SCREENSHOT_SCRIPT, [{ ...params, mask: undefined, timeout: 3000 }])
      .catch((e: unknown) => e);
    expect(unmasked).toMatchObject({ error: "unknown error" });
    expect(channel.count()).toBe(1);
  });

  test("tapshot: satisfy with a selector judges the element the driver finds; several matches are refused", async () => {
    const channel = new ScriptedChannel({
      satisfy: () => ({ probability: 0.95, reason: "scripted", model: SCRIPTED_MODEL }),
    });
    setConfig({ channel, storageDir: join(root, "storage"), resultsDir: join(root, "results"), log: false });
    const plugin = new TapshotPlugin("tapshot", {});
    const double = new AppiumDriverDouble(uiautomator2Script());
    double.script.elements = {
      "id=com.shop:id/total": { x: 100, y: 900, width: 400, height: 200 },
      "~row": [
        { x: 0, y: 300, width: 1080, height: 100 },
        { x: 0, y: 400, width: 1080, height: 100 },
      ],
    };
    await drawCart(double);
    const { driver, proxied } = uiautomator2Driver(double, "session-satisfy");
    const judged = await plugin.execute(next, driver, SATISFY_SCRIPT, [
      { statement: "the total is shown", selector: "id=com.shop:id/total", timeout: 10_000 },
    ]);
    expect(judged).toMatchObject({ outcome: "learned", probability: 0.95, model: SCRIPTED_MODEL, aiCalls: 1 });
    expect(proxied).toContain('POST /session/session-satisfy/elements {"using":"id","value":"com.shop:id/total"}');

    const several = await plugin
      .execute(next, driver, SATISFY_SCRIPT, [{ statement: "a row is shown", selector: "~row", timeout: 10_000 }])
      .catch((e: unknown) => e);
    expect(several).toMatchObject({ error: "invalid argument" });
    expect((several as Error).message).toMatch(/~row/);
    expect(channel.count()).toBe(1);
  });

  test("tapshot: act learns a sign-in on the login app, then replays it; the answer holds no value", async () => {
    const values = { email: "plugin.act@example.test", password: "plugin-Pw-55x!" };
    const controls = (r: { controls: { id: string; role: string; label: string; holds?: string }[] }) => r.controls;
    const channel = new ScriptedChannel({
      decide: (r) => {
        const field = controls(r).find((c) => c.role === "field" && c.holds === "(empty)");
        const name = field && (/email/i.test(field.label) ? "email" : "password");
        const submit = controls(r).find((c) => c.role === "button" && /sign in/i.test(c.label));
        const choice = field
          ? { action: "fill" as const, control: field.id, value: name }
          : { action: "tap" as const, control: submit?.id };
        return { choices: [{ ...choice, probability: 0.95 }], reason: "scripted", model: SCRIPTED_MODEL };
      },
      complete: (r) => ({
        probability: controls(r).some((c) => c.label === "Continue") ? 0.97 : 0.1,
        reason: "scripted",
        model: SCRIPTED_MODEL,
      }),
    });
    setConfig({ channel, storageDir: join(root, "storage"), resultsDir: join(root, "results"), log: false });
    const plugin = new TapshotPlugin("tapshot", {});
    const app = new LoginApp("android");
    const script = uiautomator2Script();
    script.app = app;
    const { driver, proxied } = uiautomator2Driver(new AppiumDriverDouble(script), "session-act");
    const learned = await plugin.execute(next, driver, ACT_SCRIPT, [{ goal: "sign in", values, timeout: 20_000 }]);
    expect(learned).toMatchObject({ outcome: "learned", aiCalls: channel.count() });
    expect(app.signedIn).toMatchObject(values);
    // Typed verbatim through the UiAutomator2 server's Element Send Keys route, the one place a value goes.
    const typed = proxied.filter((p) => / \/session\/session-act\/element\/[^/]+\/value /.test(p));
    expect(typed.map((p) => JSON.parse(p.slice(p.indexOf("{"))))).toEqual([
      { text: values.email },
      { text: values.password },
    ]);

    Object.assign(app, { screen: "form", email: "", password: "", signedIn: undefined });
    const calls = channel.count();
    const replayed = await plugin.execute(next, driver, ACT_SCRIPT, [{ goal: "sign in", values, timeout: 20_000 }]);
    expect(replayed).toMatchObject({ outcome: "replayed", aiCalls: 0 });
    expect(Object.keys(replayed as object).sort()).toEqual(["aiCalls", "history", "outcome", "steps"]);
    expect(channel.count()).toBe(calls);
    expect(app.signedIn).toMatchObject(values);
    for (const value of Object.values(values)) {
      expect(JSON.stringify([learned, replayed, channel.requests])).not.toContain(value);
    }
  });

  test("a re-sent copy of a failed command gets the same error and does not run again", async () => {
    const channel = configure(0);
    const plugin = new TapshotPlugin("tapshot", {});
    const double = new AppiumDriverDouble(uiautomator2Script());
    const { driver } = uiautomator2Driver(double, "session-c");
    const failed = await tap(plugin, driver, "the checkout button");
    expect(failed).toMatchObject({ error: "unknown error" });
    const screenshots = double.count("takeScreenshot");
    expect(screenshots).toBeGreaterThan(0);
    // WebdriverIO's 3 re-sends of the same command: answered from memory, the device untouched.
    for (let n = 0; n < 3; n++) expect(await tap(plugin, driver, "the checkout button")).toBe(failed);
    expect(double.count("takeScreenshot")).toBe(screenshots);
    // Another command runs.
    expect(await tap(plugin, driver, "the header")).toMatchObject({ error: "unknown error" });
    expect(double.count("takeScreenshot")).toBeGreaterThan(screenshots);
    expect(channel.count()).toBe(0);
  });
});

/** A screen with a header bar and, in the element at (100, 900, 400x200), a price box. */
async function drawCart(double: AppiumDriverDouble): Promise<void> {
  const header = await paint(await double.takeScreenshot(), { x: 60, y: 300, width: 600, height: 80 });
  double.script.screenshotBase64 = await paint(header, { x: 140, y: 940, width: 200, height: 60 });
}

/** A base64 PNG with a black box painted over `box`. */
async function paint(base64: string, box: { x: number; y: number; width: number; height: number }): Promise<string> {
  const patch = await sharp({
    create: { width: box.width, height: box.height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 1 } },
  })
    .png()
    .toBuffer();
  const png = await sharp(Buffer.from(base64, "base64"))
    .composite([{ input: patch, left: box.x, top: box.y }])
    .png()
    .toBuffer();
  return png.toString("base64");
}

test("a value the plugin types is proxied marked sensitive, so Appium's log masks its body", async () => {
  // Appium's own logger (@appium/logger), as base-driver's proxy logs a body: `markSensitive(body)`.
  type AppiumLogger = {
    asyncStorage: { getStore(): Record<string, unknown> | undefined };
    record: { message: string }[];
    info(prefix: string, format: string, ...args: unknown[]): void;
  };
  const loaded = (await import("@appium/logger")) as unknown as {
    log?: AppiumLogger;
    markSensitive?: (value: unknown) => unknown;
    default: { log: AppiumLogger; markSensitive: (value: unknown) => unknown };
  };
  const appiumLog = loaded.log ?? loaded.default.log;
  const markSensitive = loaded.markSensitive ?? loaded.default.markSensitive;
  const sensitive: Record<string, boolean> = {};
  const proxying: AppiumDriver = {
    sessionId: "s-sensitive",
    caps: { platformName: "Android", automationName: "UiAutomator2" },
    proxyActive: () => true,
    proxyRouteIsAvoided: () => false,
    async proxyCommand(url: string, _method: string, body?: unknown) {
      sensitive[url.split("/").at(-1)!] = appiumLog.asyncStorage.getStore()?.isSensitive === true;
      appiumLog.info("Chromedriver", "Proxying [%s] with body: %s", url, markSensitive(JSON.stringify(body ?? null)));
      return url.endsWith("/element/active") ? { [W3C_ELEMENT_KEY]: "el-9" } : null;
    },
  };
  await typeIntoFocused(sessionOf(proxying), "plugin-typed-secret-31");
  expect(sensitive).toEqual({ active: false, clear: false, value: true });
  const lines = appiumLog.record.map((r) => r.message).filter((m) => m.includes("s-sensitive"));
  expect(lines.find((m) => m.endsWith("/value] with body: **SECURE**"))).toBeDefined();
  expect(lines.join("\n")).not.toContain("plugin-typed-secret-31");
});
