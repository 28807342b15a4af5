/**
 * A driver double for the device adapters: the methods of a WebdriverIO 9 `Browser` the
 * adapters call, answering with the response shapes of real Appium drivers. It is not a
 * phone: screenshots are plain PNGs of the profile's size, rendered with sharp.
 *
 * Where each shape comes from (read from the drivers' sources, snapshots of 2026-07/08):
 * - UiAutomator2 `mobile: deviceInfo`: appium-uiautomator2-server
 *   app/src/main/java/io/appium/uiautomator2/model/api/DeviceInfoModel.java and handler/GetDeviceInfo.java
 *   (`realDisplaySize` is "WxH" from Display.getRealSize, `displayDensity` an int dpi, the rest strings);
 *   appium-uiautomator2-driver lib/commands/misc.ts mobileGetDeviceInfo proxies it unchanged.
 * - `mobile: getSystemBars`: appium-android-driver lib/commands/system-bars.ts (parseWindows of
 *   `dumpsys window windows`): `{ statusBar, navigationBar }`, each `{ visible, x, y, width, height }` in pixels.
 * - `mobile: getDisplayDensity`: appium-uiautomator2-server handler/GetDisplayDensity.java (densityDpi, a number).
 * - `mobile: viewportRect`, `getWindowRect`: appium-uiautomator2-driver lib/commands/viewport.ts
 *   (`{ left: 0, top: statusBar, width, height: windowHeight - statusBar }`; window rect `{ x: 0, y: 0, width, height }`
 *   from the server's window size: see `AndroidProfile.server` for its two generations).
 * - UiAutomator2 session capabilities: appium-uiautomator2-driver lib/driver.ts getDeviceDetails and
 *   lib/uiautomator2-server/session.ts (deviceName = adb device id (Espresso too: appium-espresso-driver
 *   lib/commands/server/startup.ts), `avd` only when the driver launched the emulator, deviceUDID, pixelRatio (string, density),
 *   statBarHeight, viewportRect, deviceApiLevel, platformVersion, deviceManufacturer, deviceModel,
 *   deviceScreenSize, deviceScreenDensity); Appium returns driver capabilities without the `appium:` prefix
 *   (@appium/base-driver protocol.js unpacks createSession as `{ capabilities }`).
 * - XCUITest `mobile: deviceInfo`: WebDriverAgent WebDriverAgentLib/Commands/FBCustomCommands.m handleGetDeviceInfo
 *   (`currentLocale, timeZone, name, model, uuid, userInterfaceIdiom, userInterfaceStyle, isSimulator, thermalState`)
 *   plus `lockdownInfo` on real devices (appium-xcuitest-driver lib/commands/device-info.ts, type LockdownInfo in
 *   lib/commands/types.ts: ProductType, ProductVersion, DeviceName, HardwareModel...).
 * - `mobile: deviceScreenInfo`: WebDriverAgent FBCustomCommands.m handleGetScreen (`screenSize` (points, turned with
 *   the interface orientation; since WDA #881, 2024), `statusBarSize`, `scale`); appium-xcuitest-driver
 *   the execute-methods reference page (docs/reference/execute-methods in that repository) shows `{"statusBarSize":{"width":414,"height":48},"scale":2}`.
 * - XCUITest `getWindowRect`: WebDriverAgent FBElementCommands.m handleGetWindowRect: the active app's frame in
 *   points, which is smaller than the screen for apps not built for it (appium/appium#16185, #18675).
 * - `mobile: getCurrentPackage`: appium-android-driver lib/commands/app-management (the foreground package as a
 *   string); the Android sessions declare no `appPackage` (only `app`), so the adapter asks it. The iOS sessions
 *   declare `bundleId`, as XCUITest sessions started with one echo it; a test that drops it scripts
 *   `mobile: activeAppInfo` as appium-xcuitest-driver answers it (`{ bundleId, name, pid, processArguments }`,
 *   WebDriverAgent's active application).
 * - Unknown execute methods: @appium/base-driver lib/basedriver/commands/execute.js ("Unsupported execute method").
 * - Espresso actions: espresso-server lib/helpers/w3c/dispatcher/PointerDispatch.kt refuses a pointerMove outside
 *   (0, 0, displayMetrics.widthPixels, displayMetrics.heightPixels) of the app's context
 *   (EspressoW3CActionAdapter.kt viewportWidth/Height), and MotionEventBuilder.kt fails injections outside the app
 *   under test's window; both are MoveTargetOutOfBoundsException, W3C code "move target out of bounds".
 * - Contexts (`GET /context`, WebdriverIO `getAppiumContext`): `NATIVE_APP` or a web context such as
 *   `WEBVIEW_com.example.shop` / `CHROMIUM`, answered from the driver's state (appium-uiautomator2-driver
 *   lib/driver.ts CHROME_NO_PROXY keeps /context and /execute native while other routes go to chromedriver;
 *   appium-xcuitest-driver lib/commands/context.ts isWebContext).
 * - Page source (`GET /source`, WebdriverIO `getPageSource`): the accessibility tree as XML in the native
 *   context; in a web context UiAutomator2 proxies /source to chromedriver, which answers the document's HTML
 *   (W3C WebDriver "Get Page Source"), and XCUITest answers the remote debugger's `document.documentElement.outerHTML`
 *   (appium-xcuitest-driver lib/commands/source.ts getPageSource).
 */
