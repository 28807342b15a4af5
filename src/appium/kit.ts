/**
 * What the Android and iOS adapters share: the slice of a WebdriverIO session they use,
 * session checks, reading capabilities, screenshots and their size, trying sources in
 * order with notes, and the W3C touch action of a tap. Platform details live in the adapters.
 */
import type { Browser } from "webdriverio";
import type { AdapterNote, DescribedDevice, DeviceAdapter, DeviceSession, Insets, Platform } from "../core/device/description.js";
import { DeviceError } from "../core/ground/errors.js";
import type { Point, Rect, Size } from "../core/ground/geometry.js";
import { imageSize } from "../core/pixels/images.js";

/** The part of a WebdriverIO 9 `Browser` (an Appium session) the adapters call. */
export type AppiumSession = Pick<
  Browser,
  "sessionId" | "isAndroid" | "isIOS" | "getWindowRect" | "takeScreenshot" | "performActions" | "releaseActions"
> & {
  /** Session capabilities as the server returned them (vendor-prefixed or not). */
  readonly capabilities: object;
  execute(script: string, ...args: unknown[]): Promise<unknown>;
  /** `GET /source`: the accessibility tree as XML (every Appium driver serves it). */
  getPageSource?(): Promise<string>;
  /** Appium's `GET /context` (`NATIVE_APP`, `WEBVIEW_<id>`, `CHROMIUM`); sessions without it are taken as native. */
  getAppiumContext?(): Promise<unknown>;
};

const SESSION_METHODS = ["execute", "getWindowRect", "takeScreenshot", "performActions", "releaseActions"] as const;

/** What a platform accepts as a session. */
export interface SessionRequirement {
  platform: Platform;
  /** Entry name for messages, e.g. `tapshot/android`. */
  entry: string;
  /** Lower-case `automationName` values the adapter drives. */
  automationNames: string[];
  /** How the supported drivers are called in messages, e.g. "UiAutomator2 or Espresso". */
  driverLabel: string;
  /** What the driver does in a web context that breaks screenshots or taps, for the error. */
  inWebContext: string;
}

/** The native context's name in every Appium driver. */
export const NATIVE_CONTEXT = "NATIVE_APP";

/**
 * Fail with a DeviceError when the session is in a web context (a hybrid app's web view, a
 * browser session): there the drivers send screenshots, window sizes or taps to the web engine.
 * Appium answers `GET /context` from the driver's own state, so the check costs no device call.
 */
export async function assertNativeContext(driver: AppiumSession, need: SessionRequirement): Promise<void> {
  const context = await webContext(driver);
  if (!context) return;
  throw new DeviceError(
    `${need.entry} works in the native context; this session is in the "${context}" context, where ` +
      `${need.inWebContext}. Switch before tapshot calls with await driver.switchContext("${NATIVE_CONTEXT}"), ` +
      `and back after with await driver.switchContext("${context}").`,
  );
}

/** The session's context when it is not the native one (a webview), else `undefined`. */
async function webContext(driver: AppiumSession): Promise<string | undefined> {
  if (typeof driver.getAppiumContext !== "function") return undefined;
  let context: unknown;
  try {
    context = await driver.getAppiumContext();
  } catch {
    return undefined; // A driver without contexts is native.
  }
  return typeof context === "string" && context && context.toUpperCase() !== NATIVE_CONTEXT ? context : undefined;
}

/**
 * The session's page source, refused in a web context: there the driver serves the web page's
 * HTML (chromedriver's or Safari's document), not the accessibility tree the heal ladder reads.
 */
async function nativePageSource(driver: AppiumSession): Promise<string> {
  const context = await webContext(driver);
  if (context)
    throw new DeviceError(`the session is in the "${context}" context, whose page source is the web page's HTML`);
  return driver.getPageSource!();
}

/**
 * Check that `driver` is a WebdriverIO session of an Appium driver for the platform;
 * throws a DeviceError that says what was found and what is expected.
 */
