/*
 * The cheap rungs of a tap's heal ladder that look at pixels only (docs/heal.md): the stored
 * crop a few pixels off its place, and the stored crop anywhere outside the system bars.
 */
import type { Point, Rect, Sides, Size } from "../ground/geometry.js";
import type { CropVerdict } from "./crop.js";
import { searchCrop } from "./crop-search.js";
import { decodeRegion, type RawImage } from "./image-decode.js";
import { rectFits } from "./pixel-rects.js";

export type { CropVerdict } from "./crop.js";

/** What the crop searches read of the device (a `DeviceDescription` fits): its screen, scale and system bars. */
export interface CropScreen {
  /** Screenshot size in pixels. */
  screen: Size;
  /** Screenshot pixels per tap unit. */
  scale: number;
  /** System bars in screenshot pixels. */
  insets: Sides;
}

/** A nearby shift is at most this many tap units in each direction (a grown status bar, font hinting). */
export const NEARBY_UNITS = 3;
/** Another place whose crop differs in at most this share of pixels makes a search match ambiguous. */
const AMBIGUOUS_DIFF_RATIO = 0.05;

/** Where the stored crop was found, as a shift of the stored place. */
export interface Shift {
  dx: number;
  dy: number;
  diffRatio: number;
}

/** What the whole-screen search found. */
export type SearchFinding =
  | { kind: "unique"; rect: Rect; shift: Shift }
  | { kind: "ambiguous"; rects: Rect[] }
  | { kind: "none"; bestDiffRatio: number | undefined };

/**
 * The stored crop within {@link NEARBY_UNITS} tap units of its place on `png`, or `undefined`.
 * Decodes only the neighbourhood.
 */
export async function nearbyShift(
  png: Buffer,
  expected: RawImage,
  crop: Rect,
  device: CropScreen,
  verdict: CropVerdict,
): Promise<Shift | undefined> {
  const margin = Math.max(1, Math.round(NEARBY_UNITS * device.scale));
  const { width, height } = device.screen;
  const x0 = Math.max(0, crop.x - margin);
  const y0 = Math.max(0, crop.y - margin);
  const area = {
    x: x0,
    y: y0,
    width: Math.min(width, crop.x + crop.width + margin) - x0,
    height: Math.min(height, crop.y + crop.height + margin) - y0,
  };
  if (!rectFits(area, width, height)) return undefined;
  const around = await decodeRegion(png, area);
  const whole = { x: 0, y: 0, width: area.width, height: area.height };
  const [best] = await searchCrop(around, expected, whole, { ...searchVerdict(verdict), candidates: 1 });
  if (!best || best.diffRatio > verdict.maxDiffRatio) return undefined;
  return { dx: area.x + best.rect.x - crop.x, dy: area.y + best.rect.y - crop.y, diffRatio: best.diffRatio };
}

/**
 * Search all of `screen` outside the system bars for the stored crop. One place within the
 * allowed share, and no other place close to it (a list of equal buttons), is `unique`.
 */
export async function searchMoved(
  screen: RawImage,
  expected: RawImage,
  crop: Rect,
  device: CropScreen,
  verdict: CropVerdict,
): Promise<SearchFinding> {
  const { top, bottom, left, right } = device.insets;
  const area = { x: left, y: top, width: screen.width - left - right, height: screen.height - top - bottom };
  const found = await searchCrop(screen, expected, area, searchVerdict(verdict));
  const matches = found.filter((c) => c.diffRatio <= verdict.maxDiffRatio);
  const close = found.filter((c) => c.diffRatio <= Math.max(AMBIGUOUS_DIFF_RATIO, verdict.maxDiffRatio));
  if (matches.length === 1 && close.length === 1) {
    const rect = matches[0]!.rect;
    return {
      kind: "unique",
      rect,
      shift: { dx: rect.x - crop.x, dy: rect.y - crop.y, diffRatio: matches[0]!.diffRatio },
    };
  }
  if (matches.length >= 1) return { kind: "ambiguous", rects: close.map((c) => c.rect) };
  return { kind: "none", bestDiffRatio: found[0]?.diffRatio };
}

/** `point` moved by `shift`. */
export function shifted(point: Point, shift: Pick<Shift, "dx" | "dy">): Point {
  return { x: point.x + shift.dx, y: point.y + shift.dy };
}

function searchVerdict(verdict: CropVerdict) {
  return { threshold: verdict.threshold, stopAboveRatio: Math.max(AMBIGUOUS_DIFF_RATIO, verdict.maxDiffRatio) };
}
