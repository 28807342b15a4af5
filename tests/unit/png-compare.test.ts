/**
 * Comparing two PNGs row by row (src/core/pixels/png-compare.ts) gives pixelmatch's count on the decoded
 * pair with the masks painted into copies, whichever encoders made the PNGs: one encoder for both
 * (equal rows skipped undecoded, differing ones unfiltered from a restart row above), or two that
 * filter differently (rows unfiltered in both, until many equal rows filtered otherwise show two
 * encoders and libvips decodes). It stops at the verdict. RGB against RGBA is left to libvips.
 */
import { crc32 } from "node:zlib";
import sharp from "sharp";
import { PNG } from "pngjs";
import { comparePngRows } from "../../src/core/pixels/png-compare.js";
import { comparePng } from "../../src/core/pixels/image-compare.js";
import type { RawImage } from "../../src/core/pixels/image-decode.js";
import type { Rect } from "../../src/core/ground/geometry.js";
import { MASKS, PAIRS, reference } from "../support/pixel-scenes.js";

/** How a PNG is written: pngjs with one filter for every row (-1: pngjs picks per row), or libvips. */
type Encoder = { pngjs: number; alpha: boolean } | { libvips: "adaptive" | "none"; alpha: boolean };

function encode(raw: RawImage, encoder: Encoder): Promise<Buffer> {
  if ("pngjs" in encoder) {
    const png = new PNG({ width: raw.width, height: raw.height });
    png.data = Buffer.from(raw.data);
    const colorType = encoder.alpha ? 6 : 2;
    return Promise.resolve(PNG.sync.write(png, { colorType, filterType: encoder.pngjs }));
  }
  let image = sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: 4 } });
  if (!encoder.alpha) image = image.removeAlpha();
  return image.png({ adaptiveFiltering: encoder.libvips === "adaptive" }).toBuffer();
}

const SAME_ENCODER: Record<string, Encoder> = {
  "pngjs, Up rows (long chains)": { pngjs: 2, alpha: true },
  "pngjs, Paeth rows, RGB": { pngjs: 4, alpha: false },
  "pngjs, Average rows": { pngjs: 3, alpha: true },
  "pngjs, filter per row": { pngjs: -1, alpha: true },
  "libvips, adaptive, RGB": { libvips: "adaptive", alpha: false },
};
const MIXED: Record<string, [Encoder, Encoder]> = {
  "other filters": [
    { pngjs: 2, alpha: true },
    { pngjs: 1, alpha: true },
  ],
  "other filters, RGB": [
    { pngjs: 4, alpha: false },
    { libvips: "none", alpha: false },
  ],
};

/** The pixels of `png` as the counters read them (libvips' decode). */
async function decoded(png: Buffer): Promise<RawImage> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

describe("comparePngRows equals pixelmatch on painted copies", () => {
  for (const [encoderName, encoder] of Object.entries(SAME_ENCODER)) {
    test(`one encoder, ${encoderName}: every pair, every mask`, async () => {
      for (const makePair of Object.values(PAIRS)) {
        const [a, b] = await makePair();
        const [pa, pb] = [await encode(a, encoder), await encode(b, encoder)];
        const [da, db] = [await decoded(pa), await decoded(pb)];
        for (const masks of Object.values(MASKS)) {
          const expected = reference(da, db, 0.1, masks);
          expect(comparePngRows(pa, pb, { threshold: 0.1, masks })).toEqual({ diffPixels: expected, complete: true });
        }
      }
    });
  }

  for (const [encoderName, [ea, eb]] of Object.entries(MIXED)) {
    test(`${encoderName}: rows filtered otherwise are unfiltered in both; mostly equal rows go to libvips`, async () => {
      for (const [pairName, makePair] of Object.entries(PAIRS)) {
        const [a, b] = await makePair();
        const [pa, pb] = [await encode(a, ea), await encode(b, eb)];
        const [da, db] = [await decoded(pa), await decoded(pb)];
        for (const masks of Object.values(MASKS)) {
          const expected = reference(da, db, 0.1, masks);
          const counted = comparePngRows(pa, pb, { threshold: 0.1, masks });
          // A clock change leaves 60-odd rows equal but filtered otherwise: two encoders, so libvips decodes.
          if (pairName === "clock changed") expect(counted).toBeUndefined();
          else expect(counted).toEqual({ diffPixels: expected, complete: true });
          expect((await comparePng(pa, pb, { masks })).diffPixels).toBe(expected);
        }
      }
    });
  }

  test("the same pixels in two encodings: left to libvips, no differing pixel", async () => {
    const [a] = await PAIRS["1-px shift"]!();
    for (const [ea, eb] of Object.values(MIXED)) {
      const [pa, pb] = [await encode(a, ea), await encode(a, eb)];
      expect(comparePngRows(pa, pb, { threshold: 0 })).toBeUndefined();
      expect((await comparePng(pa, pb, { threshold: 0 })).diffPixels).toBe(0);
    }
  });
});

