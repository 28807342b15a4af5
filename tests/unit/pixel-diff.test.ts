/**
 * The band-wise, copy-free counter (src/core/pixels/pixel-diff.ts) gives pixelmatch's count on the same
 * pair with the masks painted into copies, as `compare` did before it: for anti-aliased shapes
 * shifted by a pixel and by half a pixel, across band edges, with transparent pixels and with
 * masks of every shape. An early stop gives the same verdict as the full count.
 */
import { countDiffPixels, DiffCounter } from "../../src/core/pixels/pixel-diff.js";
import { compare } from "../../src/core/pixels/image-compare.js";
import type { RawImage } from "../../src/core/pixels/image-decode.js";
import type { Rect } from "../../src/core/ground/geometry.js";
import { H, MASKS, PAIRS, reference, scene, W } from "../support/pixel-scenes.js";

describe("countDiffPixels equals pixelmatch on painted copies", () => {
  for (const [pairName, makePair] of Object.entries(PAIRS)) {
    for (const [maskName, masks] of Object.entries(MASKS)) {
      test(`${pairName}, masks: ${maskName}`, async () => {
        const [a, b] = await makePair();
        for (const threshold of [0, 0.1, 0.3]) {
          const expected = reference(a, b, threshold, masks);
          expect(countDiffPixels(a, b, { threshold, masks })).toEqual({ diffPixels: expected, complete: true });
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
    expect(countDiffPixels(a, b, { threshold: 0.1, masks: beside }).diffPixels).toBe(painted);
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
      expect(countDiffPixels(a, b, { threshold: 0.1, masks }).diffPixels).toBe(expected);
    }
  });

  test("a single differing pixel in any row, band edges included, is found", async () => {
    const a = await scene(0, 0);
    for (const y of [0, 1, 15, 16, 17, 31, 32, H - 1]) {
      const b = { ...a, data: Buffer.from(a.data) };
      const i = (y * W + 50) * 4;
      b.data[i] = 255 - b.data[i]!;
      b.data[i + 1] = 255 - b.data[i + 1]!;
      expect(countDiffPixels(a, b, { threshold: 0.1 }).diffPixels).toBe(reference(a, b, 0.1, []));
    }
  });
});

describe("a band of a taller image", () => {
  test("counts its rows as the whole image does: the checkerboard under transparent pixels stays put", () => {
    const [width, height] = [61, 40];
    // Opaque grey against the same grey made fully transparent at every third pixel: each such pixel's
    // distance depends on the checkerboard colour at its place in the whole image.
    const a = Buffer.alloc(width * height * 4, 128);
    for (let i = 3; i < a.length; i += 4) a[i] = 255;
    const b = Buffer.from(a);
    for (let y = 0; y < height; y++) for (let x = y % 3; x < width; x += 3) b[(y * width + x) * 4 + 3] = 0;
    let moved = 0;
    for (let first = 3; first < 20; first++) {
      const whole = new DiffCounter({ data: a, width, height }, { data: b, width, height }, 0.3);
      whole.countRows(first + 2, height);
      const rows = { width, height: height - first };
      const band = (firstRow?: number) => {
        const [ba, bb] = [a, b].map((img) => img.subarray(first * width * 4));
        const counter = new DiffCounter({ data: ba!, ...rows }, { data: bb!, ...rows }, 0.3, [], firstRow);
        counter.countRows(2, height - first);
        return counter.diffPixels;
      };
      expect(band(first)).toBe(whole.diffPixels);
      if (band() !== whole.diffPixels) moved++;
    }
    // Counting the band as an image of its own would move the checkerboard and change the count.
    expect(moved).toBeGreaterThan(5);
  });
});

describe("early stop", () => {
  test("stops once the count exceeds stopAbove, with the verdict of the full count", async () => {
    const [a, b] = [await scene(0, 0), await scene(1, 1)];
    const full = reference(a, b, 0.1, []);
    expect(full).toBeGreaterThan(50);
    for (const allowed of [0, 1, 10, full - 1, full, full + 1]) {
      const counted = countDiffPixels(a, b, { threshold: 0.1, masks: [], stopAbove: allowed });
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
