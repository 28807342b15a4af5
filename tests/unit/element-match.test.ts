/**
 * A stored element's image against the element on another screen (src/core/pixels/element-match.ts),
 * on real pixels: content a few pixels off stays matched, a cover or another colour does not.
 */
import { resizeRawTo, unmatchedShare } from "../../src/core/pixels/element-match.js";
import type { RawImage } from "../../src/core/pixels/image-decode.js";

type Rgb = [number, number, number];

/** A `width` x `height` image of `fill` with `bars` painted over it. */
function image(
  width: number,
  height: number,
  fill: Rgb,
  bars: { x: number; y: number; w: number; h: number; c: Rgb }[],
) {
  const data = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const bar = bars.find((b) => x >= b.x && x < b.x + b.w && y >= b.y && y < b.y + b.h);
      data.set([...(bar?.c ?? fill), 255], (y * width + x) * 4);
    }
  }
  return { data, width, height } satisfies RawImage;
}

const BLUE: Rgb = [20, 80, 200];
const WHITE: Rgb = [255, 255, 255];
const label = (dx: number) => [{ x: 40 + dx, y: 20, w: 80, h: 20, c: WHITE }];
const options = { radius: 3, threshold: 0.1, stopAbove: 1 };

test("a label 3 pixels off is matched within a radius of 3, not within 1", () => {
  const a = image(160, 60, BLUE, label(0));
  const b = image(160, 60, BLUE, label(3));
  expect(unmatchedShare(a, b, options)).toBe(0);
  // Within 1 pixel, the 2 outer columns of the shift at each end of the label find no like pixel (20 rows each).
  const share = unmatchedShare(a, b, { ...options, radius: 1 });
  expect(share).toBeGreaterThan(70 / 9600);
  expect(share).toBeLessThanOrEqual(80 / 9600);
});

test("a cover over a third of the element, or another colour, leaves that share unmatched", () => {
  const a = image(160, 60, BLUE, label(0));
  const covered = image(160, 60, BLUE, [...label(0), { x: 0, y: 40, w: 160, h: 20, c: [17, 24, 39] }]);
  expect(unmatchedShare(a, covered, options)).toBeCloseTo(1 / 3, 5);
  const red = image(160, 60, [220, 38, 38], label(0));
  expect(unmatchedShare(a, red, options)).toBeGreaterThan(0.8);
});

test("counting stops past stopAbove, and images of two sizes are refused", () => {
  const a = image(100, 10, BLUE, []);
  const b = image(100, 10, WHITE, []);
  expect(unmatchedShare(a, b, { ...options, stopAbove: 0.05 })).toBeCloseTo(51 / 1000, 5);
  expect(() => unmatchedShare(a, image(10, 100, BLUE, []), options)).toThrow(/one size, got 100x10 and 10x100/);
});

test("resizing to another shape keeps the content's relative place", async () => {
  const a = image(160, 60, BLUE, label(0));
  const resized = await resizeRawTo(a, { width: 100, height: 30 });
  expect(resized).toMatchObject({ width: 100, height: 30 });
  // The label's centre (80, 30) of 160x60 lands at (50, 15) of 100x30.
  const at = (x: number, y: number) => [...resized.data.subarray((y * 100 + x) * 4, (y * 100 + x) * 4 + 3)];
  expect(at(50, 15)).toEqual(WHITE);
  expect(at(5, 5)).toEqual(BLUE);
  expect(await resizeRawTo(a, { width: 160, height: 60 })).toBe(a);
});