import type { Browser } from "webdriverio";
import sharp from "sharp";
import type { AppiumSession } from "../../src/appium/index.js";
import { W3C_ELEMENT_KEY } from "../../src/appium/element-at.js";
import type { Rect, Size } from "../../src/core/ground/geometry.js";
import type { LoginApp } from "./login-app.js";

/** Everything a double answers; tests edit it to make commands fail or change shape. */
export interface DoubleScript {
  platform: "android" | "ios";
  /** Driver class name, for the unknown-method message. */
  driverName: string;
  capabilities: Record<string, unknown>;
  /** Size of the PNG `takeScreenshot` returns. */
  screenshot: Size;
  /** `getWindowRect()`'s answer; an Error is thrown. */
  windowRect: Rect | Error;
  /** Answers of `execute("mobile: ...")`; an Error is thrown; a missing script fails like Appium's. */
  mobile: Record<string, unknown>;
  /** Replace the screenshot's base64 (non-PNG answers). */
  screenshotBase64?: string;
  /** The session's current context; `NATIVE_APP` when not set. */
  context?: string;
  /** Height in pixels of the status bar drawn in screenshots (a clock in it); none when 0 or unset. */
  drawnStatusBar?: number;
  /** The native context's page source (XML); a web context answers {@link WEB_PAGE_SOURCE}. */
  pageSource?: string;
  /**
   * Screens still to come (an app loading): each screenshot first moves the next frame's PNG and
   * page source into `screenshotBase64` and `pageSource`, where the last one stays.
   */
  frames?: DoubleFrame[];
  /** Where pointer moves are accepted (Espresso's displayMetrics); others fail with "move target out of bounds". */
  actionBounds?: Rect;
  /**
   * Elements `$(selector)` finds, by selector: their `getElementRect` in the driver's units, measured from the
   * screen's corner as the page source's bounds are (WebDriverAgent answers the element's frame, in screen
   * coordinates, also in an iPad window, whose origin only actions start from; see {@link AppiumDriverDouble.$});
   * an Error is thrown by `getElementRect`.
   */
  elements?: Record<string, Rect | Error | Rect[]>;
  /**
   * An app under test (./login-app.ts) that answers screenshots, the page source, taps, the active
   * element, its fields by id (Find Elements), Element Clear / Send Keys, W3C Back and `mobile: pressKey`
   * (UiAutomator2) for `ai.act`.
   */
  app?: LoginApp;
}

/** One screen of {@link DoubleScript.frames}: a screenshot (base64 PNG) and the page source shown with it. */
export interface DoubleFrame {
  screenshotBase64: string;
  pageSource?: string;
}

/** A W3C error as WebdriverIO surfaces it: an Error whose name is the W3C error code. */
export function w3cError(code: string, message: string): Error {
  const error = new Error(message);
  error.name = code;
  return error;
}