export function assertAppiumSession(driver: unknown, need: SessionRequirement): asserts driver is AppiumSession {
  const expected = `${need.entry} needs a WebdriverIO Browser connected to an Appium ${need.driverLabel} session`;
  if (typeof driver !== "object" || driver === null) {
    throw new DeviceError(`${expected}; got ${driver === null ? "null" : typeof driver}.`);
  }
  const session = driver as Partial<Record<string, unknown>>;
  const missing = SESSION_METHODS.filter((m) => typeof session[m] !== "function");
  if (typeof session.sessionId !== "string" || !session.sessionId || missing.length) {
    const lacks = [...(typeof session.sessionId === "string" && session.sessionId ? [] : ["sessionId"]), ...missing];
    throw new DeviceError(`${expected}; this object has no ${lacks.join(", ")}. Pass the driver/browser of your test.`);
  }
  const caps = (session.capabilities ?? {}) as object;
  const platformName = String(capability(caps, "platformName") ?? "");
  const flag = need.platform === "android" ? session.isAndroid : session.isIOS;
  const matches = flag === true || new RegExp(`^${need.platform}$`, "i").test(platformName);
  if (!matches) {
    const other = need.platform === "android" ? "tapshot/ios" : "tapshot/android";
    throw new DeviceError(
      `${expected}; this session's platformName is ${platformName ? `"${platformName}"` : "not set"}. ` +
        `Use ${other} for the other platform, and check the session's capabilities.`,
    );
  }
  const automationName = capability(caps, "automationName");
  if (typeof automationName === "string" && !need.automationNames.includes(automationName.toLowerCase())) {
    throw new DeviceError(`${expected}; this session's automationName is "${automationName}".`);
  }
}

/**
 * A capability by name, as servers return it: plain (`deviceModel`), vendor-prefixed
 * (`appium:deviceModel`) or inside `appium:options`.
 */
export function capability(capabilities: object, name: string): unknown {
  const caps = capabilities as Record<string, unknown>;
  if (caps[name] !== undefined && caps[name] !== null) return caps[name];
  const prefixed = caps[`appium:${name}`];
  if (prefixed !== undefined && prefixed !== null) return prefixed;
  const options = caps["appium:options"];
  if (options && typeof options === "object") return (options as Record<string, unknown>)[name] ?? undefined;
  return undefined;
}

/** A capability as a non-empty string, or `undefined`. */
export function textCapability(capabilities: object, name: string): string | undefined {
  return text(capability(capabilities, name));
}

/** A non-empty trimmed string, or `undefined`. */
export function text(value: unknown): string | undefined {
  if (typeof value === "number") return String(value);
  return typeof value === "string" && value.trim() ? value.trim() : undefined;
}

/** A finite positive number (numeric strings accepted), or `undefined`. */
export function positive(value: unknown): number | undefined {
  const n = typeof value === "string" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) && n > 0 ? n : undefined;
}

/** A finite non-negative number (numeric strings accepted), or `undefined`. */
export function nonNegative(value: unknown): number | undefined {
  const n = typeof value === "string" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) && n >= 0 ? n : undefined;
}

/** `{ width, height }` from an object with positive numbers there, or `undefined`. */
export function sizeOf(value: unknown): Size | undefined {
  if (!value || typeof value !== "object") return undefined;
  const { width, height } = value as { width?: unknown; height?: unknown };
  const w = positive(width);
  const h = positive(height);
  return w && h ? { width: w, height: h } : undefined;
}

/** Parse `"1080x2400"` (the Android `realDisplaySize` format). */
export function parseSizeText(value: unknown): Size | undefined {
  const match = typeof value === "string" ? /^\s*(\d+)\s*x\s*(\d+)\s*$/i.exec(value) : null;
  return match ? sizeOf({ width: Number(match[1]), height: Number(match[2]) }) : undefined;
}

/** A size turned to the orientation of `like` (drivers may report the natural orientation). */
export function turnTo(size: Size, like: Size): Size {
  const landscape = like.width > like.height;
  return size.width > size.height === landscape || size.width === size.height
    ? size
    : { width: size.height, height: size.width };
}

