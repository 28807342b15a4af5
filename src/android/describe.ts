/**
 * Reads an Android device (UiAutomator2 or Espresso session) into a DeviceDescription.
 * Every value has an ordered list of sources; a failing or unknown command falls through
 * to the next one with a note. Geometry follows the screenshot the describe takes.
 */
import type { AdapterNote, IdentityHints, Insets } from "../core/device/description.js";
import {
  firstOf,
  mobileObject,
  nonNegative,
  once,
  orientationOf,
  parseSizeText,
  positive,
  sameScale,
  screenshotSize,
  takePng,
  text,
  textCapability,
  capability,
  tidyInsets,
  tidyScale,
  turnTo,
  windowRect,
  type AppiumSession,
  type Found,
  type Reading,
} from "../appium/index.js";
import { decodeRegion } from "../core/pixels/image-decode.js";
import { isUniform } from "../core/pixels/image-compare.js";
import type { Rect, Size } from "../core/ground/geometry.js";
import { barInsets, mergeInsets, NO_INSETS, parseBar } from "./system-bars.js";

/** Model used when no source names the device; `configureAi({ target })` should then name it. */
export const UNKNOWN_ANDROID_MODEL = "Unknown Android device";
/** Android's default status bar height (`status_bar_height`), used only when no source reports one. */
export const STATUS_BAR_DP = 24;
/** Android's 3-button navigation bar height (`navigation_bar_height`), used only as the last estimate. */
export const NAVIGATION_BAR_DP = 48;
/** The gesture navigation bar's height (`navigation_bar_gesture_height`), the estimate from Android 10 on. */
export const GESTURE_BAR_DP = 24;
/** Android 10 (API 29) made gesture navigation the default. */
const GESTURE_NAVIGATION_API = 29;
/** A window shorter than the screenshot by more than this share is not explained by a system bar. */
const MAX_BAR_SHARE = 0.15;

/** What every step of the describe reads from: the session, its first screenshot and lazy driver answers. */
interface Context {
  driver: AppiumSession;
  caps: object;
  note: AdapterNote;
  png: Buffer;
  shot: Size;
  orientation: "portrait" | "landscape";
  deviceInfo: () => Promise<Record<string, unknown>>;
  systemBars: () => Promise<Record<string, unknown>>;
}

/** The app's window in tap pixels, and screenshot pixels per tap pixel. */
interface Window {
  win?: Rect;
  scale: number;
  tapBounds: Rect;
}

/** Pixels per dp and the API level, read only when an estimate needs them. */
interface Lazy {
  density: () => Promise<number | undefined>;
  apiLevel: () => Promise<number | undefined>;
}

export async function describeAndroid(driver: AppiumSession, note: AdapterNote): Promise<Reading> {
  const png = await takePng(driver);
  const shot = await screenshotSize(png);
  const ctx: Context = {
    driver,
    caps: driver.capabilities,
    note,
    png,
    shot,
    orientation: orientationOf(shot),
    deviceInfo: once(() => mobileObject(driver, "mobile: deviceInfo")),
    systemBars: once(() => mobileObject(driver, "mobile: getSystemBars")),
  };
  const model = await readModel(ctx);
  const identity = emulatorIdentity(model?.value, ctx.caps, note);
  const osVersion = await readOsVersion(ctx);
  const displayToShot = await readDisplayToShot(ctx);
  const window = await readWindow(ctx);
  const lazy: Lazy = { apiLevel: once(() => readApiLevel(ctx)), density: once(() => readDensity(ctx, displayToShot)) };
  const status = await readStatusBar(ctx, displayToShot, lazy);
  const navigation = await readNavigationBar(ctx, { displayToShot, window, lazy });

  const statusBar = status && (await drawnStatusBar(png, shot, status, note));
  const insets = tidyInsets(mergeInsets(statusBar ?? NO_INSETS, navigation?.value ?? NO_INSETS), shot);
  const espresso = /^espresso$/i.test(textCapability(ctx.caps, "automationName") ?? "");
  return {
    device: {
      platform: "android",
      model: identity?.model ?? model?.value ?? UNKNOWN_ANDROID_MODEL,
      osVersion: osVersion?.value ?? "unknown",
      screen: shot,
      scale: window.scale,
      insets,
      orientation: ctx.orientation,
      ...(identity && { identity: identity.hints }),
    },
    tapBounds: window.tapBounds,
    ...(espresso ? espressoWindow(window.tapBounds, navigation?.value, window.scale, note) : {}),
  };
}