const pngs = new Map<string, Promise<string>>();
/** A plain screen; with `statusBar` > 0, a status bar of that height with a dark "clock" in it, as a phone draws it. */
function screenPng({ width, height }: Size, statusBar = 0): Promise<string> {
  const key = `${width}x${height}:${statusBar}`;
  let png = pngs.get(key);
  if (!png) {
    const clock = { width: Math.min(120, width), height: Math.max(1, Math.round(statusBar / 2)) };
    const overlay = statusBar
      ? [
          {
            input: { create: { ...clock, channels: 3 as const, background: "#1c1f24" } },
            left: 0,
            top: Math.round(statusBar / 4),
          },
        ]
      : [];
    png = sharp({ create: { width, height, channels: 3, background: "#eef2f7" } })
      .composite(overlay)
      .png({ compressionLevel: 1 })
      .toBuffer()
      .then((b) => b.toString("base64"));
    pngs.set(key, png);
  }
  return png;
}

/** What a web context serves as its page source: the document's HTML. */
export const WEB_PAGE_SOURCE = "<html><head><title>Shop</title></head><body><button>Checkout</button></body></html>";

let sessions = 0;

export class AppiumDriverDouble implements AppiumSession {
  readonly sessionId = `double-session-${++sessions}`;
  /** Every command received, e.g. `execute mobile: deviceInfo`, `getWindowRect`. */
  readonly calls: string[] = [];
  /** The `performActions` payloads received. */
  readonly actions: unknown[][] = [];
  /** The arguments of each `execute` received, with its script. */
  readonly executed: { script: string; args: unknown[] }[] = [];

  constructor(public script: DoubleScript) {}

  get capabilities(): Record<string, unknown> {
    return this.script.capabilities;
  }

  get isAndroid(): boolean {
    return this.script.platform === "android";
  }

  get isIOS(): boolean {
    return this.script.platform === "ios";
  }

  async execute(script: string, ...args: unknown[]): Promise<unknown> {
    this.calls.push(`execute ${script}`);
    this.executed.push({ script, args });
    // appium-uiautomator2-driver lib/commands/keyboard.ts mobilePressKey: `{ keycode }`, an android.view.KeyEvent code.
    const app = this.script.app;
    if (app && script === "mobile: pressKey" && this.script.platform === "android") {
      app.pressKey(String((args[0] as { keycode: number }).keycode));
      return null;
    }
    if (!Object.hasOwn(this.script.mobile, script)) {
      throw w3cError(
        "unsupported operation",
        `Unsupported execute method '${script}'. Make sure the installed ${this.script.driverName} is up-to-date. ` +
          `Execute methods available in the current driver version are: ${Object.keys(this.script.mobile).join(", ")}`,
      );
    }
    const answer = this.script.mobile[script];
    if (answer instanceof Error) throw answer;
    return structuredClone(answer);
  }

  async getAppiumContext(): Promise<string> {
    this.calls.push("getAppiumContext");
    return this.script.context ?? "NATIVE_APP";
  }

  async getPageSource(): Promise<string> {
    this.calls.push("getPageSource");
    const context = this.script.context ?? "NATIVE_APP";
    if (context === "NATIVE_APP" && this.script.app) return this.script.app.pageSource();
    return context === "NATIVE_APP" ? (this.script.pageSource ?? '<hierarchy rotation="0"/>') : WEB_PAGE_SOURCE;
  }

  async getWindowRect(): Promise<Rect> {
    this.calls.push("getWindowRect");
    if (this.script.windowRect instanceof Error) throw this.script.windowRect;
    return { ...this.script.windowRect };
  }

  async takeScreenshot(): Promise<string> {
    this.calls.push("takeScreenshot");
    const app = this.script.app;
    if (app) {
      app.advance();
      return app.screenshot(this.script.screenshot, app.platform === "ios" ? this.script.screenshot.width / 393 : 1);
    }
    const frame = this.script.frames?.shift();
    if (frame) Object.assign(this.script, { pageSource: undefined }, frame);
    return this.script.screenshotBase64 ?? screenPng(this.script.screenshot, this.script.drawnStatusBar);
  }

