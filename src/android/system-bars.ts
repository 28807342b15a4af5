/**
 * Android system bars as insets: which screen edge a bar sits on, from its frame.
 * Frames come from `mobile: getSystemBars` (window frames in display pixels).
 */
import type { Insets } from "../core/device/description.js";
import { nonNegative } from "../appium/index.js";
import type { Rect, Size } from "../core/ground/geometry.js";

/** One bar as `mobile: getSystemBars` reports it. */
export interface BarFrame extends Rect {
  visible: boolean;
}

/** Read one bar entry (`{ visible, x, y, width, height }`); `undefined` when it has another shape. */
export function parseBar(value: unknown): BarFrame | undefined {
  if (!value || typeof value !== "object") return undefined;
  const bar = value as Record<string, unknown>;
  const [x, y, width, height] = [bar.x, bar.y, bar.width, bar.height].map(nonNegative);
  if (typeof bar.visible !== "boolean" || x === undefined || y === undefined) return undefined;
  if (width === undefined || height === undefined) return undefined;
  return { visible: bar.visible, x, y, width, height };
}

export const NO_INSETS: Insets = { top: 0, bottom: 0, left: 0, right: 0 };

/**
 * The inset a bar makes, in screenshot pixels: a wide bar covers the top or bottom edge
 * (its height), a tall one the left or right edge (its width), whichever half it sits in.
 * An invisible or empty bar makes none. `factor` converts display pixels to screenshot pixels.
 */
export function barInsets(bar: BarFrame, screen: Size, factor = 1): Insets {
  if (!bar.visible || bar.width <= 0 || bar.height <= 0) return NO_INSETS;
  const [x, y, width, height] = [bar.x, bar.y, bar.width, bar.height].map((v) => v * factor) as [
    number,
    number,
    number,
    number,
  ];
  if (width >= height) {
    return y + height / 2 < screen.height / 2
      ? { ...NO_INSETS, top: y + height }
      : { ...NO_INSETS, bottom: screen.height - y };
  }
  return x + width / 2 < screen.width / 2
    ? { ...NO_INSETS, left: x + width }
    : { ...NO_INSETS, right: screen.width - x };
}

/** The larger inset on each edge. */
export function mergeInsets(...all: Insets[]): Insets {
  return all.reduce(
    (a, b) => ({
      top: Math.max(a.top, b.top),
      bottom: Math.max(a.bottom, b.bottom),
      left: Math.max(a.left, b.left),
      right: Math.max(a.right, b.right),
    }),
    NO_INSETS,
  );
}
