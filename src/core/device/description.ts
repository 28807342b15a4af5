/*
 * The device seam (docs/design.md section 2): what the engine knows about the phone under
 * test, and the three things it asks of one device session.
 */
import { z } from "zod";
import { DeviceError } from "../ground/errors.js";
import type { Point, Rect } from "../ground/geometry.js";

export type { Point, Rect, Size } from "../ground/geometry.js";

/** One swipe in screenshot pixels: press at `from`, move to `to` over `durationMs`, pause, release. */
export interface Swipe {
  from: Point;
  to: Point;
  /** How long the move takes, ms. */
  durationMs: number;
}

export const PlatformSchema = z.enum(["android", "ios"]);
/** The platform of a device. */
export type Platform = z.infer<typeof PlatformSchema>;

/** One side's inset: whole screenshot pixels. */
const SideSchema = z.number().int().nonnegative();
export const InsetsSchema = z.object({ top: SideSchema, bottom: SideSchema, left: SideSchema, right: SideSchema });
/**
 * System bars in screenshot pixels, following the orientation: `top` is the status
 * bar, `bottom` the navigation bar / home indicator (in landscape they may be on a side).
 */
export type Insets = z.infer<typeof InsetsSchema>;

export const DeviceDescriptionSchema = z.object({
  platform: PlatformSchema,
  /** Marketing or hardware model, e.g. "Google Pixel 7", "iPhone 15 Pro". */
  model: z.string().min(1),
  /** OS version as the device reports it, e.g. "14", "17.5". */
  osVersion: z.string().min(1),
  /** Screenshot size in pixels. */
  screen: z.object({ width: z.number().int().positive(), height: z.number().int().positive() }),
  /** Screenshot pixels per tap unit (points on iOS, pixels on Android, CSS pixels on the rig). */
  scale: z.number().positive(),
  insets: InsetsSchema,
  orientation: z.enum(["portrait", "landscape"]),
});
/** What the engine knows about the device under test; stored in every record. */
export type DeviceDescription = z.infer<typeof DeviceDescriptionSchema>;

/**
 * What an adapter knows about the device's name beyond the description; used for store keys,
 * never stored in records (docs/storage.md).
 */
export interface IdentityHints {
  /**
   * Models older tapshot versions named this device by (a real iPhone's `iPhone16,1`), so values
   * stored under their keys are still read.
   */
  formerModels?: string[];
  /**
   * Set when the model read names no one kind of device (an emulator image without its AVD
   * profile): why, and how to name it. The call then fails unless the run's target sets a model.
   */
  unnamed?: string;
}

/** A description as an adapter returns it: the description plus its {@link IdentityHints}. */
export type DescribedDevice = DeviceDescription & { identity?: IdentityHints };

/**
 * How much of the OS version goes into store keys: `major` (`14`), `major.minor` (`17.5`) or
 * `full` (`17.5.1`, as the device reports it). Default: `major.minor` on iOS, `major` on Android.
 */
export const OsVersionKeySchema = z.enum(["major", "major.minor", "full"]);
/** How much of the OS version goes into store keys (docs/storage.md). */
export type OsVersionKey = z.infer<typeof OsVersionKeySchema>;

export const TargetSchema = z
  .object({
    platform: PlatformSchema.optional(),
    model: z.string().min(1).optional(),
    osVersion: z.string().min(1).optional(),
  })
  .strict();
/**
 * The run's target device as the runner or device farm knows it. Each field given
 * overrides what the adapter reads from the device.
 */
export type Target = z.infer<typeof TargetSchema>;

/** Notes an adapter emits when a source fails and it falls back to the next one. */
export type AdapterNote = (message: string) => void;

/**
 * One device under one driver session, opened once per session by {@link DeviceAdapter.open}.
 * The engine caches the description it returns and describes again when the screenshot size
 * changes (a rotation), so a session may keep what it read for `tap` (for example tap bounds).
 */
