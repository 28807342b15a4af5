/**
 * Reads an iOS device (XCUITest session) into a DeviceDescription. WebDriverAgent taps are
 * in points: the scale is screenshot pixels per point, read from the screen WDA reports
 * (`mobile: deviceScreenInfo`), not from the app's window, which can be smaller than the
 * screen (apps not built for the screen size, split view): deriving Y from such a window
 * is the offset bug peers hit (web-infra-dev/midscene#2683, appium/appium#16185).
 */
import type { AdapterNote, Insets } from "../core/device/description.js";
import {
  firstOf,
  mobileObject,
  nonNegative,
  once,
  orientationOf,
  positive,
  sameScale,
  screenshotSize,
  sizeOf,
  takePng,
  text,
  textCapability,
  tidyInsets,
  tidyScale,
  turnTo,
  windowRect,
  type AppiumSession,
  type Found,
  type Reading,
} from "../appium/index.js";
import type { Rect, Size } from "../core/ground/geometry.js";
import { knownModelName, modelOfProductType, statusBarPointsOf } from "./models.js";

/** Model used when no source names the device; `configureAi({ target })` should then name it. */
export const UNKNOWN_IOS_MODEL = "Unknown iOS device";
/**
 * Bottom safe area of devices without a home button (Apple's layout guides): the home
 * indicator strip, in points. Not a per-device table: one value per idiom and orientation.
 */
export const HOME_INDICATOR_PT = { phonePortrait: 34, phoneLandscape: 21, pad: 20 } as const;
/** Status bar of devices with a home button, in points; the estimate when WDA reports none. */
const CLASSIC_STATUS_BAR_PT = 20;
/** Status bar estimate for iPhones without a home button the model table lacks (Dynamic Island height). */
const TALL_STATUS_BAR_PT = 54;
/** Status bar of iPads without a home button, in points. */
const PAD_STATUS_BAR_PT = 24;

/** What every step of the describe reads from: the session, its first screenshot and lazy driver answers. */
interface Context {
  driver: AppiumSession;
  caps: object;
  note: AdapterNote;
  shot: Size;
  orientation: "portrait" | "landscape";
  deviceInfo: () => Promise<Record<string, unknown>>;
  screenInfo: () => Promise<Record<string, unknown>>;
  lockdown: () => Promise<Record<string, unknown>>;
  productType: () => Promise<string | undefined>;
}

export async function describeIos(driver: AppiumSession, note: AdapterNote): Promise<Reading> {
  const shot = await screenshotSize(await takePng(driver));
  const deviceInfo = once(() => mobileObject(driver, "mobile: deviceInfo"));
  const lockdown = async () => {
    const info = (await deviceInfo()).lockdownInfo;
    return info && typeof info === "object" ? (info as Record<string, unknown>) : {};
  };
  const ctx: Context = {
    driver,
    caps: driver.capabilities,
    note,
    shot,
    orientation: orientationOf(shot),
    deviceInfo,
    screenInfo: once(() => mobileObject(driver, "mobile: deviceScreenInfo")),
    lockdown,
    productType: once(async () => text((await lockdown()).ProductType)),
  };
  const model = await readModel(ctx);
  // Older versions keyed real devices by their product type (`iphone16-1_17.5.1`).
  const type = model?.source.includes("ProductType") ? await ctx.productType() : undefined;
  const formerModels = type && type !== model?.value ? [type] : [];
  const osVersion = await readOsVersion(ctx);
  const win = await readWindow(ctx);
  const scale = await readScale(ctx, win);
  const screenPt = { width: shot.width / scale, height: shot.height / scale };
  const shifted = noteWindow(ctx, win, screenPt);
  const insets = await readInsets(ctx, { model: model?.value, screenPt, scale });

  return {
    device: {
      platform: "ios",
      model: model?.value ?? UNKNOWN_IOS_MODEL,
      osVersion: osVersion?.value ?? "unknown",
      screen: shot,
      scale,
      insets: tidyInsets(insets, shot),
      orientation: ctx.orientation,
      ...(formerModels.length > 0 ? { identity: { formerModels } } : {}),
    },
    tapBounds: { x: 0, y: 0, ...screenPt },
    ...(win && shifted
      ? {
          tapOrigin: { x: win.x, y: win.y },
          tapWindow: win,
          tapWindowHint:
            "give the app the whole screen (leave Split View or Slide Over), or learn this tap again with the app where it is now",
        }
      : {}),
  };
}

