/*
 * Reading values off an Appium session: capabilities, numbers and sizes in the forms drivers
 * send them, sources tried in order with notes, PNG screenshots and their size.
 */
import type { AdapterNote, Insets } from "../core/device/description.js";
import { DeviceError } from "../core/ground/errors.js";
import type { Rect, Size } from "../core/ground/geometry.js";
import { imageSize } from "../core/pixels/image-decode.js";
import { hasPngSignature } from "../core/pixels/png.js";
import { capability, type AppiumSession } from "./session.js";

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

/** The session's screenshot as PNG bytes; throws a DeviceError when it is not a PNG. */
export async function takePng(driver: AppiumSession): Promise<Buffer> {
  let base64: string;
  try {
    base64 = await driver.takeScreenshot();
  } catch (error) {
    throw new DeviceError(`The session did not give a screenshot: ${reason(error)}`, { cause: error });
  }
  const png = Buffer.from(typeof base64 === "string" ? base64 : "", "base64");
  if (png.length < 24 || !hasPngSignature(png)) {
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
