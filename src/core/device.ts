/**
 * The device seam: what the engine needs to know about the phone under test and
 * the three things it asks a platform adapter to do.
 */
import { z } from "zod";

export const PlatformSchema = z.enum(["android", "ios"]);
/** The platform of a device. */
export type Platform = z.infer<typeof PlatformSchema>;

export const InsetsSchema = z.object({
  top: z.number().int().nonnegative(),
  bottom: z.number().int().nonnegative(),
  left: z.number().int().nonnegative(),
  right: z.number().int().nonnegative(),
});
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

/** A point in screenshot pixels. */
export interface Point {
  x: number;
  y: number;
}

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
 * A platform adapter. `describe` may be called often: adapters cache per session.
 * `driver` is a WebdriverIO `Browser`; adapters check it and fail with a clear error.
 */
export interface DeviceAdapter {
  readonly platform: Platform;
  /** Throw a DeviceError when `driver` is not an Appium session this adapter can drive. */
  assertDriver(driver: unknown): void;
  describe(driver: unknown, note: AdapterNote): Promise<DeviceDescription>;
  /** A PNG screenshot of the whole screen. */
  screenshot(driver: unknown): Promise<Buffer>;
  /** Tap at a point in screenshot pixels; the adapter converts to its tap units. */
  tap(driver: unknown, point: Point, device: DeviceDescription): Promise<void>;
}

/** Whether a value stored on `was` can be used on `now`: same screen size and orientation. */
export function sameScreen(was: DeviceDescription, now: DeviceDescription): boolean {
  return (
    was.screen.width === now.screen.width &&
    was.screen.height === now.screen.height &&
    was.orientation === now.orientation
  );
}

/** `1179x2556 portrait`, for messages. */
export function screenOf(device: DeviceDescription): string {
  return `${device.screen.width}x${device.screen.height} ${device.orientation}`;
}

/** Apply the run's target over what the adapter read. */
export function applyTarget(device: DeviceDescription, target: Target | undefined): DeviceDescription {
  if (!target) return device;
  return {
    ...device,
    platform: target.platform ?? device.platform,
    model: target.model ?? device.model,
    osVersion: target.osVersion ?? device.osVersion,
  };
}