async function readModel({ caps, note, deviceInfo, productType }: Context): Promise<Found<string> | undefined> {
  const model = await firstOf(
    "ios model",
    [
      {
        name: "mobile: deviceInfo lockdownInfo.ProductType",
        read: async () => {
          const type = await productType();
          return type && (modelOfProductType(type) ?? unlisted(type, note));
        },
        quiet: true,
      },
      { name: "capability deviceName", read: () => typedModel(specific(textCapability(caps, "deviceName")), note) },
      {
        name: "mobile: deviceInfo name (simulator)",
        read: async () =>
          (await deviceInfo()).isSimulator ? typedModel(specific(text((await deviceInfo()).name)), note) : undefined,
        quiet: true,
      },
      { name: "mobile: deviceInfo model", read: async () => text((await deviceInfo()).model) },
      { name: "capability deviceName", read: () => textCapability(caps, "deviceName") },
    ],
    note,
    `used "${UNKNOWN_IOS_MODEL}"`,
  );
  if (!model || !specific(model.value)) {
    note(
      `ios model: "${model?.value ?? UNKNOWN_IOS_MODEL}" does not say which model this is; set ` +
        `configureAi({ target: { model } }) so its records are not shared with other models`,
    );
  }
  return model;
}

function readOsVersion({ caps, note, lockdown }: Context): Promise<Found<string> | undefined> {
  return firstOf(
    "ios OS version",
    [
      {
        name: "mobile: deviceInfo lockdownInfo.ProductVersion",
        read: async () => text((await lockdown()).ProductVersion),
        quiet: true,
      },
      { name: "capability platformVersion", read: () => textCapability(caps, "platformVersion") },
    ],
    note,
    `used "unknown"`,
  );
}

async function readWindow({ driver, note, shot }: Context): Promise<Rect | undefined> {
  const window = await firstOf(
    "ios window",
    [{ name: "getWindowRect", read: async () => windowRect(await driver.getWindowRect(), shot) }],
    note,
    "scale from the screen information only",
  );
  return window?.value;
}

/** Screenshot pixels per point: from the screen WDA reports, else the window, else the reported scale. */
async function readScale(ctx: Context, win: Rect | undefined): Promise<number> {
  const { note, shot, screenInfo } = ctx;
  const reported = await firstOf(
    "ios screen scale",
    [
      // No `pixelRatio` session capability: appium-xcuitest-driver stopped returning it (and `statBarHeight`)
      // in version 5 (its commit 047a4f0, "getSession does not return any extra driver-specific data").
      { name: "mobile: deviceScreenInfo scale", read: async () => positive((await screenInfo()).scale) },
    ],
    note,
    "scale from the window only",
  );
  const scaleFound = await firstOf(
    "ios scale",
    [
      {
        name: "screenshot / mobile: deviceScreenInfo screenSize",
        read: async () => {
          const screen = sizeOf((await screenInfo()).screenSize);
          return screen && shot.width / turnTo(screen, shot).width;
        },
      },
      { name: "screenshot / window width", read: () => scaleOfWindow(shot, win, reported?.value) },
      { name: "the reported screen scale", read: () => reported?.value },
    ],
    note,
    "assumed scale 1",
  );
  const scale = tidyScale(scaleFound?.value ?? 1);
  if (reported && !sameScale(scale, reported.value)) {
    note(
      `ios scale: screenshots have ${scale} px per point, the device reports scale ${reported.value}; used ${scale}`,
    );
  }
  return scale;
}