/**
 * A `getWindowRect()` answer as a rectangle, or `undefined` when it has no size. A window at the
 * screen's corner is turned like the screenshot (drivers may report the natural orientation); one
 * placed elsewhere (iPad Split View) keeps its shape.
 */
export function windowRect(value: unknown, shot: Size): Rect | undefined {
  const size = sizeOf(value);
  if (!size) return undefined;
  const { x: rawX, y: rawY } = value as { x?: unknown; y?: unknown };
  const x = nonNegative(rawX) ?? 0;
  const y = nonNegative(rawY) ?? 0;
  return { x, y, ...(x === 0 && y === 0 ? turnTo(size, shot) : size) };
}

/** The message of a thrown value, on one line and short. */
export function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.split("\n")[0] ?? "";
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

/** One place a value can be read from. `read` returns `undefined` when the source has no usable value. */
export interface Source<T> {
  /** Shown in notes, e.g. "mobile: deviceInfo" or "capability deviceModel". */
  name: string;
  read: () => T | undefined | Promise<T | undefined>;
  /** Having no value here is normal (e.g. real-device-only fields): not worth a note. Errors still are. */
  quiet?: boolean;
}

/** The value that was read and where from. */
export interface Found<T> {
  value: T;
  source: string;
}

/**
 * Try sources in order; return the first usable value. When the first source did not
 * give one, note what failed and which source was used instead, or, when none did,
 * what failed and `fallback` (what the adapter does instead).
 */
export async function firstOf<T>(
  what: string,
  sources: Source<T>[],
  note: AdapterNote,
  fallback: string,
): Promise<Found<T> | undefined> {
  const failures: string[] = [];
  for (const source of sources) {
    try {
      const value = await source.read();
      if (value !== undefined) {
        if (failures.length) note(`${what}: ${failures.join("; ")}; used ${source.name}`);
        return { value, source: source.name };
      }
      if (!source.quiet) failures.push(`${source.name} had none`);
    } catch (error) {
      failures.push(`${source.name} failed (${reason(error)})`);
    }
  }
  note(`${what}: ${failures.join("; ") || "no source"}; ${fallback}`);
  return undefined;
}

/**
 * Run one driver command at most once per describe: several values come from the same
 * response (`mobile: deviceInfo`), and a failing command should fail (and be noted) once.
 */
export function once<T>(run: () => Promise<T>): () => Promise<T> {
  let result: Promise<T> | undefined;
  return () => (result ??= run());
}