describe("tall screens, many times the first row buffer (256 KB)", () => {
  /** `raw` repeated `times` down one tall image, so differences fall at every offset of the band comparing them. */
  function stacked(raw: RawImage, times: number): RawImage {
    return { data: Buffer.concat(Array(times).fill(raw.data)), width: raw.width, height: raw.height * times };
  }

  test.each(Object.keys(PAIRS))("%s, repeated 23 times down the screen", async (name) => {
    const [a, b] = (await PAIRS[name]!()).map((raw) => stacked(raw, 23));
    for (const encoder of [
      { pngjs: -1, alpha: true },
      { libvips: "adaptive", alpha: false },
    ] as Encoder[]) {
      const [pa, pb] = [await encode(a!, encoder), await encode(b!, encoder)];
      const [da, db] = [await decoded(pa), await decoded(pb)];
      for (const masks of [MASKS["none"]!, MASKS["partial at every edge"]!]) {
        const expected = reference(da, db, 0.1, masks);
        expect(comparePngRows(pa, pb, { threshold: 0.1, masks })).toEqual({ diffPixels: expected, complete: true });
      }
    }
  });

  const WIDTH = 391;
  const HEIGHT = 1400;

  /** Noisy text-like rows with flat runs, so every filter type is picked somewhere by an adaptive encoder. */
  function screen(): RawImage {
    const data = Buffer.alloc(WIDTH * HEIGHT * 4);
    let state = 11;
    for (let y = 0; y < HEIGHT; y++) {
      for (let x = 0; x < WIDTH; x++) {
        state = (state * 1103515245 + 12345) & 0x7fffffff;
        const i = (y * WIDTH + x) * 4;
        const ink = y % 40 < 12 && (state & 7) < 3;
        data[i] = ink ? 20 : 240 - (y % 200);
        data[i + 1] = ink ? 30 : 244;
        data[i + 2] = ink ? 60 : 230 + (x % 20);
        data[i + 3] = 255;
      }
    }
    return { data, width: WIDTH, height: HEIGHT };
  }

  /** A copy with the colours of `rows` inverted from column `x0` to `x1`. */
  function edited(raw: RawImage, rows: number[], x0 = 100, x1 = 140): RawImage {
    const data = Buffer.from(raw.data);
    for (const y of rows) {
      for (let x = x0; x < x1; x++) {
        const i = (y * WIDTH + x) * 4;
        for (let c = 0; c < 3; c++) data[i + c] = 255 - data[i + c]!;
      }
    }
    return { ...raw, data };
  }

  const EDITS: Record<string, number[]> = {
    "one row": [700],
    "scattered rows, equal rows between (the comparison re-converges)": [0, 3, 6, 250, 251, 900, 1399],
    "a block of 300 rows": Array.from({ length: 300 }, (_, i) => 500 + i),
    "the lower half": Array.from({ length: HEIGHT / 2 }, (_, i) => HEIGHT / 2 + i),
  };
  const masks: Rect[] = [
    { x: 0, y: 0, width: WIDTH, height: 20 },
    { x: 120, y: 880, width: 30, height: 40 },
  ];

  test.each(Object.entries(EDITS))("%s: counts equal pixelmatch's, with and without masks", async (_name, rows) => {
    const base = screen();
    const other = edited(base, rows);
    for (const encoder of [
      { pngjs: 2, alpha: false },
      { libvips: "adaptive", alpha: true },
    ] as Encoder[]) {
      const [pa, pb] = [await encode(base, encoder), await encode(other, encoder)];
      for (const m of [[], masks]) {
        const expected = reference(base, other, 0.1, m);
        expect(comparePngRows(pa, pb, { threshold: 0.1, masks: m })).toEqual({ diffPixels: expected, complete: true });
      }
    }
  });

  test("two encoders, one differing row: left to libvips, which gives pixelmatch's count", async () => {
    const base = screen();
    const other = edited(base, [1200]);
    const [pa, pb] = [await encode(base, { pngjs: 4, alpha: true }), await encode(other, { pngjs: 2, alpha: true })];
    expect(comparePngRows(pa, pb, { threshold: 0.1 })).toBeUndefined();
    expect((await comparePng(pa, pb)).diffPixels).toBe(reference(base, other, 0.1, []));
  });

  test("stops at the verdict: the count is one over what is allowed, and the verdict is the full count's", async () => {
    const base = screen();
    const other = edited(base, EDITS["the lower half"]!);
    const encoder: Encoder = { libvips: "adaptive", alpha: false };
    const [pa, pb] = [await encode(base, encoder), await encode(other, encoder)];
    const full = reference(base, other, 0.1, []);
    for (const allowed of [0, 10, 1000, full - 1, full]) {
      const result = comparePngRows(pa, pb, { threshold: 0.1, masks: [], stopAbove: allowed });
      expect(result).toEqual(
        full > allowed ? { diffPixels: allowed + 1, complete: false } : { diffPixels: full, complete: true },
      );
      const viaComparePng = await comparePng(pa, pb, { stopAbove: allowed });
      expect(viaComparePng.stoppedAbove).toBe(full > allowed ? allowed : undefined);
    }
  });
});

