/*
 * Finding a stored crop elsewhere on a screenshot (docs/heal.md): coarse-to-fine template
 * search on grey images, then the crop's own verdict (pixelmatch metric, as `compare` counts it)
 * at full scale for every candidate, so "found" means what an in-place match means.
 *
 * Written on raw buffers rather than an OpenCV build: the pyramid search meets the budget of
 * the repository's benchmarks with nothing to install (@appium/opencv is 18 MB of wasm).
 */
import type { Rect } from "../ground/geometry.js";
import { cutRegion } from "./crop.js";
import { compare } from "./image-compare.js";
import type { RawImage } from "./image-decode.js";

/** A grey image, one byte a pixel. */
interface Grey {
  data: Uint8Array;
  width: number;
  height: number;
}

/** One place the crop was looked at, with its verdict at full scale. */
export interface CropCandidate {
  /** Where the crop would lie, in pixels of the searched image. */
  rect: Rect;
  /** Share of the crop's pixels that differ there (pixelmatch metric). */
  diffRatio: number;
}

/** How {@link searchCrop} judges. */
export interface CropSearchOptions {
  /** Per-pixel tolerance of the verdict (pixelmatch threshold). */
  threshold: number;
  /** Counting at a candidate stops once this share of pixels differ (its `diffRatio` is then a lower bound). */
  stopAboveRatio: number;
  /** Places checked at full scale (the best few of the coarse search, at least a crop apart). */
  candidates?: number;
}

/** The coarsest level keeps at least this many pixels on the crop's short side. */
const MIN_COARSE_SIDE = 8;
/** Pyramid levels halve; the coarsest is at most 1/16 of full scale. */
const MAX_COARSE_FACTOR = 16;
/**
 * At each finer level, a candidate is looked for this many pixels around where the coarser level
 * put it; at full scale, where a look costs the most, 1 pixel (the level above placed it within 1).
 */
const REFINE_RADIUS = 2;
const FULL_SCALE_RADIUS = 1;
const DEFAULT_CANDIDATES = 4;

/**
 * Look for `crop` inside `area` of `screen` (both RGBA at the same scale). Returns up to
 * `candidates` distinct places, best first, each with its full-scale verdict; none when the
 * crop does not fit the area.
 */
export async function searchCrop(
  screen: RawImage,
  crop: RawImage,
  area: Rect,
  options: CropSearchOptions,
): Promise<CropCandidate[]> {
  if (crop.width > area.width || crop.height > area.height) return [];
  let factor = 1;
  while (factor < MAX_COARSE_FACTOR && Math.min(crop.width, crop.height) / (factor * 2) >= MIN_COARSE_SIDE) factor *= 2;

  const screenLevels = pyramid(greyOf(screen), factor);
  const cropLevels = pyramid(greyOf(crop), factor);
  const levels = screenLevels.length - 1;
  const top = { s: screenLevels[levels]!, c: cropLevels[levels]! };
  const scaled = (v: number) => Math.floor(v / factor);
  const coarse = bestPlaces(top.s, top.c, {
    x0: scaled(area.x),
    y0: scaled(area.y),
    x1: scaled(area.x + area.width) - top.c.width,
    y1: scaled(area.y + area.height) - top.c.height,
    keep: options.candidates ?? DEFAULT_CANDIDATES,
  });

  const found: CropCandidate[] = [];
  for (const start of coarse) {
    let { x, y } = start;
    for (let level = levels - 1; level >= 0; level--) {
      const s = screenLevels[level]!;
      const c = cropLevels[level]!;
      const f = 2 ** level;
      const lo = { x: Math.ceil(area.x / f), y: Math.ceil(area.y / f) };
      const hi = {
        x: Math.floor((area.x + area.width) / f) - c.width,
        y: Math.floor((area.y + area.height) / f) - c.height,
      };
      const r = level === 0 ? FULL_SCALE_RADIUS : REFINE_RADIUS;
      const [best] = bestPlaces(s, c, {
        x0: Math.max(lo.x, x * 2 - r),
        y0: Math.max(lo.y, y * 2 - r),
        x1: Math.min(hi.x, x * 2 + r),
        y1: Math.min(hi.y, y * 2 + r),
        keep: 1,
        first: { x: x * 2, y: y * 2 },
      });
      if (!best) break;
      ({ x, y } = best);
    }
    const rect = { x, y, width: crop.width, height: crop.height };
    if (found.some((f) => f.rect.x === x && f.rect.y === y)) continue;
    const stopAbove = Math.floor(crop.width * crop.height * options.stopAboveRatio);
    const { diffRatio } = await compare(crop, cutRegion(screen, rect), { threshold: options.threshold, stopAbove });
    found.push({ rect, diffRatio });
  }
  return found.sort((a, b) => a.diffRatio - b.diffRatio);
}

