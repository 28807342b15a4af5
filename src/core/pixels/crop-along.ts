/*
 * Finding a stored crop on a scrolled screen: after a swipe the element may sit a row higher or
 * lower than when it was learned (the list has a row more or fewer), so the crop is looked for
 * along the scroll axis, not only at its stored place. Rows (or columns) are matched by their
 * brightness profile first, and the few best places are then compared pixel by pixel with the
 * crop's own rule.
 */
import { cutRegion, type CropVerdict } from "./crop.js";
import { compare } from "./image-compare.js";
import type { RawImage } from "./image-decode.js";
import type { Rect } from "../ground/geometry.js";

/** Places whose profile fits best that are compared in full. */
const CANDIDATES = 4;

/** What {@link findAlong} looks for, and where. */
export interface AlongSearch {
  /** The stored crop's pixels. */
  expected: RawImage;
  /** Where the crop was stored, in screen pixels. */
  crop: Rect;
  /** The decoded screen to look on. */
  screen: RawImage;
  /** The scroll axis the crop may have moved along. */
  axis: "x" | "y";
  /** The part of the screen that scrolls. */
  region: Rect;
  verdict: CropVerdict;
}

/**
 * Where `expected` (the crop stored at `crop`) appears on `screen`, moved only along `axis` and
 * staying inside `region`: the shift from the stored place, or `undefined` when it is not there.
 */
export async function findAlong({
  expected,
  crop,
  screen,
  axis,
  region,
  verdict,
}: AlongSearch): Promise<{ shift: number; diffRatio: number } | undefined> {
  const length = axis === "y" ? crop.height : crop.width;
  const stored = axis === "y" ? crop.y : crop.x;
  // The region, widened to the stored place: a crop learned half out of the region is still looked for.
  const lo = Math.min(stored, axis === "y" ? region.y : region.x);
  const hi = Math.max(stored, (axis === "y" ? region.y + region.height : region.x + region.width) - length);
  if (hi < lo) return undefined;
  const want = profile(expected, { x: 0, y: 0, width: crop.width, height: crop.height }, axis);
  const across =
    axis === "y"
      ? { x: crop.x, y: 0, width: crop.width, height: screen.height }
      : { x: 0, y: crop.y, width: screen.width, height: crop.height };
  const have = profile(screen, across, axis);
  const scored: { at: number; cost: number }[] = [];
  for (let at = lo; at <= hi; at++) {
    let cost = 0;
    for (let i = 0; i < length; i++) cost += Math.abs(want[i]! - have[at + i]!);
    scored.push({ at, cost });
  }
  // The stored place first (the usual case: the same list), then the best fits.
  scored.sort((a, b) => a.cost - b.cost);
  const places = [stored, ...scored.slice(0, CANDIDATES).map((s) => s.at)].filter(
    (at, i, all) => at >= lo && at <= hi && all.indexOf(at) === i,
  );
  for (const at of places) {
    const rect = axis === "y" ? { ...crop, y: at } : { ...crop, x: at };
    const { diffRatio } = await compare(expected, cutRegion(screen, rect), { threshold: verdict.threshold });
    if (diffRatio <= verdict.maxDiffRatio) return { shift: at - stored, diffRatio };
  }
  return undefined;
}

/** The summed brightness of each row (axis y) or column (axis x) of `rect` in `image`, indexed from the image's edge. */
function profile(image: RawImage, rect: Rect, axis: "x" | "y"): Float64Array {
  const out = new Float64Array(axis === "y" ? rect.y + rect.height : rect.x + rect.width);
  const { data, width } = image;
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    for (let x = rect.x; x < rect.x + rect.width; x++) {
      const i = (y * width + x) * 4;
      out[axis === "y" ? y : x]! += data[i]! + data[i + 1]! + data[i + 2]!;
    }
  }
  return out;
}
