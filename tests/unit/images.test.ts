import sharp from "sharp";
import { PNG } from "pngjs";
import { compare, comparePng, isUniform } from "../../src/core/pixels/image-compare.js";
import { cropPng, encodePng, outlineRect, resizeToFit, sideBySide } from "../../src/core/pixels/image-encode.js";
import { decode, decodeRegion, imageSize, type RawImage } from "../../src/core/pixels/image-decode.js";
import { rectFits, toRect } from "../../src/core/pixels/pixel-rects.js";

/** A PNG of seeded noise: every pixel differs from its neighbours, so crops and offsets show. */
function noisePng(width: number, height: number, seed = 1): Buffer {
  const png = new PNG({ width, height });
  let state = seed;
  for (let i = 0; i < png.data.length; i += 4) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    png.data[i] = state & 0xff;
    png.data[i + 1] = (state >> 8) & 0xff;
    png.data[i + 2] = (state >> 16) & 0xff;
    png.data[i + 3] = 0xff;
  }
  return PNG.sync.write(png);
}

function solid(width: number, height: number, rgba: [number, number, number, number]): RawImage {
  const data = Buffer.alloc(width * height * 4);
  for (let i = 0; i < data.length; i += 4) data.set(rgba, i);
  return { data, width, height };
}

function paint(raw: RawImage, x0: number, y0: number, w: number, h: number, rgba: [number, number, number, number]) {
  const out = { ...raw, data: Buffer.from(raw.data) };
  for (let y = y0; y < y0 + h; y++) for (let x = x0; x < x0 + w; x++) out.data.set(rgba, (y * raw.width + x) * 4);
  return out;
}

describe("decode and encode", () => {
  test("decode gives RGBA pixels of the PNG", async () => {
    const png = noisePng(30, 20);
    const raw = await decode(png);
    expect([raw.width, raw.height, raw.data.length]).toEqual([30, 20, 30 * 20 * 4]);
    expect(raw.data.equals(PNG.sync.read(png).data)).toBe(true);
  });

  test("decode adds alpha to an RGB PNG", async () => {
    const rgb = await sharp({ create: { width: 4, height: 3, channels: 3, background: "#102030" } })
      .png()
      .toBuffer();
    const raw = await decode(rgb);
    expect(raw.data.length).toBe(4 * 3 * 4);
    expect([...raw.data.subarray(0, 4)]).toEqual([0x10, 0x20, 0x30, 0xff]);
  });

  test("encodePng round-trips pixels", async () => {
    const raw = await decode(noisePng(17, 9, 3));
    const again = await decode(await encodePng(raw));
    expect(again.data.equals(raw.data)).toBe(true);
    expect(await imageSize(await encodePng(raw))).toEqual({ width: 17, height: 9 });
  });

  test("imageSize reads the size; a non-image fails", async () => {
    expect(await imageSize(noisePng(12, 34))).toEqual({ width: 12, height: 34 });
    await expect(imageSize(Buffer.from("not an image"))).rejects.toThrow();
  });

  test("decodeRegion equals the same crop of the decoded image", async () => {
    const png = noisePng(64, 48, 7);
    const full = await decode(png);
    const rect = { x: 10, y: 5, width: 20, height: 30 };
    const region = await decodeRegion(png, rect);
    expect([region.width, region.height]).toEqual([20, 30]);
    const expected = Buffer.alloc(20 * 30 * 4);
    for (let y = 0; y < 30; y++) {
      full.data.copy(expected, y * 20 * 4, ((y + 5) * 64 + 10) * 4, ((y + 5) * 64 + 30) * 4);
    }
    expect(region.data.equals(expected)).toBe(true);
  });

  test("cropPng is the same crop, as PNG", async () => {
    const png = noisePng(64, 48, 9);
    const rect = { x: 3, y: 4, width: 11, height: 7 };
    const crop = await cropPng(png, rect);
    expect(crop.subarray(1, 4).toString()).toBe("PNG");
    expect((await decode(crop)).data.equals((await decodeRegion(png, rect)).data)).toBe(true);
  });
});