describe("PNGs left to libvips", () => {
  test("a palette PNG, RGB against RGBA, another size or corrupt data: undefined, and comparePng decodes or reports them", async () => {
    const [a, b] = await PAIRS["clock changed"]!();
    const rgba = await encode(a, { pngjs: -1, alpha: true });
    const rgb = await encode(b, { pngjs: -1, alpha: false });
    expect(comparePngRows(rgba, rgb, { threshold: 0.1 })).toBeUndefined();
    expect((await comparePng(rgba, rgb)).diffPixels).toBe(reference(a, await decoded(rgb), 0.1, []));

    const palette = await sharp(b.data, { raw: { width: b.width, height: b.height, channels: 4 } })
      .png({ palette: true, colours: 256 })
      .toBuffer();
    expect(comparePngRows(rgba, palette, { threshold: 0.1 })).toBeUndefined();
    const decodedPalette = await decoded(palette);
    expect((await comparePng(rgba, palette)).diffPixels).toBe(reference(a, decodedPalette, 0.1, []));

    const smaller = await sharp(rgba).extract({ left: 0, top: 0, width: 50, height: 50 }).png().toBuffer();
    expect(comparePngRows(rgba, smaller, { threshold: 0.1 })).toBeUndefined();
    await expect(comparePng(rgba, smaller)).rejects.toThrow(/Cannot compare a 97x83 image with a 50x50 one/);

    // The zlib stream cut short inside its chunk (the CRC fixed up, so only the data is wrong).
    const short = truncatedIdat(rgba);
    expect(comparePngRows(rgba, short, { threshold: 0.1 })).toBeUndefined();
  });
});

/** `png` with its single IDAT chunk cut to half its data, its CRC recomputed. */
function truncatedIdat(png: Buffer): Buffer {
  const at = png.indexOf("IDAT", 8, "latin1") - 4;
  const length = png.readUInt32BE(at);
  const data = png.subarray(at + 8, at + 8 + (length >> 1));
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  chunk.write("IDAT", 4, "latin1");
  data.copy(chunk, 8);
  chunk.writeUInt32BE(crc32(chunk.subarray(4, 8 + data.length)), 8 + data.length);
  return Buffer.concat([png.subarray(0, at), chunk, png.subarray(at + 12 + length)]);
}