  async performActions(actions: object[]): Promise<void> {
    this.calls.push("performActions");
    const bounds = this.script.actionBounds;
    for (const move of actions.flatMap((a) => (a as { actions: { type: string; x?: number; y?: number }[] }).actions)) {
      if (!bounds || move.type !== "pointerMove") continue;
      const { x = 0, y = 0 } = move;
      // android.graphics.Rect.contains: the right and bottom edges are outside.
      if (x < bounds.x || y < bounds.y || x >= bounds.x + bounds.width || y >= bounds.y + bounds.height) {
        throw w3cError(
          "move target out of bounds",
          `The move action target (${x}, ${y}) is out of bounds of the viewport ` +
            `Rect(${bounds.x}, ${bounds.y} - ${bounds.x + bounds.width}, ${bounds.y + bounds.height})`,
        );
      }
    }
    this.actions.push(structuredClone(actions));
    const moves = actions.flatMap((a) => (a as { actions: { type: string; x?: number; y?: number }[] }).actions);
    const pointerMoves = moves.filter((m) => m.type === "pointerMove");
    // A tap is one move then down and up; a swipe moves again while down.
    if (this.script.app && pointerMoves.length === 1)
      this.script.app.tap({ x: pointerMoves[0]!.x!, y: pointerMoves[0]!.y! });
  }

  /**
   * W3C Get Active Element: the app's focused field as an element reference; W3C "no such element"
   * when nothing has focus (appium-uiautomator2-server handler/GetActiveElement.java).
   */
  async getActiveElement(): Promise<unknown> {
    this.calls.push("getActiveElement");
    const id = this.script.app?.activeElement();
    if (!id) throw w3cError("no such element", "No element is focused");
    return { [W3C_ELEMENT_KEY]: id };
  }

  /** W3C Element Clear. */
  async elementClear(elementId: string): Promise<void> {
    this.calls.push(`elementClear ${elementId}`);
    this.script.app?.clear(elementId);
  }

  /** W3C Element Send Keys; the text is not kept in `calls`, as a test's value must not be. */
  async elementSendKeys(elementId: string, text: string): Promise<void> {
    this.calls.push(`elementSendKeys ${elementId}`);
    this.script.app?.sendKeys(elementId, text);
  }

  /**
   * `driver.$({ "element-6066-…": id })`: WebdriverIO 9 wraps an element reference without a request
   * (webdriverio build `$`: a reference object becomes the element). `addValue(text, { mask })` sends
   * Element Send Keys as WebdriverIO does (addValue.ts: `elementSendKeys(id, text, new
   * CommandRuntimeOptions(options))`); `masked` counts the sends that asked for the mask.
   */
  private elementByReference(reference: Record<string, string>) {
    const elementId = reference[W3C_ELEMENT_KEY]!;
    return {
      elementId,
      addValue: async (text: string, options?: { mask?: boolean }) => {
        if (options?.mask) this.masked++;
        await this.elementSendKeys(elementId, text);
      },
    };
  }

  /** How many Element Send Keys asked WebdriverIO to mask the text (`addValue(text, { mask: true })`). */
  masked = 0;

  /** W3C Back: Android's Back key (XCUITest answers it by navigating back in a navigation bar, not a key). */
  async back(): Promise<void> {
    this.calls.push("back");
    this.script.app?.pressKey("back");
  }

  async releaseActions(): Promise<void> {
    this.calls.push("releaseActions");
  }

  /**
   * `driver.$(selector)` as WebdriverIO 9 resolves it: an element with its `elementId`, or, when the driver
   * answers W3C "no such element", an element without one that keeps the error body in `error`
   * (webdriverio build getElement: `client.error = res`).
   */
  readonly $ = (async (selector: string | Record<string, string>) => {
    if (typeof selector === "object") return this.elementByReference(selector);
    this.calls.push(`$ ${selector}`);
    if (this.script.elements && Object.hasOwn(this.script.elements, selector)) {
      return { selector, elementId: `element-${selector}`, parent: this };
    }
    const message = `An element could not be located on the page using the given search parameters.`;
    return { selector, error: { error: "no such element", message } };
  }) as unknown as NonNullable<AppiumSession["$"]>;