/** `driver.execute(script)` for `mobile:` commands, answering an object or `undefined`. */
export async function mobileObject(driver: AppiumSession, script: string): Promise<Record<string, unknown>> {
  const value = await driver.execute(script);
  if (!value || typeof value !== "object") {
    throw new Error(`${script} answered ${JSON.stringify(value)}, not an object`);
  }
  return value as Record<string, unknown>;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The session's screenshot as PNG bytes; throws a DeviceError when it is not a PNG. */
export async function takePng(driver: AppiumSession): Promise<Buffer> {
  let base64: string;
  try {
    base64 = await driver.takeScreenshot();
  } catch (error) {
    throw new DeviceError(`The session did not give a screenshot: ${reason(error)}`, { cause: error });
  }
  const png = Buffer.from(typeof base64 === "string" ? base64 : "", "base64");
  if (png.length < 24 || !png.subarray(0, 8).equals(PNG_SIGNATURE)) {
    throw new DeviceError(
      `The session's screenshot is not a PNG (${png.length} bytes). tapshot needs the driver's ` +
        `takeScreenshot() to return a base64 PNG of the whole screen.`,
    );
  }
  return png;
}

/** Width and height of a screenshot in pixels, from its header. */
export async function screenshotSize(png: Buffer): Promise<Size> {
  return imageSize(png);
}

/** Round a scale to 4 decimals, snapping to a whole number within 0.2%. */
export function tidyScale(scale: number): number {
  const whole = Math.round(scale);
  if (whole > 0 && Math.abs(scale - whole) / whole < 0.002) return whole;
  return Math.round(scale * 10_000) / 10_000;
}

/** Whether two scales agree within 1%. */
export function sameScale(a: number, b: number): boolean {
  return Math.abs(a - b) / Math.max(a, b) < 0.01;
}

/** Whole, non-negative insets, none larger than half the screen along its axis. */
export function tidyInsets(insets: Insets, screen: Size): Insets {
  const clamp = (v: number, max: number) => Math.min(Math.max(0, Math.round(v)), Math.floor(max / 2));
  return {
    top: clamp(insets.top, screen.height),
    bottom: clamp(insets.bottom, screen.height),
    left: clamp(insets.left, screen.width),
    right: clamp(insets.right, screen.width),
  };
}

/** `portrait` unless the screenshot is wider than tall. */
export function orientationOf(screen: Size): "portrait" | "landscape" {
  return screen.width > screen.height ? "landscape" : "portrait";
}

/** How long the finger stays down in a tap. */
export const TAP_HOLD_MS = 50;

/** A tap as W3C actions: one touch pointer moved to (x, y) in the viewport, pressed, held, released. */
export function tapActions(x: number, y: number) {
  return [
    {
      type: "pointer",
      id: "finger1",
      parameters: { pointerType: "touch" },
      actions: [
        { type: "pointerMove", duration: 0, origin: "viewport", x, y },
        { type: "pointerDown", button: 0 },
        { type: "pause", duration: TAP_HOLD_MS },
        { type: "pointerUp", button: 0 },
      ],
    },
  ];
}

/**
 * Hold before the move starts and after it ends. The pause before release stops the finger, so
 * the platform's velocity tracker sees no speed at release and the list does not fling on
 * (Android's VelocityTracker and UIKit's scroll views both take the velocity of the last moves).
 */
export const SWIPE_HOLD_MS = 200;

/**
 * A swipe as W3C actions, in tap units of the viewport: press at `from`, hold, move to `to`
 * over `durationMs` (the driver interpolates the moves), hold, release. UiAutomator2 and
 * XCUITest both take W3C pointer actions, as WebdriverIO 9's `swipe` sends them.
 */
export function swipeActions(from: Point, to: Point, durationMs: number) {
  return [
    {
      type: "pointer",
      id: "finger1",
      parameters: { pointerType: "touch" },
      actions: [
        { type: "pointerMove", duration: 0, origin: "viewport", x: from.x, y: from.y },
        { type: "pointerDown", button: 0 },
        { type: "pause", duration: SWIPE_HOLD_MS },
        { type: "pointerMove", duration: durationMs, origin: "viewport", x: to.x, y: to.y },
        { type: "pause", duration: SWIPE_HOLD_MS },
        { type: "pointerUp", button: 0 },
      ],
    },
  ];
}

/** Send a swipe between points in tap units, then release the input state. */
export async function performSwipe(driver: AppiumSession, from: Point, to: Point, durationMs: number): Promise<void> {
  try {
    await driver.performActions(swipeActions(from, to, durationMs));
  } catch (error) {
    throw new DeviceError(`The swipe from (${from.x}, ${from.y}) to (${to.x}, ${to.y}) failed: ${reason(error)}`, {
      cause: error,
    });
  }
  try {
    await driver.releaseActions();
  } catch {
    // As after a tap: the swipe went through.
  }
}

/** Convert a point in screenshot pixels to whole tap units inside `bounds` (tap units). */
export function toTapUnits(point: Point, scale: number, bounds: Rect): Point {
  const clamp = (v: number, from: number, size: number) =>
    Math.min(Math.max(Math.round(v), Math.ceil(from)), Math.ceil(from) + Math.max(0, Math.floor(size) - 1));
  return { x: clamp(point.x / scale, bounds.x, bounds.width), y: clamp(point.y / scale, bounds.y, bounds.height) };
}

/** Send a tap at a point in tap units, then release the input state. */
export async function performTap(driver: AppiumSession, at: Point): Promise<void> {
  try {
    await driver.performActions(tapActions(at.x, at.y));
  } catch (error) {
    // W3C "move target out of bounds": Espresso refuses points outside the app's displayMetrics or window.
    const outside = error instanceof Error && error.name === "move target out of bounds";
    throw new DeviceError(
      `The tap at (${at.x}, ${at.y}) failed: ${reason(error)}` +
        (outside
          ? ". The driver accepts taps only inside the app under test's window (not on system bars or other " +
            "windows): the stored point lies outside it on this device; learn the tap again here"
          : ""),
      { cause: error },
    );
  }
  try {
    await driver.releaseActions();
  } catch {
    // The tap went through; a driver that cannot release leaves no pressed pointer behind here.
  }
}

/** What a platform's describe returns: the description and where taps may land (tap units). */
export interface Reading {
  device: DescribedDevice;
  /** Where taps may land, in tap units measured from the screen's corner. */
  tapBounds: Rect;
  /**
   * Where the driver measures tap coordinates from, in tap units: the app window's origin on
   * iOS (iPad Split View, Slide Over, Stage Manager). Taps outside `tapWindow` fail. Default (0, 0).
   */
  tapOrigin?: Point;
  /** The part of the screen taps can reach, when smaller than `tapBounds` (the app's window). */
  tapWindow?: Rect;
  /** Why taps cannot leave `tapWindow` and what to do, for the error. */
  tapWindowHint?: string;
}

/** A point in tap units (from the screen's corner) as the driver takes it: measured from `reading.tapOrigin`. */
export function fromTapOrigin(at: Point, reading: Pick<Reading, "tapOrigin" | "tapWindow" | "tapWindowHint">): Point {
  const window = reading.tapWindow;
  const inside = (r: Rect) => at.x >= r.x && at.y >= r.y && at.x < r.x + r.width && at.y < r.y + r.height;
  if (window && !inside(window)) {
    throw new DeviceError(
      `The tap at (${at.x}, ${at.y}) lies outside the app's window (${window.width}x${window.height} at ` +
        `${window.x},${window.y}), where the driver does not tap: ${reading.tapWindowHint ?? "it taps only inside the app under test"}.`,
    );
  }
  const origin = reading.tapOrigin ?? { x: 0, y: 0 };
  return { x: at.x - origin.x, y: at.y - origin.y };
}

/**
 * A DeviceAdapter over Appium sessions of one platform: session checks, PNG screenshots, and
 * taps converted to tap units with the device's scale and clamped into the bounds `describe` read.
 */
export function appiumAdapter(
  need: SessionRequirement,
  describe: (driver: AppiumSession, note: AdapterNote) => Promise<Reading>,
): DeviceAdapter {
  return {
    platform: need.platform,
    open(driver): DeviceSession {
      assertAppiumSession(driver, need);
      // What the last describe read; a tap uses the bounds read for the device it was given.
      let last: Reading | undefined;
      return {
        // The context is checked when the session is described (once, and again when the screenshot's
        // size changes, as it does when a web context's screenshots start) and before every tap.
        async describe(note) {
          await assertNativeContext(driver, need);
          last = await describe(driver, note);
          return last.device;
        },
        screenshot: () => takePng(driver),
        ...(typeof driver.getPageSource === "function" ? { pageSource: () => nativePageSource(driver) } : {}),
        async tap(point) {
          if (!last) throw new DeviceError("tap before describe: the engine describes a session before it taps.");
          await assertNativeContext(driver, need);
          await performTap(driver, fromTapOrigin(toTapUnits(point, last.device.scale, last.tapBounds), last));
        },
        async swipe({ from, to, durationMs }) {
          if (!last) throw new DeviceError("swipe before describe: the engine describes a session before it swipes.");
          await assertNativeContext(driver, need);
          const units = (p: Point) => fromTapOrigin(toTapUnits(p, last!.device.scale, last!.tapBounds), last!);
          await performSwipe(driver, units(from), units(to), durationMs);
        },
      };
    },
  };
}
