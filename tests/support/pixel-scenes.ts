/**
 * Pixel scenes for the comparison tests: anti-aliased shapes and text rendered by libvips, pairs
 * of them that differ the ways screens do, masks of every shape, and pixelmatch's count on copies
 * with the masks painted grey (what tapshot's counters must equal).
 */
import pixelmatch from "pixelmatch";
import sharp from "sharp";
import type { RawImage } from "../../src/core/pixels/image-decode.js";
import type { Rect } from "../../src/core/ground/geometry.js";

export const W = 97;
export const H = 83;

/**
 * Anti-aliased shapes and text rendered by libvips, shifted by (dx, dy); `alpha` < 1 makes them
 * translucent; with `background` false the pixels around them are transparent.
 */
export async function scene(dx: number, dy: number, extra = "", alpha = 1, background = true): Promise<RawImage> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
    ${background ? `<rect width="${W}" height="${H}" fill="#f4f6fb"/>` : ""}
    <g transform="translate(${dx} ${dy})" opacity="${alpha}">
      <circle cx="30" cy="16" r="11.3" fill="#1d4ed8"/>
      <rect x="5.5" y="29.5" width="60" height="3.4" fill="#111827"/>
      <text x="8" y="58" font-family="sans-serif" font-size="15" fill="#374151">Pay 12:41</text>
      <line x1="0" y1="70" x2="${W}" y2="78" stroke="#dc2626" stroke-width="1.3"/>
      ${extra}
    </g></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** A copy with the masks painted flat grey, as `compare` painted them before (0x80 in every channel). */
export function paintedCopy(raw: RawImage, masks: Rect[]): Buffer {
  const out = Buffer.from(raw.data);
  for (const m of masks) {
    const x0 = Math.max(0, Math.floor(m.x));
    const y0 = Math.max(0, Math.floor(m.y));
    const x1 = Math.min(raw.width, Math.ceil(m.x + m.width));
    const y1 = Math.min(raw.height, Math.ceil(m.y + m.height));
    for (let y = y0; y < y1 && x0 < x1; y++) out.fill(0x80, (y * raw.width + x0) * 4, (y * raw.width + x1) * 4);
  }
  return out;
}

export function reference(a: RawImage, b: RawImage, threshold: number, masks: Rect[]): number {
  return pixelmatch(paintedCopy(a, masks), paintedCopy(b, masks), undefined, a.width, a.height, { threshold });
}

export const MASKS: Record<string, Rect[]> = {
  none: [],
  "full-width bars": [
    { x: 0, y: 0, width: W, height: 9 },
    { x: 0, y: H - 7, width: W, height: 7 },
  ],
  "full-width, fractional and reaching outside": [{ x: -3, y: 13.4, width: W + 9, height: 5.2 }],
  "partial, mid-screen": [{ x: 20, y: 10, width: 22, height: 14 }],
  "partial at every edge": [
    { x: 0, y: 20, width: 6, height: 30 },
    { x: W - 5, y: 0, width: 5, height: H },
    { x: 30, y: H - 3, width: 40, height: 10 },
    { x: -4, y: -4, width: 12, height: 10 },
  ],
  overlapping: [
    { x: 10, y: 10, width: 30, height: 30 },
    { x: 25, y: 25, width: 30, height: 30 },
    { x: 0, y: 28, width: W, height: 4 },
  ],
  "through the text's edges": [{ x: 7.5, y: 44.5, width: 40.2, height: 6.1 }],
  "outside the image": [{ x: W + 2, y: 0, width: 10, height: 10 }],
};

export const PAIRS: Record<string, () => Promise<[RawImage, RawImage]>> = {
  "1-px shift": async () => [await scene(0, 0), await scene(1, 0)],
  "1-px vertical shift": async () => [await scene(0, 0), await scene(0, 1)],
  "half-pixel shift (anti-aliasing)": async () => [await scene(0, 0), await scene(0.5, 0.5)],
  "clock changed": async () => [
    await scene(0, 0),
    await scene(0, 0, `<rect x="60" y="46" width="14" height="14" fill="#f4f6fb"/>`),
  ],
  "translucent shapes, shifted": async () => [await scene(0, 0, "", 0.6), await scene(0.5, 0, "", 0.6)],
  "translucent shapes on transparency, shifted": async () => [
    await scene(0, 0, "", 0.6, false),
    await scene(0.5, 1, "", 0.6, false),
  ],
};