  /** `driver.$$(selector)`: every element the selector finds (a list of rects in `elements` is several). */
  readonly $$ = (async (selector: string) => {
    this.calls.push(`$$ ${selector}`);
    const fields = this.script.app?.fieldsFound(selector);
    if (fields?.length) return fields.map((elementId) => ({ selector, elementId, parent: this }));
    const found = this.script.elements?.[selector];
    if (!found) return [];
    const list = Array.isArray(found) ? found : [found];
    return list.map((_, i) => ({ selector, elementId: `element-${selector}${i ? `@@${i}` : ""}`, parent: this }));
  }) as unknown as NonNullable<AppiumSession["$$"]>;

  /** W3C Get Element Rect: `{ x, y, width, height }` in the driver's units. */
  async getElementRect(elementId: string): Promise<Rect> {
    this.calls.push(`getElementRect ${elementId}`);
    const [selector, index] = elementId.slice("element-".length).split("@@");
    const found = this.script.elements?.[selector!];
    const rect = Array.isArray(found) ? found[Number(index ?? 0)] : found;
    if (!rect) throw w3cError("stale element reference", `The element '${elementId}' does not exist in DOM anymore`);
    if (rect instanceof Error) throw rect;
    return { ...rect };
  }

  /** How many times a command was received. */
  count(call: string): number {
    return this.calls.filter((c) => c === call).length;
  }
}

/** An Android phone as UiAutomator2 reports it. Sizes in pixels, portrait. */
export interface AndroidProfile {
  manufacturer: string;
  model: string;
  brand: string;
  platformVersion: string;
  apiVersion: string;
  /** Display size in pixels, portrait. */
  width: number;
  height: number;
  densityDpi: number;
  statusBar: number;
  /** Navigation bar thickness in pixels; 0 for none. */
  navigationBar: number;
  orientation: "portrait" | "landscape";
  /**
   * Which uiautomator2-server answers `getWindowRect` (handler/GetDeviceSize.java): `androidx` (2024 on,
   * androidx UiDevice.getDisplayWidth/Height(displayId): the whole display, the screenshot's size) or
   * `legacy` (android.support UiDevice.getDisplayHeight, Display.getSize: leaves out the navigation bar).
   */
  server: "androidx" | "legacy";
  /** The driver reports a window this many times smaller than the screenshot (display/compat scaling). */
  windowDownscale: number;
  /** The adb serial: UiAutomator2 and Espresso put it in `deviceName` and `deviceUDID`. */
  udid: string;
  /** The AVD the driver launched (capability `avd`, echoed in the session's capabilities). */
  avd?: string;
  /**
   * A full-screen app hides the status bar, yet `getSystemBars` reports it visible: appium-android-driver
   * lib/commands/system-bars.ts reads `visible` from the StatusBar window's view visibility, which stays VISIBLE.
   */
  immersive?: boolean;
}

export const PIXEL_7: AndroidProfile = {
  manufacturer: "Google",
  model: "Pixel 7",
  brand: "google",
  platformVersion: "14",
  apiVersion: "34",
  width: 1080,
  height: 2400,
  densityDpi: 420,
  statusBar: 118,
  navigationBar: 63,
  orientation: "portrait",
  server: "androidx",
  windowDownscale: 1,
  udid: "29211FDH3002LT",
};

/**
 * An emulator system image: Build.MODEL is `sdk_gphone64_x86_64` whatever AVD profile it runs
 * (the profile only sets the screen), and the adb serial is `emulator-<port>`.
 */
export const EMULATOR_IMAGE: Partial<AndroidProfile> = {
  manufacturer: "Google",
  model: "sdk_gphone64_x86_64",
  brand: "google",
  udid: "emulator-5554",
};

