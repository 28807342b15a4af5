/**
 * When a screen that does not match counts as final (docs/api.md "When a call fails"): the
 * settle rule, its options and its check. A settled screen that still does not match fails (or
 * heals) then; only a screen that keeps changing waits for the deadline, and for a tap also a
 * settled screen that is not its stored screen yet (src/core/flows/shared/stored-screen.ts).
 */
import { checkKnownOptions } from "../ground/checks.js";
import { InputError } from "../ground/errors.js";
import type { Rect } from "../ground/geometry.js";
import { decode } from "../pixels/image-decode.js";
import { sameOutside } from "../pixels/masks.js";
import { comparePngRows } from "../pixels/png-compare.js";

/** The `settle` option of `tap` and `toMatchScreenshot`. */
export interface SettleOptions {
  /**
   * Consecutive screenshots, taken about 200 ms apart, that must be identical outside the masks
   * before the screen counts as settled. Default 2 (Playwright's `toHaveScreenshot` rule).
   */
  shots?: number;
  /**
   * How long a settled screen that does not match is still watched before the call fails (or heals).
   * Default 1000 (the screen a call waits for often appears after an unchanged frame, e.g. right
   * after a tap).
   */
  graceMs?: number;
}

/** The settle rule of one call, checked. */
export interface SettleRule {
  shots: number;
  graceMs: number;
}

/** The defaults of each call's settle rule. */
export const DEFAULT_SETTLE = {
  toMatchScreenshot: { shots: 2, graceMs: 1_000 },
  tap: { shots: 2, graceMs: 1_000 },
} as const satisfies Record<string, SettleRule>;

const MAX_SHOTS = 20;

/** Check a call's `settle` option, filling in its defaults. */
export function checkSettle(value: unknown, defaults: SettleRule): SettleRule {
  const opts = checkKnownOptions(value, ["shots", "graceMs"], "settle");
  const shots = opts.shots ?? defaults.shots;
  if (typeof shots !== "number" || !Number.isInteger(shots) || shots < 2 || shots > MAX_SHOTS) {
    throw new InputError(
      `settle.shots must be a whole number from 2 to ${MAX_SHOTS} (screenshots in a row that must be identical), ` +
        `e.g. 3; got ${String(shots)}.`,
    );
  }
  const graceMs = opts.graceMs ?? defaults.graceMs;
  if (typeof graceMs !== "number" || !Number.isFinite(graceMs) || graceMs < 0) {
    throw new InputError(
      `settle.graceMs must be a number of milliseconds, 0 or more, e.g. 1000; got ${String(graceMs)}.`,
    );
  }
  return { shots, graceMs };
}

/**
 * Whether two screenshots are identical outside the masks (a clock tick is not motion): bytes
 * first, then the PNGs row by row at threshold 0, then both decoded when rows cannot be compared.
 */
export async function sameScreen(a: Buffer, b: Buffer, masks: Rect[]): Promise<boolean> {
  if (a.equals(b)) return true;
  const counted = comparePngRows(a, b, { threshold: 0, masks, stopAbove: 0 });
  if (counted) return counted.diffPixels === 0;
  return sameOutside(await decode(a), await decode(b), masks);
}