/** Screenshot pixels per window point; a window that is not the whole screen gives no scale. */
function scaleOfWindow(shot: Size, win: Rect | undefined, reported: number | undefined): number | undefined {
  if (!win) return undefined;
  const byWindow = shot.width / win.width;
  if (reported && !sameScale(byWindow, reported)) {
    throw new Error(
      `the app's window (${win.width}x${win.height} pt at ${win.x},${win.y}) is not the whole screen: ` +
        `${byWindow.toFixed(3)} px/pt against the screen scale ${reported}`,
    );
  }
  return byWindow;
}

/**
 * Notes a window that is not the whole screen; true when it is shifted from the screen's corner.
 * WebDriverAgent measures action coordinates from the active app's frame, which /window/rect reports
 * with its origin (FBElementCommands.m handleGetWindowRect): not (0, 0) in Split View, Slide Over, Stage Manager.
 */
function noteWindow({ note }: Context, win: Rect | undefined, screenPt: Size): boolean {
  const shifted = win !== undefined && (win.x >= 0.5 || win.y >= 0.5);
  if (win && shifted) {
    note(
      `ios window: the app's window is ${win.width}x${win.height} pt at ${win.x},${win.y} on a ` +
        `${round(screenPt.width)}x${round(screenPt.height)} pt screen; taps are sent from the window's origin`,
    );
  } else if (win && (Math.abs(win.width - screenPt.width) >= 1 || Math.abs(win.height - screenPt.height) >= 1)) {
    note(
      `ios window: the app's window is ${win.width}x${win.height} pt at ${win.x},${win.y}, the screen ` +
        `${round(screenPt.width)}x${round(screenPt.height)} pt; taps use screen points`,
    );
  }
  return shifted;
}

/** The status bar and home indicator, in screenshot pixels. */
async function readInsets(
  ctx: Context,
  { model, screenPt, scale }: { model: string | undefined; screenPt: Size; scale: number },
): Promise<Insets> {
  const isPad = await padIdiom(ctx.deviceInfo, ctx.caps);
  // iPhones hide the status bar in landscape; anywhere else a device shows one, so a 0 was read while it was hidden.
  const showsStatusBar = isPad || ctx.orientation === "portrait";
  const statusPt = await readStatusBarPoints(ctx, { model, screenPt, isPad, showsStatusBar });
  const homeIndicator = hasHomeIndicator(screenPt, isPad, statusPt);
  const status =
    statusPt ??
    (!showsStatusBar ? 0 : !homeIndicator ? CLASSIC_STATUS_BAR_PT : isPad ? PAD_STATUS_BAR_PT : TALL_STATUS_BAR_PT);
  const bottomPt = !homeIndicator
    ? 0
    : isPad
      ? HOME_INDICATOR_PT.pad
      : ctx.orientation === "portrait"
        ? HOME_INDICATOR_PT.phonePortrait
        : HOME_INDICATOR_PT.phoneLandscape;
  return { top: status * scale, bottom: bottomPt * scale, left: 0, right: 0 };
}

async function readStatusBarPoints(
  { note, orientation, screenInfo }: Context,
  how: { model: string | undefined; screenPt: Size; isPad: boolean; showsStatusBar: boolean },
): Promise<number | undefined> {
  const { model, screenPt, isPad, showsStatusBar } = how;
  const hiddenWhenRead = (height: number | undefined, what: string) => {
    if (height !== 0 || !showsStatusBar) return height;
    throw new Error(
      `${what} is 0 in ${orientation}, where this device shows a status bar: the driver read it once per session, ` +
        `while the status bar was hidden (a splash screen, a video)`,
    );
  };
  const found = await firstOf(
    "ios status bar",
    [
      {
        name: "mobile: deviceScreenInfo statusBarSize",
        read: async () => {
          const info = await screenInfo();
          const height = barHeight(info.statusBarSize);
          if (height === undefined || isPad || !readInOtherOrientation(info, screenPt)) {
            return hiddenWhenRead(height, "its height");
          }
          // The driver memoizes deviceScreenInfo per session: this reading is from before a rotation.
          if (orientation === "landscape") return 0;
          throw new Error("it was read in landscape, where iPhones hide the status bar (the driver reads it once)");
        },
      },
      {
        name: `the model table (src/ios/models.ts)`,
        read: () => {
          const portrait = model ? statusBarPointsOf(model) : undefined;
          return portrait === undefined ? undefined : showsStatusBar ? portrait : 0;
        },
      },
    ],
    note,
    "estimated from the screen shape",
  );
  return found?.value;
}