/** A UiAutomator2 session's answers for a profile. */
export function uiautomator2Script(overrides: Partial<AndroidProfile> = {}): DoubleScript {
  const p = { ...PIXEL_7, ...overrides };
  const landscape = p.orientation === "landscape";
  const shot = landscape ? { width: p.height, height: p.width } : { width: p.width, height: p.height };
  // Bars as dumpsys window frames: the status bar along the top, the navigation bar at the bottom
  // in portrait and on the right in landscape (3-button phones).
  const navigationBar = landscape
    ? {
        visible: p.navigationBar > 0,
        x: shot.width - p.navigationBar,
        y: 0,
        width: p.navigationBar,
        height: shot.height,
      }
    : {
        visible: p.navigationBar > 0,
        x: 0,
        y: shot.height - p.navigationBar,
        width: shot.width,
        height: p.navigationBar,
      };
  const statusBar = {
    visible: p.statusBar > 0,
    x: 0,
    y: 0,
    width: landscape ? shot.width - p.navigationBar : shot.width,
    height: p.statusBar,
  };
  const cut = p.server === "legacy" ? p.navigationBar : 0;
  const window = {
    x: 0,
    y: 0,
    width: Math.round((shot.width - (landscape ? cut : 0)) / p.windowDownscale),
    height: Math.round((shot.height - (landscape ? 0 : cut)) / p.windowDownscale),
  };
  const viewportRect = { left: 0, top: p.statusBar, width: window.width, height: window.height - p.statusBar };
  const realDisplaySize = `${shot.width}x${shot.height}`;
  return {
    platform: "android",
    driverName: "AndroidUiautomator2Driver",
    screenshot: shot,
    drawnStatusBar: p.immersive ? 0 : p.statusBar,
    windowRect: window,
    capabilities: {
      platformName: "Android",
      automationName: "UiAutomator2",
      deviceName: p.udid,
      deviceUDID: p.udid,
      platformVersion: p.platformVersion,
      app: "/apps/shop.apk",
      pixelRatio: String(p.densityDpi / 160),
      statBarHeight: p.statusBar,
      viewportRect,
      deviceApiLevel: Number(p.apiVersion),
      deviceManufacturer: p.manufacturer,
      deviceModel: p.model,
      deviceScreenSize: realDisplaySize,
      deviceScreenDensity: p.densityDpi,
      ...(p.avd && { avd: p.avd }),
    },
    mobile: {
      "mobile: deviceInfo": {
        androidId: "1c5f0a2b3d4e5f60",
        manufacturer: p.manufacturer,
        model: p.model,
        brand: p.brand,
        apiVersion: p.apiVersion,
        platformVersion: p.platformVersion,
        carrierName: "T-Mobile",
        realDisplaySize,
        displayDensity: p.densityDpi,
        networks: [],
        locale: "en_US",
        timeZone: "Europe/Berlin",
        bluetooth: { state: "ON" },
      },
      "mobile: getSystemBars": { statusBar, navigationBar },
      "mobile: getDisplayDensity": p.densityDpi,
      "mobile: getCurrentPackage": "com.example.shop",
      "mobile: viewportRect": viewportRect,
    },
  };
}

/**
 * An Espresso session's answers for a profile: UiAutomator2's device answers (the same Android APIs),
 * `getWindowRect` from espresso-server lib/helpers/SizeHelpers.kt getCurrentWindowRect (API 30 on: the
 * window's bounds, the whole display; before: displayMetrics), and actions only inside displayMetrics,
 * which leave out the navigation bar.
 */
export function espressoScript(overrides: Partial<AndroidProfile> = {}): DoubleScript {
  const p = { ...PIXEL_7, ...overrides };
  const script = uiautomator2Script({ ...p, server: "androidx" });
  const landscape = p.orientation === "landscape";
  script.driverName = "EspressoDriver";
  script.capabilities.automationName = "Espresso";
  script.actionBounds = {
    x: 0,
    y: 0,
    width: script.screenshot.width - (landscape ? p.navigationBar : 0),
    height: script.screenshot.height - (landscape ? 0 : p.navigationBar),
  };
  return script;
}