/** Luma (ITU-R BT.601 weights in eighths of 256), alpha ignored. */
function greyOf(raw: RawImage): Grey {
  const n = raw.width * raw.height;
  const data = new Uint8Array(n);
  const src = raw.data;
  for (let i = 0, j = 0; i < n; i++, j += 4) data[i] = (src[j]! * 77 + src[j + 1]! * 150 + src[j + 2]! * 29) >> 8;
  return { data, width: raw.width, height: raw.height };
}

/** `grey` and its halvings (2x2 box means) down to `1/factor`, finest first. */
function pyramid(grey: Grey, factor: number): Grey[] {
  const levels = [grey];
  for (let f = 2; f <= factor; f *= 2) levels.push(halve(levels[levels.length - 1]!));
  return levels;
}

function halve(g: Grey): Grey {
  const width = g.width >> 1;
  const height = g.height >> 1;
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const r0 = 2 * y * g.width;
    const r1 = r0 + g.width;
    for (let x = 0; x < width; x++) {
      const i = 2 * x;
      data[y * width + x] = (g.data[r0 + i]! + g.data[r0 + i + 1]! + g.data[r1 + i]! + g.data[r1 + i + 1]! + 2) >> 2;
    }
  }
  return { data, width, height };
}

/**
 * The `keep` places in [x0, x1] x [y0, y1] with the least sum of absolute differences, each at
 * least half a crop from the better ones (so a list of equal buttons gives several places, one
 * button never gives two).
 */
function bestPlaces(
  s: Grey,
  c: Grey,
  {
    x0,
    y0,
    x1,
    y1,
    keep,
    first,
  }: { x0: number; y0: number; x1: number; y1: number; keep: number; first?: { x: number; y: number } },
): { x: number; y: number; sad: number }[] {
  const all: { x: number; y: number; sad: number }[] = [];
  // With one place kept, a sum over the best so far cannot win: its count stops there. The place the
  // coarser level chose is usually the best, so summing it first makes every other count stop early.
  const inside = first && first.x >= x0 && first.x <= x1 && first.y >= y0 && first.y <= y1;
  let limit = keep === 1 && inside && first ? sadAt(s, c, first.x, first.y, Infinity) : Infinity;
  for (let y = Math.max(0, y0); y <= Math.min(y1, s.height - c.height); y++) {
    for (let x = Math.max(0, x0); x <= Math.min(x1, s.width - c.width); x++) {
      const sad = sadAt(s, c, x, y, limit);
      all.push({ x, y, sad });
      if (keep === 1 && sad < limit) limit = sad;
    }
  }
  all.sort((a, b) => a.sad - b.sad);
  const best: typeof all = [];
  const apartX = Math.max(1, c.width / 2);
  const apartY = Math.max(1, c.height / 2);
  for (const p of all) {
    if (best.length >= keep) break;
    if (best.every((b) => Math.abs(b.x - p.x) >= apartX || Math.abs(b.y - p.y) >= apartY)) best.push(p);
  }
  return best;
}

/** Sum of absolute differences of `c` placed at (x, y) on `s`; stops by the row once over `limit`. */
function sadAt(s: Grey, c: Grey, x: number, y: number, limit: number): number {
  let sum = 0;
  for (let row = 0; row < c.height && sum <= limit; row++) {
    const si = (y + row) * s.width + x;
    const ci = row * c.width;
    for (let col = 0; col < c.width; col++) {
      const d = s.data[si + col]! - c.data[ci + col]!;
      sum += d < 0 ? -d : d;
    }
  }
  return sum;
}