async function readModel({ caps, note, deviceInfo }: Context): Promise<Found<string> | undefined> {
  const model = await firstOf(
    "android model",
    [
      {
        name: "mobile: deviceInfo",
        read: async () => joinModel((await deviceInfo()).manufacturer, (await deviceInfo()).model),
      },
      {
        name: "capabilities deviceManufacturer + deviceModel",
        read: () => joinModel(capability(caps, "deviceManufacturer"), capability(caps, "deviceModel")),
      },
    ],
    note,
    `used "${UNKNOWN_ANDROID_MODEL}"`,
  );
  if (!model && !emulatorSerial(caps)) {
    note(
      `android model: the device did not name its model (deviceName is the adb serial, not a model); set ` +
        `configureAi({ target: { model } }) so its records are not shared with other devices`,
    );
  }
  return model;
}

function readOsVersion({ caps, note, deviceInfo }: Context): Promise<Found<string> | undefined> {
  return firstOf(
    "android OS version",
    [
      { name: "mobile: deviceInfo", read: async () => text((await deviceInfo()).platformVersion) },
      { name: "capability platformVersion", read: () => textCapability(caps, "platformVersion") },
    ],
    note,
    `used "unknown"`,
  );
}

/**
 * Display pixels (bar frames, status bar heights) to screenshot pixels: the display as the device
 * reports it, turned to the screenshot's orientation.
 */
async function readDisplayToShot({ caps, note, shot, deviceInfo }: Context): Promise<number> {
  const display = await firstOf(
    "android display size",
    [
      { name: "mobile: deviceInfo", read: async () => parseSizeText((await deviceInfo()).realDisplaySize) },
      { name: "capability deviceScreenSize", read: () => parseSizeText(capability(caps, "deviceScreenSize")) },
    ],
    note,
    "assumed the screenshot size",
  );
  const real = display ? turnTo(display.value, shot) : shot;
  if (real.width !== shot.width || real.height !== shot.height) {
    note(
      `android display: the device reports ${real.width}x${real.height} but screenshots are ` +
        `${shot.width}x${shot.height}; geometry follows the screenshots`,
    );
  }
  return shot.width / real.width;
}

async function readWindow({ driver, note, shot }: Context): Promise<Window> {
  const window = await firstOf(
    "android window",
    [{ name: "getWindowRect", read: async () => windowRect(await driver.getWindowRect(), shot) }],
    note,
    "assumed taps in screenshot pixels (scale 1)",
  );
  const win = window?.value;
  return {
    ...(win && { win }),
    scale: win ? scaleFor(shot, win, note) : 1,
    tapBounds: win ?? { x: 0, y: 0, width: shot.width, height: shot.height },
  };
}

async function readApiLevel({ caps, note, deviceInfo }: Context): Promise<number | undefined> {
  const found = await firstOf(
    "android API level",
    [
      { name: "mobile: deviceInfo", read: async () => positive((await deviceInfo()).apiVersion) },
      { name: "capability deviceApiLevel", read: () => positive(capability(caps, "deviceApiLevel")) },
    ],
    note,
    "unknown",
  );
  return found?.value;
}

/** Screenshot pixels per dp. */
async function readDensity({ driver, caps, note, deviceInfo }: Context, displayToShot: number) {
  const found = await firstOf(
    "android density",
    [
      { name: "mobile: deviceInfo", read: async () => dpi((await deviceInfo()).displayDensity) },
      { name: "capability deviceScreenDensity", read: () => dpi(capability(caps, "deviceScreenDensity")) },
      { name: "mobile: getDisplayDensity", read: async () => dpi(await driver.execute("mobile: getDisplayDensity")) },
      { name: "capability pixelRatio", read: () => positive(capability(caps, "pixelRatio")) },
    ],
    note,
    "no estimate possible",
  );
  return found && found.value * displayToShot;
}

function readStatusBar(ctx: Context, displayToShot: number, lazy: Lazy): Promise<Found<Insets> | undefined> {
  const { driver, caps, note, shot, systemBars } = ctx;
  return firstOf<Insets>(
    "android status bar",
    [
      {
        name: "mobile: getSystemBars",
        read: async () => {
          const bar = parseBar((await systemBars()).statusBar);
          return bar && barInsets(bar, shot, displayToShot);
        },
      },
      {
        name: "capability statBarHeight",
        read: () => top(nonNegative(capability(caps, "statBarHeight")), displayToShot),
      },
      {
        name: "capability viewportRect",
        read: () => top(viewportTop(capability(caps, "viewportRect")), displayToShot),
      },
      {
        name: "mobile: viewportRect",
        read: async () => top(viewportTop(await driver.execute("mobile: viewportRect")), displayToShot),
      },
      {
        name: `an estimate of ${STATUS_BAR_DP}dp`,
        read: async () => {
          const d = await lazy.density();
          return d ? { ...NO_INSETS, top: STATUS_BAR_DP * d } : undefined;
        },
      },
    ],
    note,
    "assumed no status bar",
  );
}