/** A product type the model table lacks is used as it is, with a note. */
function unlisted(productType: string, note: AdapterNote): string {
  note(
    `ios model: product type ${productType} is not in tapshot's model table (src/ios/models.ts); keys use it ` +
      `as it is, so a simulator of this model gets other keys. Set configureAi({ target: { model } }) to name it`,
  );
  return productType;
}

/**
 * A model name the user typed (a simulator's `deviceName`), in the model table's spelling. A name
 * that is no model (a farm's regex, a nickname) is used as typed, with a note.
 */
function typedModel(name: string | undefined, note: AdapterNote): string | undefined {
  if (!name) return undefined;
  const known = knownModelName(name);
  if (!known) {
    note(
      `ios model: "${name}" is no iPhone or iPad model in tapshot's table (src/ios/models.ts); keys use it as ` +
        `typed. On a device farm, set configureAi({ target: { model } }) to the model the farm gave`,
    );
  }
  return known ?? name;
}

/** Names that say only the kind of device (`UIDevice.model`, and `name` since iOS 16). */
const GENERIC_NAMES = /^(iphone|ipad|ipod touch|iphone simulator|ipad simulator|ios|ios device)$/i;

/** The name, unless it only says "iPhone" / "iPad". */
function specific(name: string | undefined): string | undefined {
  return name && !GENERIC_NAMES.test(name) ? name : undefined;
}

async function padIdiom(deviceInfo: () => Promise<Record<string, unknown>>, caps: object): Promise<boolean> {
  try {
    const info = await deviceInfo();
    const model = text(info.model);
    if (model) return /^ipad/i.test(model);
  } catch {
    // Noted where deviceInfo was first read.
  }
  return /ipad/i.test(textCapability(caps, "deviceName") ?? "");
}

/**
 * Devices without a home button show a home indicator. Read from the screen's shape, not
 * a model table: home-button iPhones are 16:9 (Face ID ones are taller than 2:1), home-button
 * iPads 4:3; and those devices have the 20 pt status bar, taller ones mean a home indicator.
 */
export function hasHomeIndicator(screenPt: Size, isPad: boolean, statusBarPt: number | undefined): boolean {
  if (statusBarPt !== undefined && statusBarPt > CLASSIC_STATUS_BAR_PT + 0.5) return true;
  const long = Math.max(screenPt.width, screenPt.height);
  const short = Math.min(screenPt.width, screenPt.height);
  return long / short > (isPad ? 1.4 : 2);
}

/**
 * Whether a `mobile: deviceScreenInfo` answer was read in the other orientation: the driver
 * memoizes it per session (appium-xcuitest-driver lib/driver.ts MEMOIZED_FUNCTIONS), so after
 * a rotation it still describes the first one. Its `screenSize` tells; without it, the status
 * bar's width (it spans the screen).
 */
function readInOtherOrientation(info: Record<string, unknown>, screenPt: Size): boolean {
  const screen = sizeOf(info.screenSize);
  if (screen)
    return screen.width !== screen.height && screen.width > screen.height !== screenPt.width > screenPt.height;
  const bar = sizeOf(info.statusBarSize);
  return bar !== undefined && Math.abs(bar.width - screenPt.width) > 1;
}

/** The status bar's height: its shorter side, as WDA may report a landscape frame either way. */
function barHeight(value: unknown): number | undefined {
  if (!value || typeof value !== "object") return undefined;
  const { width, height } = value as { width?: unknown; height?: unknown };
  const w = nonNegative(width);
  const h = nonNegative(height);
  if (w === undefined || h === undefined) return undefined;
  return w > 0 && h > 0 ? Math.min(w, h) : 0;
}

function round(n: number): number {
  return Math.round(n * 100) / 100;
}