/** An iOS device as XCUITest / WebDriverAgent reports it. Sizes in points, portrait. */
export interface IosProfile {
  /** The simulator's name, also the `deviceName` capability. */
  name: string;
  /** `UIDevice.model`: "iPhone" or "iPad". */
  kind: "iPhone" | "iPad";
  platformVersion: string;
  widthPt: number;
  heightPt: number;
  scale: number;
  statusBarPt: number;
  orientation: "portrait" | "landscape";
  /** Real devices add `lockdownInfo` to deviceInfo. */
  realDevice?: { productType: string; productVersion: string; deviceName: string; hardwareModel: string };
  /** The app's window when it is not the whole screen, in points. */
  appWindow?: Rect;
  /** WDA before #881 (2024) has no `screenSize` in `/wda/screen`. */
  legacyScreenInfo: boolean;
}

export const IPHONE_15_PRO: IosProfile = {
  name: "iPhone 15 Pro",
  kind: "iPhone",
  platformVersion: "17.5",
  widthPt: 393,
  heightPt: 852,
  scale: 3,
  statusBarPt: 54,
  orientation: "portrait",
  legacyScreenInfo: false,
};

/** An XCUITest session's answers for a profile. */
export function xcuitestScript(overrides: Partial<IosProfile> = {}): DoubleScript {
  const p = { ...IPHONE_15_PRO, ...overrides };
  const landscape = p.orientation === "landscape";
  const pt = landscape ? { width: p.heightPt, height: p.widthPt } : { width: p.widthPt, height: p.heightPt };
  // iPhones hide the status bar in landscape; WDA then finds no status bar element (CGSizeZero).
  const statusBarSize =
    landscape && p.kind === "iPhone" ? { width: 0, height: 0 } : { width: pt.width, height: p.statusBarPt };
  const deviceInfo: Record<string, unknown> = {
    currentLocale: "en_US",
    timeZone: "Europe/Berlin",
    name: p.kind,
    model: p.kind,
    uuid: "9A5B1F0E-6C8D-4E2A-B3F7-0D1C2E3F4A5B",
    // UIUserInterfaceIdiom: phone 0, pad 1.
    userInterfaceIdiom: p.kind === "iPad" ? 1 : 0,
    userInterfaceStyle: "light",
    isSimulator: !p.realDevice,
    thermalState: 0,
  };
  if (p.realDevice) {
    deviceInfo.lockdownInfo = {
      BuildVersion: "21F90",
      DeviceClass: p.kind,
      DeviceName: p.realDevice.deviceName,
      HardwareModel: p.realDevice.hardwareModel,
      ProductName: "iPhone OS",
      ProductType: p.realDevice.productType,
      ProductVersion: p.realDevice.productVersion,
    };
  }
  const screenInfo: Record<string, unknown> = { statusBarSize, scale: p.scale };
  if (!p.legacyScreenInfo) screenInfo.screenSize = pt;
  return {
    platform: "ios",
    driverName: "XCUITestDriver",
    screenshot: { width: Math.round(pt.width * p.scale), height: Math.round(pt.height * p.scale) },
    windowRect: p.appWindow ?? { x: 0, y: 0, ...pt },
    capabilities: {
      platformName: "iOS",
      automationName: "XCUITest",
      deviceName: p.name,
      platformVersion: p.platformVersion,
      udid: p.realDevice ? "00008120-001A2B3C4D5E6F70" : "5A0B7C1D-2E3F-4A5B-8C6D-7E8F9A0B1C2D",
      bundleId: "com.example.shop",
    },
    mobile: {
      "mobile: deviceInfo": deviceInfo,
      "mobile: deviceScreenInfo": screenInfo,
      "mobile: viewportRect": {
        left: 0,
        top: Math.trunc(statusBarSize.height * p.scale),
        width: Math.trunc(pt.width * p.scale),
        height: Math.trunc(pt.height * p.scale) - Math.trunc(statusBarSize.height * p.scale),
      },
    },
  };
}

/**
 * The double as the WebdriverIO `Browser` the platform entries' types ask for: it answers the
 * Appium commands the adapters send, not the rest of WebdriverIO's API.
 */
export function asBrowser(driver: AppiumDriverDouble): Browser {
  return driver as unknown as Browser;
}