function readNavigationBar(
  ctx: Context,
  { displayToShot, window, lazy }: { displayToShot: number; window: Window; lazy: Lazy },
): Promise<Found<Insets> | undefined> {
  const { note, shot, systemBars } = ctx;
  const { win, scale } = window;
  return firstOf<Insets>(
    "android navigation bar",
    [
      {
        name: "mobile: getSystemBars",
        read: async () => {
          const bar = parseBar((await systemBars()).navigationBar);
          return bar && barInsets(bar, shot, displayToShot);
        },
      },
      {
        name: "the window's size against the screenshot's",
        read: () => (win ? uncovered(shot, win, scale) : undefined),
      },
      { name: "an estimate", read: () => estimatedNavigationBar(ctx, lazy) },
    ],
    note,
    "assumed no navigation bar",
  );
}

/** The navigation bar from the density and API level alone, with a note saying which bar was assumed. */
async function estimatedNavigationBar({ note, orientation }: Context, lazy: Lazy): Promise<Insets | undefined> {
  const d = await lazy.density();
  if (!d) return undefined;
  const api = await lazy.apiLevel();
  const gestures = api !== undefined && api >= GESTURE_NAVIGATION_API;
  // A gesture bar spans the bottom edge in both orientations; a 3-button bar moves to the right on phones.
  const side = gestures || orientation === "portrait" ? "bottom" : "right";
  const dp = gestures ? GESTURE_BAR_DP : NAVIGATION_BAR_DP;
  note(
    `android navigation bar: estimated ${dp}dp (${Math.round(dp * d)}px), ` +
      (gestures
        ? `a gesture navigation bar, the default since Android 10; a 3-button bar is ${NAVIGATION_BAR_DP}dp`
        : `a 3-button navigation bar (API level ${api ?? "unknown"})`),
  );
  return { ...NO_INSETS, [side]: dp * d };
}

/**
 * Espresso dispatches actions only inside the app's displayMetrics (espresso-server PointerDispatch.kt), which
 * leave out the navigation bar, and injects them only into the app's window: taps there are checked before
 * they are sent, not clamped onto the app's edge.
 */
function espressoWindow(bounds: Rect, navigation: Insets | undefined, scale: number, note: AdapterNote) {
  const cut = { bottom: (navigation?.bottom ?? 0) / scale, right: (navigation?.right ?? 0) / scale };
  const tapWindow = {
    ...bounds,
    width: Math.max(1, Math.floor(bounds.width - cut.right)),
    height: Math.max(1, Math.floor(bounds.height - cut.bottom)),
  };
  if (tapWindow.width !== bounds.width || tapWindow.height !== bounds.height) {
    note(
      `android espresso: taps only inside the app's ${tapWindow.width}x${tapWindow.height} window (the ` +
        `display without the navigation bar); a stored point outside it fails instead of tapping the bar`,
    );
  }
  return {
    tapWindow,
    tapWindowHint:
      "Espresso taps only inside the app under test (its displayMetrics, without the navigation bar); learn " +
      "this tap again on this device, or run it with UiAutomator2",
  };
}

/**
 * Build.MODEL of emulator system images, the same for every AVD profile (`sdk_gphone64_x86_64`,
 * `sdk_gphone64_arm64`, older `Android SDK built for x86`, `sdk_google_phone_x86`, `google_sdk`).
 */
const EMULATOR_MODEL = /\b(sdk_gphone\w*|sdk_google\w*|google_sdk|android sdk built for \w+|sdk)$/i;

/** The adb serial of an emulator (`emulator-5554`), which UiAutomator2 and Espresso put in `deviceName`. */
function emulatorSerial(caps: object): string | undefined {
  // appium-android-driver lib/driver.ts isEmulator: `avd` set, or a serial matching /\bemulator\b/i.
  return ["udid", "deviceUDID", "deviceName"]
    .map((name) => textCapability(caps, name))
    .find((serial) => serial !== undefined && /\bemulator\b/i.test(serial));
}

/** Prefix of an emulator's model when it is named by its AVD profile. */
export const EMULATOR_MODEL_PREFIX = "Android emulator";

/**
 * An emulator is named by its AVD profile (capability `avd`, set when the driver launched it):
 * `Android emulator Pixel_7_API_34`. Without it, the call fails unless the run's target names the
 * model: the image's generic model would share one key between every profile, and the serial
 * names one emulator instance, not a model. `undefined` for a device that is no emulator.
 */