describe("resizeToFit", () => {
  test("downscales so the long side is maxSide, keeping the aspect ratio", async () => {
    const out = await resizeToFit(noisePng(1000, 400), { maxSide: 500, format: "png" });
    expect([out.width, out.height]).toEqual([500, 200]);
    expect(await imageSize(out.data)).toEqual({ width: 500, height: 200 });
    const tall = await resizeToFit(noisePng(300, 1200), { maxSide: 600, format: "png" });
    expect([tall.width, tall.height]).toEqual([150, 600]);
  });

  test("leaves a smaller image at its size", async () => {
    const out = await resizeToFit(noisePng(120, 80), { maxSide: 500, format: "png" });
    expect([out.width, out.height]).toEqual([120, 80]);
  });

  test("encodes JPEG when asked, smaller than the PNG", async () => {
    const png = noisePng(800, 800);
    const out = await resizeToFit(png, { maxSide: 400, format: "jpeg", quality: 60 });
    expect([...out.data.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
    expect(out.data.length).toBeLessThan(png.length);
  });
});

describe("rectangles", () => {
  test("toRect rounds outward, pads and clamps", () => {
    expect(toRect({ x: 10.4, y: 20.6, width: 5.2, height: 4 }, 100, 100)).toEqual({
      x: 10,
      y: 20,
      width: 6,
      height: 5,
    });
    expect(toRect({ x: 5, y: 5, width: 10, height: 10 }, 100, 100, 8)).toEqual({ x: 0, y: 0, width: 23, height: 23 });
    expect(toRect({ x: 90, y: 95, width: 20, height: 20 }, 100, 100)).toEqual({ x: 90, y: 95, width: 10, height: 5 });
  });

  test("rectFits", () => {
    expect(rectFits({ x: 0, y: 0, width: 100, height: 50 }, 100, 50)).toBe(true);
    expect(rectFits({ x: 1, y: 0, width: 100, height: 50 }, 100, 50)).toBe(false);
    expect(rectFits({ x: 0, y: 0, width: 10, height: 51 }, 100, 50)).toBe(false);
  });
});

describe("compare", () => {
  test("identical bytes return 0 on the fast path, without pixelmatch", async () => {
    // The data is far too short for 100x100, which pixelmatch would reject: only the fast path can answer.
    const a = { data: Buffer.from([1, 2, 3, 4]), width: 100, height: 100 };
    const b = { data: Buffer.from([1, 2, 3, 4]), width: 100, height: 100 };
    expect(await compare(a, b)).toEqual({ diffPixels: 0, diffRatio: 0 });
    await expect(compare(a, b, { diff: true })).rejects.toThrow();
  });

  test("counts differing pixels and their ratio", async () => {
    const a = solid(20, 10, [255, 255, 255, 255]);
    const b = paint(a, 2, 2, 5, 4, [0, 0, 0, 255]);
    expect(await compare(a, b)).toEqual({ diffPixels: 20, diffRatio: 20 / 200, diffPng: undefined });
  });

  test("the threshold tolerates small colour differences", async () => {
    const a = solid(20, 10, [200, 200, 200, 255]);
    const b = paint(a, 0, 0, 10, 10, [205, 205, 205, 255]);
    expect((await compare(a, b, { threshold: 0 })).diffPixels).toBe(100);
    expect((await compare(a, b)).diffPixels).toBe(0);
    const far = paint(a, 0, 0, 10, 10, [20, 20, 20, 255]);
    expect((await compare(a, far, { threshold: 0.5 })).diffPixels).toBe(100);
  });

  test("masks exclude regions from the count", async () => {
    const a = solid(30, 30, [255, 255, 255, 255]);
    const b = paint(paint(a, 0, 0, 30, 4, [255, 0, 0, 255]), 10, 20, 5, 5, [0, 0, 255, 255]);
    expect((await compare(a, b)).diffPixels).toBe(30 * 4 + 25);
    expect((await compare(a, b, { masks: [{ x: 0, y: 0, width: 30, height: 4 }] })).diffPixels).toBe(25);
    const both = [
      { x: 0, y: 0, width: 30, height: 4 },
      { x: 9.5, y: 19.5, width: 6, height: 6 },
    ];
    expect((await compare(a, b, { masks: both })).diffPixels).toBe(0);
    // Masking does not alter the caller's pixels.
    expect(b.data.equals(paint(paint(a, 0, 0, 30, 4, [255, 0, 0, 255]), 10, 20, 5, 5, [0, 0, 255, 255]).data)).toBe(
      true,
    );
  });

  test("masks reaching outside the image are clipped, not wrapped or thrown on", async () => {
    const a = solid(30, 30, [255, 255, 255, 255]);
    const b = paint(a, 0, 0, 1, 1, [0, 0, 0, 255]);
    // Beyond the right edge and below the bottom: nothing to mask, the differing pixel still counts.
    const outside = [
      { x: 40, y: 0, width: 10, height: 10 },
      { x: 0, y: 40, width: 10, height: 10 },
    ];
    expect((await compare(a, b, { masks: outside })).diffPixels).toBe(1);
    expect((await compare(a, b, { masks: [{ x: -5, y: -5, width: 6, height: 6 }] })).diffPixels).toBe(0);
  });

  test("the diff image is a PNG of the compared size, red where pixels differ", async () => {
    const a = solid(40, 20, [255, 255, 255, 255]);
    const b = paint(a, 5, 5, 3, 3, [0, 0, 0, 255]);
    const result = await compare(a, b, { diff: true });
    expect(result.diffPixels).toBe(9);
    expect(result.diffPng).toBeDefined();
    const diff = await decode(result.diffPng!);
    expect([diff.width, diff.height]).toEqual([40, 20]);
    expect([...diff.data.subarray((6 * 40 + 6) * 4, (6 * 40 + 6) * 4 + 3)]).toEqual([255, 0, 0]);
    expect([...diff.data.subarray(0, 3)]).not.toEqual([255, 0, 0]);
  });

  test("comparePng answers identical bytes without decoding, and decodes anything else", async () => {
    // A valid header over pixel data that cannot be inflated: only the byte comparison can answer.
    const undecodable = Buffer.concat([noisePng(8, 8).subarray(0, 33), Buffer.from("not deflated")]);
    expect(await comparePng(undecodable, Buffer.from(undecodable))).toEqual({ diffPixels: 0, diffRatio: 0 });
    await expect(comparePng(undecodable, noisePng(8, 8))).rejects.toMatchObject({
      code: "input",
      message: expect.stringMatching(/^The 8x8 PNG \(45 bytes\) cannot be decoded: it is cut off after 45 bytes/),
    });
    const reencoded = await sharp(noisePng(30, 20)).png({ compressionLevel: 1 }).toBuffer();
    expect(reencoded.equals(noisePng(30, 20))).toBe(false);
    expect((await comparePng(noisePng(30, 20), reencoded)).diffPixels).toBe(0);
    expect((await comparePng(noisePng(30, 20), noisePng(30, 20, 2))).diffPixels).toBeGreaterThan(0);
  });

  test("images of different sizes cannot be compared", async () => {
    await expect(compare(solid(10, 10, [0, 0, 0, 255]), solid(10, 11, [0, 0, 0, 255]))).rejects.toThrow(
      "Cannot compare a 10x10 image with a 10x11 one.",
    );
  });
});

describe("isUniform", () => {
  test("a flat image is uniform; one different pixel is not", () => {
    const flat = solid(50, 50, [1, 2, 3, 255]);
    expect(isUniform(flat)).toBe(true);
    expect(isUniform(paint(flat, 49, 49, 1, 1, [1, 2, 4, 255]))).toBe(false);
    expect(isUniform(paint(flat, 0, 0, 1, 1, [1, 2, 3, 254]))).toBe(false);
  });
});

describe("artifact images", () => {
  test("outlineRect keeps the size and draws on the rectangle's edge only", async () => {
    const png = await encodePng(solid(100, 80, [255, 255, 255, 255]));
    const out = await outlineRect(png, { x: 20, y: 20, width: 40, height: 30 });
    const raw = await decode(out);
    expect([raw.width, raw.height]).toEqual([100, 80]);
    const at = (x: number, y: number) => [...raw.data.subarray((y * 100 + x) * 4, (y * 100 + x) * 4 + 3)];
    expect(at(20, 35)).not.toEqual([255, 255, 255]);
    expect(at(40, 35)).toEqual([255, 255, 255]);
    expect(at(5, 5)).toEqual([255, 255, 255]);
  });

  test("sideBySide lays images out left to right with a gap", async () => {
    const images = [noisePng(30, 20), noisePng(10, 40), noisePng(20, 10)];
    const out = await sideBySide(images);
    expect(await imageSize(out)).toEqual({ width: 30 + 10 + 20 + 2 * 8, height: 40 });
    const raw = await decode(out);
    const first = await decode(images[0]!);
    expect(raw.data.subarray(0, 30 * 4).equals(first.data.subarray(0, 30 * 4))).toBe(true);
  });
});