export interface DeviceSession {
  /** Read the device. `note` takes a line for the call's log (a source that failed, a fallback used). */
  describe(note: AdapterNote): Promise<DescribedDevice>;
  /** A PNG screenshot of the whole screen. */
  screenshot(): Promise<Buffer>;
  /** Tap at a point in screenshot pixels of the screen last described; the session converts to its tap units. */
  tap(point: Point): Promise<void>;
  /**
   * Optional: swipe in screenshot pixels of the screen last described (press at `from`, move to
   * `to` over `durationMs`, pause, release); the session converts to its tap units as `tap` does.
   * Needed by `tap`'s `scroll` option and whole-page baselines only.
   */
  swipe?(swipe: Swipe): Promise<void>;

  /**
   * Optional: scroll with the driver's own scroll command where it tells whether more can scroll
   * (UiAutomator2's `mobile: scrollGesture`, which answers from the accessibility scroll events,
   * not from pixels). Used by whole-page baselines to stop at a page's top or end without one more
   * swipe there; without it they swipe and compare screenshots.
   */
  scrollAndTell?(scroll: DriverScroll): Promise<ScrollAnswer>;

  /**
   * The accessibility tree as the driver serves it (`driver.getPageSource()`): UiAutomator2 XML
   * (`bounds="[x1,y1][x2,y2]"` in pixels) on Android, XCUITest XML (`x`/`y`/`width`/`height` in
   * points) on iOS. Optional: without it the heal ladder skips its accessibility rung (docs/heal.md).
   */
  pageSource?(): Promise<string>;

  /**
   * Optional: where elements are now, in screenshot pixels of the screen last described (the
   * session converts from its units; elements are measured from the screen's corner, not from the
   * app window's origin that taps start at on an iPad window); `null` for a target
   * that matches no element. Needed by `toMatchScreenshot`'s selector and element masks only.
   */
  elementRects?(targets: ElementTarget[]): Promise<(Rect | null)[]>;

  /**
   * Optional: every element `target` matches now, in screenshot pixels as {@link elementRects}
   * gives them (a selector may match several; an element object is itself, or nothing once it is
   * gone). Needed by `toSatisfy` on an element or selector, which refuses several matches.
   */
  elementMatches?(target: ElementTarget): Promise<Rect[]>;

  /**
   * Optional: focus the field at `point` (screenshot pixels, as {@link tap}) and type `text` into
   * it verbatim, replacing what it held. Needed by `ai.act`'s `fill` only. `text` is a test's value
   * (a password): never put it in an error, a log line or anything stored.
   */
  fill?(input: FillInput): Promise<void>;

  /** Optional: focus the field at `point` and clear it. Needed by `ai.act`'s `clear` only. */
  clear?(input: { point: Point }): Promise<void>;

  /**
   * Optional: press a key on the focused element or the device: `enter` (Enter, Done, Go), `back`
   * (Android's Back; an iOS session throws a DeviceError saying iOS has none), `tab` (next field).
   * Needed by `ai.act`'s `press` only.
   */
  pressKey?(key: PressKey): Promise<void>;

  /**
   * Optional: the driver's own element at a point `find` located (in screenshot pixels of the
   * screen last described), as the driver's client holds elements (a WebdriverIO element, a W3C
   * reference), or `null` when no element but a container is there. A native session finds the
   * first of `selectors()` (the page source's node under the point)
   * that its driver finds exactly once; a web session asks `document.elementFromPoint` (docs/api.md
   * "Finding elements"). Without it,
   * `find` answers the point alone.
   */
  elementAt?(at: ElementAt): Promise<object | null>;

  /**
   * Optional: the app under test, read once per session (docs/storage.md, "Projects and apps"):
   * what the session declares (Android `appPackage`, iOS `bundleId`, a browser session's start
   * origin), else the app in the foreground; `undefined` when the session cannot tell. Stored values
   * are kept per app; without it they are kept as older versions kept them.
   */
  appIdentity?(): Promise<string | undefined>;
}

