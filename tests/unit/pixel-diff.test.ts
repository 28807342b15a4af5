/**
 * The band-wise, copy-free counter (src/core/pixel-diff.ts) gives pixelmatch's count on the same
 * pair with the masks painted into copies, as `compare` did before it: for anti-aliased shapes
 * shifted by a pixel and by half a pixel, across band edges, with transparent pixels and with
 * masks of every shape. An early stop gives the same verdict as the full count.
 */
import pixelmatch from "pixelmatch";
import sharp from "sharp";
import { countDiffPixels } from "../../src/core/pixel-diff.js";
import { compare, type RawImage } from "../../src/core/images.js";
import type { Rect } from "../../src/core/geometry.js";

const W = 97;
const H = 83;

/** Anti-aliased shapes and text rendered by libvips, shifted by (dx, dy); `alpha` < 1 makes them translucent. */
async function scene(dx: number, dy: number, extra = "", alpha = 1): Promise<RawImage> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
    <rect width="${W}" height="${H}" fill="#f4f6fb"/>
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
function paintedCopy(raw: RawImage, masks: Rect[]): Buffer {
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

function reference(a: RawImage, b: RawImage, threshold: number, masks: Rect[]): number {
  return pixelmatch(paintedCopy(a, masks), paintedCopy(b, masks), undefined, a.width, a.height, { threshold });
}

const MASKS: Record<string, Rect[]> = {
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

const PAIRS: Record<string, () => Promise<[RawImage, RawImage]>> = {
  "1-px shift": async () => [await scene(0, 0), await scene(1, 0)],
  "1-px vertical shift": async () => [await scene(0, 0), await scene(0, 1)],
  "half-pixel shift (anti-aliasing)": async () => [await scene(0, 0), await scene(0.5, 0.5)],
  "clock changed": async () => [
    await scene(0, 0),
    await scene(0, 0, `<rect x="60" y="46" width="14" height="14" fill="#f4f6fb"/>`),
  ],
  "translucent shapes, shifted": async () => [await scene(0, 0, "", 0.6), await scene(0.5, 0, "", 0.6)],
};

describe("countDiffPixels equals pixelmatch on painted copies", () => {
  for (const [pairName, makePair] of Object.entries(PAIRS)) {
    for (const [maskName, masks] of Object.entries(MASKS)) {
      test(`${pairName}, masks: ${maskName}`, async () => {
        const [a, b] = await makePair();
        for (const threshold of [0, 0.1, 0.3]) {
          const expected = reference(a, b, threshold, masks);
          expect(countDiffPixels(a, b, threshold, masks)).toEqual({ diffPixels: expected, complete: true });
          expect((await compare(a, b, { threshold, masks })).diffPixels).toBe(expected);
        }
      });
    }
  }

  test("a mask's grey neighbours take part in anti-aliasing detection as painted pixels did", async () => {
    // An anti-aliased edge right beside a mask: the detector's neighbourhood reaches into the mask.
    const [a, b] = [await scene(0, 0), await scene(0.5, 0.5)];
    const beside: Rect[] = [{ x: 0, y: 0, width: 19, height: H }];
    const painted = reference(a, b, 0.1, beside);
    expect(countDiffPixels(a, b, 0.1, beside).diffPixels).toBe(painted);
  });
});

describe("bands", () => {
  /** Horizontal anti-aliased edges exactly at band boundaries (every 16 rows) and one row either side. */
  async function edges(shift: number): Promise<RawImage> {
    const lines = [15, 16, 31.5, 32, 47, 48.5, 63.7]
      .map((y, n) => `<rect x="${4 + n * 12 + shift}" y="${y + shift}" width="9.3" height="1.4" fill="#000"/>`)
      .join("");
    return scene(0, 0, lines.replace(/fill="#000"/g, 'fill="#0f172a"'));
  }

  test("anti-aliasing across band edges is judged as on the whole image", async () => {
    const [a, b] = [await edges(0), await edges(0.5)];
    for (const masks of [[], MASKS["full-width bars"]!, MASKS["partial, mid-screen"]!]) {
      const expected = reference(a, b, 0.1, masks);
      expect(expected).toBeGreaterThan(0);
      expect(countDiffPixels(a, b, 0.1, masks).diffPixels).toBe(expected);
    }
  });

  test("a single differing pixel in any row, band edges included, is found", async () => {
    const a = await scene(0, 0);
    for (const y of [0, 1, 15, 16, 17, 31, 32, H - 1]) {
      const b = { ...a, data: Buffer.from(a.data) };
      const i = (y * W + 50) * 4;
      b.data[i] = 255 - b.data[i]!;
      b.data[i + 1] = 255 - b.data[i + 1]!;
      expect(countDiffPixels(a, b, 0.1).diffPixels).toBe(reference(a, b, 0.1, []));
    }
  });
});

describe("early stop", () => {
  test("stops once the count exceeds stopAbove, with the verdict of the full count", async () => {
    const [a, b] = [await scene(0, 0), await scene(1, 1)];
    const full = reference(a, b, 0.1, []);
    expect(full).toBeGreaterThan(50);
    for (const allowed of [0, 1, 10, full - 1, full, full + 1]) {
      const counted = countDiffPixels(a, b, 0.1, [], allowed);
      expect(counted.diffPixels <= allowed).toBe(full <= allowed);
      if (!counted.complete) expect(counted.diffPixels).toBe(allowed + 1);
      else expect(counted.diffPixels).toBe(full);
      const viaCompare = await compare(a, b, { stopAbove: allowed });
      expect(viaCompare.diffPixels <= allowed).toBe(full <= allowed);
      expect(viaCompare.stoppedAbove).toBe(full > allowed ? allowed : undefined);
    }
  });

  test("a diff image always comes with the full count", async () => {
    const [a, b] = [await scene(0, 0), await scene(1, 1)];
    const result = await compare(a, b, { diff: true, stopAbove: 3, masks: MASKS["overlapping"] });
    expect(result.diffPixels).toBe(reference(a, b, 0.1, MASKS["overlapping"]!));
    expect(result.stoppedAbove).toBeUndefined();
    expect(result.diffPng).toBeDefined();
  });
});