function emulatorIdentity(
  model: string | undefined,
  caps: object,
  note: AdapterNote,
): { model?: string; hints: IdentityHints } | undefined {
  const serial = emulatorSerial(caps);
  const avd = textCapability(caps, "avd")?.replace(/^@/, "");
  const generic = model !== undefined && EMULATOR_MODEL.test(model);
  // Not an emulator, or an emulator image that names a real model: the model read stands.
  if (!avd && !generic && (!serial || model)) return undefined;
  if (avd) {
    const named = `${EMULATOR_MODEL_PREFIX} ${avd}`;
    note(`android model: an emulator; named by its AVD profile (capability avd) "${named}"`);
    // Older versions keyed emulators by the image's generic model.
    return { model: named, hints: { formerModels: model ? [model] : [] } };
  }
  return {
    hints: {
      unnamed:
        `This Android emulator${serial ? ` (${serial})` : ""} reports ${model ? `the generic model "${model}"` : "no model"}, ` +
        `the same for every AVD profile, and the session has no avd capability naming its profile. Set ` +
        `configureAi({ target: { model: "Pixel 7 emulator" } }) (or start the session with the appium:avd ` +
        `capability), so its stored values are not shared with other emulator profiles.`,
    },
  };
}

/**
 * `mobile: getSystemBars` reports the status bar from its window's visibility, which stays visible when a
 * full-screen (immersive) app hides the bar. A shown bar draws a clock and icons, so a strip of one colour
 * means the bar is not drawn: the app's content is there and is not masked. The opposite cannot be told
 * from the pixels, so an immersive app with content at the top keeps the mask.
 */
async function drawnStatusBar(png: Buffer, shot: Size, status: Found<Insets>, note: AdapterNote): Promise<Insets> {
  const height = Math.min(Math.round(status.value.top), shot.height);
  if (status.source !== "mobile: getSystemBars" || height < 1) return status.value;
  if (!isUniform(await decodeRegion(png, { x: 0, y: 0, width: shot.width, height }))) return status.value;
  note(
    `android status bar: mobile: getSystemBars reports it visible, but the screenshot's top ${height}px are one ` +
      `colour (no clock or icons): a full-screen app hides it; used the screenshot, no status bar`,
  );
  return { ...status.value, top: 0 };
}

/** "Google" + "Pixel 7" -> "Google Pixel 7"; no doubling when the model already starts with the maker. */
export function joinModel(manufacturer: unknown, model: unknown): string | undefined {
  const name = text(model);
  const maker = text(manufacturer);
  if (!name) return undefined;
  if (!maker || name.toLowerCase().startsWith(maker.toLowerCase())) return name;
  return `${maker} ${name}`;
}

/**
 * Screenshot pixels per tap pixel. A window that leaves out a system bar is shorter along
 * one axis only, so the axis with the smaller ratio carries the scale.
 */
function scaleFor(shot: Size, win: Rect, note: AdapterNote): number {
  const byWidth = shot.width / win.width;
  const byHeight = shot.height / win.height;
  const scale = tidyScale(Math.min(byWidth, byHeight));
  if (!sameScale(byWidth, byHeight)) {
    note(
      `android window: ${win.width}x${win.height} against a ${shot.width}x${shot.height} screenshot; ` +
        `the window leaves out a system bar, scale ${scale} from its ${byWidth <= byHeight ? "width" : "height"}`,
    );
  }
  if (scale !== 1) {
    note(
      `android window: ${win.width}x${win.height} is smaller than the ${shot.width}x${shot.height} screenshot ` +
        `(display or compatibility scaling); taps are scaled by 1/${scale}`,
    );
  }
  return scale;
}

/** The strip of the screenshot the window does not reach: the navigation bar on most devices. */
function uncovered(shot: Size, win: Rect, scale: number): Insets | undefined {
  const missingHeight = shot.height - (win.y + win.height) * scale;
  const missingWidth = shot.width - (win.x + win.width) * scale;
  if (missingHeight >= 1 && missingHeight <= shot.height * MAX_BAR_SHARE)
    return { ...NO_INSETS, bottom: missingHeight };
  if (missingWidth >= 1 && missingWidth <= shot.width * MAX_BAR_SHARE) return { ...NO_INSETS, right: missingWidth };
  return undefined;
}

function top(pixels: number | undefined, factor: number): Insets | undefined {
  return pixels === undefined ? undefined : { ...NO_INSETS, top: pixels * factor };
}

/** `viewportRect` is `{ left, top, width, height }` with `top` the status bar height. */
function viewportTop(value: unknown): number | undefined {
  return value && typeof value === "object" ? nonNegative((value as { top?: unknown }).top) : undefined;
}

/** dots per inch -> density (pixels per dp). */
function dpi(value: unknown): number | undefined {
  const n = positive(value);
  return n === undefined ? undefined : n / 160;
}