/** What {@link DeviceSession.elementAt} is asked for. */
export interface ElementAt {
  /** In screenshot pixels. */
  point: Point;
  /** The selectors of the page source's node under the point, read only when called (web sessions need none). */
  selectors(): Promise<string[]>;
}

/** What {@link DeviceSession.fill} types, and where. */
export interface FillInput {
  /** The field, in screenshot pixels. */
  point: Point;
  /** Typed verbatim; a secret to every sink. */
  text: string;
  /**
   * Selectors naming the field by its stored identity (`id=<resource-id>` on Android, `~<name>` on iOS),
   * when the caller has them: a session may type into the element the first of them finds exactly once
   * (W3C Element Clear and Send Keys focus it) instead of tapping `point`; else it taps `point` to focus it.
   */
  selectors?: readonly string[];
}

/** A key {@link DeviceSession.pressKey} presses. */
export type PressKey = "enter" | "back" | "tab";

/** A scroll the driver performs itself: of `area` (screenshot pixels), by `share` of its height. */
export interface DriverScroll {
  area: Rect;
  /** `down` shows what is below (the finger moves up), as in {@link Swipe}'s scroll taps. */
  direction: "down" | "up";
  /** How far, as a share of the area's height (0 to 1). */
  share: number;
}

/** The driver's answer to a {@link DriverScroll}: whether the content can scroll further that way. */
export interface ScrollAnswer {
  more: boolean;
}

/**
 * An element a mask names: a selector the driver finds (for WebdriverIO, anything `driver.$()`
 * accepts), or an element object the test already holds (a WebdriverIO element, awaited or not).
 */
export type ElementTarget = { selector: string } | { element: object };

/**
 * A platform adapter: turns a driver (for the Appium adapters, a WebdriverIO `Browser`) into a
 * {@link DeviceSession}. Pass one to `createPlatformApi` (entry `tapshot/adapter`) to drive
 * another kind of device.
 */
export interface DeviceAdapter {
  readonly platform: Platform;
  /**
   * Check `driver` and open its session. Called once per driver object (the engine keeps the
   * session); throws a DeviceError that says what was found and what is expected.
   */
  open(driver: unknown): DeviceSession;
  /**
   * Optional: when `value` is an element object of this adapter's drivers (a WebdriverIO element),
   * the driver it belongs to; `undefined` for anything else. Lets `expect(element)` find its device.
   */
  driverOf?(value: unknown): object | undefined;
}

/** Whether a value stored on `was` can be used on `now`: same screen size and orientation. */
export function sameScreen(was: DeviceDescription, now: DeviceDescription): boolean {
  return (
    was.screen.width === now.screen.width &&
    was.screen.height === now.screen.height &&
    was.orientation === now.orientation
  );
}

/**
 * How far apart two devices' screens are for reusing what one stored on the other (docs/transfer.md):
 * the log-ratio of their pixel densities plus that of their aspect ratios; 0 for the same screen shape.
 */
export function deviceDistance(
  a: Pick<DeviceDescription, "scale" | "screen">,
  b: Pick<DeviceDescription, "scale" | "screen">,
): number {
  const aspect = (d: typeof a) => d.screen.height / d.screen.width;
  return Math.abs(Math.log(a.scale / b.scale)) + Math.abs(Math.log(aspect(a) / aspect(b)));
}

/** `1179x2556 portrait`, for messages. */
export function screenOf(device: DeviceDescription): string {
  return `${device.screen.width}x${device.screen.height} ${device.orientation}`;
}

/**
 * Apply the run's target over what the adapter read; the result is what records store. Throws a
 * DeviceError when the adapter could not name the model and the target does not either.
 */
export function applyTarget(device: DescribedDevice, target: Target | undefined): DeviceDescription {
  const { identity, ...described } = device;
  if (identity?.unnamed && !target?.model) throw new DeviceError(identity.unnamed);
  if (!target) return described;
  return {
    ...described,
    platform: target.platform ?? described.platform,
    model: target.model ?? described.model,
    osVersion: target.osVersion ?? described.osVersion,
  };
}
