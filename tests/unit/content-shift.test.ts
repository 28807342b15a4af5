/**
 * The content-shift report of screenshot mismatches (docs/heal.md, "Screenshot baselines"), on
 * real PNGs made with sharp and decoded like screenshots: a banner pushing the content down, a
 * removed block pulling it up, and the changes that must not read as a shift.
 */
import sharp from "sharp";
import { describeContentShift, estimateContentShift } from "../../src/core/pixels/content-shift.js";
import { decode, type RawImage } from "../../src/core/pixels/image-decode.js";

const WIDTH = 360;
const HEIGHT = 800;
/** The rows between a 40-pixel status bar and a 40-pixel home indicator. */
const BAND = { top: 40, bottom: HEIGHT - 40 };

/** A deterministic grey level for text-like content: blocks of 6 pixels, different on every row. */
function noise(x: number, y: number, seed: number): number {
  let h = Math.imul((x / 6) | 0, 73856093) ^ Math.imul(y, 19349663) ^ Math.imul(seed, 83492791);
  h = Math.imul(h ^ (h >>> 13), 0x5bd1e995);
  return 60 + ((h >>> 0) % 180);
}

/** A screen: white bars, then content rows; `row(y)` gives the content's grey level at (x, y), or null for white. */
function screen(row: (x: number, y: number) => [number, number, number] | null): RawImage {
  const data = Buffer.alloc(WIDTH * HEIGHT * 4, 255);
  for (let y = BAND.top; y < BAND.bottom; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const rgb = row(x, y);
      if (!rgb) continue;
      data.set(rgb, (y * WIDTH + x) * 4);
    }
  }
  return { data, width: WIDTH, height: HEIGHT };
}

/** Content of the baseline at baseline row `y`: text lines with a white gap between paragraphs. */
function content(x: number, y: number): [number, number, number] | null {
  if (y % 100 >= 90) return null;
  const g = noise(x, y, 1);
  return [g, g, g];
}

/** Through a PNG, as a screenshot arrives. */
async function roundTrip(raw: RawImage): Promise<RawImage> {
  const png = await sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: 4 } })
    .png()
    .toBuffer();
  return decode(png);
}

async function pair(shot: (x: number, y: number) => [number, number, number] | null) {
  return { baseline: await roundTrip(screen(content)), shot: await roundTrip(screen(shot)) };
}

test("a banner inserted at y=300 reports the content below it moved down by its height", async () => {
  const banner = (x: number, y: number): [number, number, number] => [220, 38, noise(x, y, 2) >> 2];
  const { baseline, shot } = await pair((x, y) =>
    y < 300 ? content(x, y) : y < 420 ? banner(x, y) : content(x, y - 120),
  );

  const shift = estimateContentShift(baseline, shot, BAND);

  expect(shift).toEqual({ below: 300, by: 120 });
  expect(describeContentShift(shift!)).toBe("the content below y=300 moved down by 120 px");
});

test("the whole content moved down by 45 px reports the top of the content", async () => {
  const { baseline, shot } = await pair((x, y) => (y < BAND.top + 45 ? null : content(x, y - 45)));

  expect(estimateContentShift(baseline, shot, BAND)).toEqual({ below: BAND.top, by: 45 });
});

test("a removed block reports the content below it moved up", async () => {
  // Rows 400-479 of the baseline are gone; what was below them now starts at 400.
  const { baseline, shot } = await pair((x, y) => content(x, y < 400 ? y : y + 80));

  const shift = estimateContentShift(baseline, shot, BAND);

  expect(shift).toEqual({ below: 480, by: -80 });
  expect(describeContentShift(shift!)).toBe("the content below y=480 moved up by 80 px");
});

test("a restyle (new colours, nothing moved) reports no shift", async () => {
  const { baseline, shot } = await pair((x, y) => {
    const rgb = content(x, y);
    return rgb && [rgb[0], 255 - rgb[1], 120];
  });

  expect(estimateContentShift(baseline, shot, BAND)).toBeUndefined();
});

test("a restyled block in the middle reports no shift", async () => {
  const { baseline, shot } = await pair((x, y) => (y >= 300 && y < 500 ? [30, 64, 175] : content(x, y)));

  expect(estimateContentShift(baseline, shot, BAND)).toBeUndefined();
});

test("a small local change reports no shift", async () => {
  const { baseline, shot } = await pair((x, y) =>
    x >= 100 && x < 124 && y >= 500 && y < 524 ? [255, 0, 0] : content(x, y),
  );

  expect(estimateContentShift(baseline, shot, BAND)).toBeUndefined();
});

test("identical screens and screens of another size report no shift", async () => {
  const { baseline, shot } = await pair(content);
  const smaller = { data: baseline.data.subarray(0, WIDTH * 400 * 4), width: WIDTH, height: 400 };

  expect(estimateContentShift(baseline, shot, BAND)).toBeUndefined();
  expect(estimateContentShift(baseline, smaller, BAND)).toBeUndefined();
});
