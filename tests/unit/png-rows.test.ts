import sharp from "sharp";
import { PNG } from "pngjs";
import { decode, decodeRegion } from "../../src/core/pixels/image-decode.js";
import { createInflate, crc32, deflateSync, inflateSync } from "node:zlib";
import { openInflateInto, zlibInternals } from "../../src/core/pixels/inflate-into.js";
import { decodePngRect, InflatedRows, pngLayout } from "../../src/core/pixels/png-rows.js";
import type { Rect } from "../../src/core/ground/geometry.js";

const WIDTH = 37;
const HEIGHT = 61;

/** Pixels with flat runs, gradients and noise, so every filter type meets every kind of neighbour. */
function pixels(alpha: boolean): Buffer {
  const data = Buffer.alloc(WIDTH * HEIGHT * 4);
  let state = 7;
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      state = (state * 1103515245 + 12345) & 0x7fffffff;
      const i = (y * WIDTH + x) * 4;
      const noisy = y % 3 === 0;
      data[i] = noisy ? state & 0xff : x * 7;
      data[i + 1] = noisy ? (state >> 8) & 0xff : y * 4;
      data[i + 2] = y > 40 ? 250 : (x * y) & 0xff;
      data[i + 3] = alpha ? (noisy ? (state >> 16) & 0xff : 200) : 255;
    }
  }
  return data;
}

/** A pngjs PNG with every row filtered with `filterType` (-1: pngjs picks per row). */
function pngjsPng(alpha: boolean, filterType: number): Buffer {
  const png = new PNG({ width: WIDTH, height: HEIGHT });
  png.data = pixels(alpha);
  return PNG.sync.write(png, { colorType: alpha ? 6 : 2, filterType });
}

const raw = (alpha: boolean) => sharp(pixels(alpha), { raw: { width: WIDTH, height: HEIGHT, channels: 4 } });

/** What libvips decodes for `rect`: the reference. */
async function libvips(png: Buffer, rect: Rect): Promise<Buffer> {
  return sharp(png)
    .extract({ left: rect.x, top: rect.y, width: rect.width, height: rect.height })
    .ensureAlpha()
    .raw()
    .toBuffer();
}

const RECTS: Rect[] = [
  { x: 0, y: 0, width: WIDTH, height: HEIGHT },
  { x: 0, y: 0, width: 1, height: 1 },
  { x: WIDTH - 1, y: HEIGHT - 1, width: 1, height: 1 },
  { x: 5, y: 20, width: 17, height: 9 },
  { x: 10, y: 44, width: WIDTH - 10, height: HEIGHT - 44 },
];

describe("decodePngRect (8-bit RGB and RGBA, not interlaced)", () => {
  const cases: [string, () => Promise<Buffer>][] = [];
  for (const alpha of [false, true]) {
    const kind = alpha ? "RGBA" : "RGB";
    for (const filter of [0, 1, 2, 3, 4, -1])
      cases.push([`${kind}, pngjs filter ${filter}`, async () => pngjsPng(alpha, filter)]);
    cases.push([`${kind}, libvips adaptive filtering`, () => raw(alpha).png({ adaptiveFiltering: true }).toBuffer()]);
    cases.push([
      `${kind}, libvips, one IDAT chunk per 4 bytes of zlib`,
      () => raw(alpha).png({ compressionLevel: 0 }).toBuffer(),
    ]);
  }

  it.each(cases)("equals libvips on %s, for rectangles anywhere", async (_name, make) => {
    const png = await make();
    expect(pngLayout(png)).toBeDefined();
    for (const rect of RECTS) {
      const mine = decodePngRect(png, rect);
      expect(mine?.equals(await libvips(png, rect))).toBe(true);
    }
    // decode reads a small PNG like this one with the row decoder, so a replay never loads libvips.
    expect((await decode(png)).data.equals(await libvips(png, RECTS[0]!))).toBe(true);
  });

  it("equals libvips on a real 1179x2556 screenshot; a crop low on it, far below any restart row, goes to libvips", async () => {
    const { readFile } = await import("node:fs/promises");
    const png = await readFile("bench/fixtures/iphone15-cart.png");
    const checkout = { x: 36, y: 1419, width: 1107, height: 180 };
    expect(decodePngRect(png, checkout)?.equals(await libvips(png, checkout))).toBe(true);
    const low = { x: 100, y: 2294, width: 500, height: 150 };
    expect(decodePngRect(png, low)).toBeUndefined();
    expect((await decodeRegion(png, low)).data.equals(await libvips(png, low))).toBe(true);
  });
});

describe("PNGs decodePngRect leaves to libvips, which decodeRegion then uses", () => {
  const rect = { x: 3, y: 30, width: 20, height: 12 };
  const others: [string, () => Promise<Buffer>][] = [
    ["palette", () => raw(false).png({ palette: true }).toBuffer()],
    ["grey", () => raw(false).removeAlpha().toColourspace("b-w").png().toBuffer()],
    ["grey with alpha", () => raw(true).toColourspace("b-w").png().toBuffer()],
    ["16-bit RGBA", () => raw(true).toColourspace("rgb16").png().toBuffer()],
    ["Adam7 interlaced", () => raw(true).png({ progressive: true }).toBuffer()],
    ["JPEG", () => raw(false).jpeg().toBuffer()],
  ];

  it.each(others)("%s: not read here, decoded by libvips", async (_name, make) => {
    const image = await make();
    // IHDR's bit depth, colour type and interlace method (bytes 24, 25, 28): the encoder made what the case says.
    const plainRgb = image[24] === 8 && (image[25] === 2 || image[25] === 6) && image[28] === 0;
    expect(image[1] === 0x50 && plainRgb).toBe(false);
    expect(decodePngRect(image, rect)).toBeUndefined();
    expect((await decodeRegion(image, rect)).data.equals(await libvips(image, rect))).toBe(true);
  });

  it("a PNG with an embedded colour profile is left to libvips, which converts it to sRGB", async () => {
    const p3 = await raw(false).withIccProfile("p3").png().toBuffer();
    expect(p3.indexOf("iCCP", 8, "latin1")).toBeGreaterThan(0);
    expect(decodePngRect(p3, rect)).toBeUndefined();
    const converted = await libvips(p3, rect);
    expect((await decodeRegion(p3, rect)).data.equals(converted)).toBe(true);
    // Reading the pixels raw would differ: the profile is not sRGB.
    const { data } = await decode(p3);
    const full = { x: 0, y: 0, width: WIDTH, height: HEIGHT };
    expect(data.equals(await libvips(p3, full))).toBe(true);
    const unconverted = await sharp(p3, { ignoreIcc: true }).ensureAlpha().raw().toBuffer();
    expect(unconverted.equals(data)).toBe(false);
  });

  it("a chunk whose CRC is wrong is left to libvips", async () => {
    const png = pngjsPng(true, 4);
    const broken = Buffer.from(png);
    // The last byte of the first IDAT chunk's data.
    const idat = broken.indexOf("IDAT", 8, "latin1");
    const length = broken.readUInt32BE(idat - 4);
    broken.writeUInt8(broken.readUInt8(idat + 4 + length - 1) ^ 0xff, idat + 4 + length - 1);
    expect(decodePngRect(broken, rect)).toBeUndefined();
  });

  it("a crop below a long chain of rows that read the row above is left to libvips", async () => {
    const png = new PNG({ width: 1179, height: 500 });
    for (let i = 0; i < png.data.length; i++) png.data[i] = (i * 31) % 251;
    const upOnly = PNG.sync.write(png, { colorType: 2, filterType: 2 });
    const low = { x: 0, y: 450, width: 1179, height: 10 };
    expect(decodePngRect(upOnly, low)).toBeUndefined();
    expect((await decodeRegion(upOnly, low)).data.equals(await libvips(upOnly, low))).toBe(true);
    const high = { x: 0, y: 300, width: 1179, height: 10 };
    expect(decodePngRect(upOnly, high)?.equals(await libvips(upOnly, high))).toBe(true);
    // The limit, ~400 rows of a 1179 px RGB screen less the crop's: a crop at row 390 still gets row 0 (rows are not
    // released one too early); one at row 391 is refused.
    const atLimit = { x: 0, y: 390, width: 1179, height: 10 };
    expect(decodePngRect(upOnly, atLimit)?.equals(await libvips(upOnly, atLimit))).toBe(true);
    expect(decodePngRect(upOnly, { ...atLimit, y: 391 })).toBeUndefined();
  });

  it("a rectangle outside the image is not read", async () => {
    const png = pngjsPng(false, 2);
    expect(decodePngRect(png, { x: 30, y: 0, width: 8, height: 1 })).toBeUndefined();
    expect(decodePngRect(png, { x: 0, y: 60, width: 1, height: 2 })).toBeUndefined();
  });
});

/** A PNG chunk with its length and CRC. */
function chunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const framed = Buffer.alloc(body.length + 8);
  framed.writeUInt32BE(data.length, 0);
  body.copy(framed, 4);
  framed.writeUInt32BE(crc32(body), body.length + 4);
  return framed;
}

/** `png` with its zlib stream replaced by `stream`, cut into IDAT chunks of `partBytes`. */
function withStream(png: Buffer, stream: Buffer, partBytes = stream.length): Buffer {
  const ihdr = png.subarray(8, 8 + 25);
  const parts: Buffer[] = [];
  for (let at = 0; at < stream.length; at += partBytes) parts.push(chunk("IDAT", stream.subarray(at, at + partBytes)));
  return Buffer.concat([png.subarray(0, 8), ihdr, ...parts, chunk("IEND", Buffer.alloc(0))]);
}

describe("InflatedRows (one buffer per decode, reused as rows are released)", () => {
  const png = new PNG({ width: 1179, height: 400 });
  for (let i = 0; i < png.data.length; i++) png.data[i] = (i % 4000 < 2000 ? i * 31 : i >> 12) % 251;
  const encoded = PNG.sync.write(png, { colorType: 6, filterType: -1 });
  const stream = Buffer.concat(pngLayout(encoded)!.idat);
  const inflated = inflateSync(stream);
  const rowBytes = 1179 * 4 + 1;

  it("hands out zlib's rows across IDAT chunks of any size, released as it goes or kept whole", () => {
    for (const partBytes of [stream.length, 4096, 7]) {
      for (const release of [true, false]) {
        const rows = InflatedRows.open(pngLayout(withStream(encoded, stream, partBytes))!)!;
        const expected = (y: number) => inflated.subarray(y * rowBytes, (y + 1) * rowBytes);
        for (let y = 0; y < 400; y++) {
          const row = rows.row(y);
          expect(row && Buffer.from(row).equals(expected(y))).toBe(true);
          if (release && y >= 3) {
            // The three rows above stay readable however often the kept rows moved to the front.
            rows.release(y - 3);
            expect(Buffer.from(rows.row(y - 3)!).equals(expected(y - 3))).toBe(true);
          }
        }
        // Kept whole, rows read again are the same; released, they are refused.
        if (release) expect(() => rows.row(0)).toThrow("row 0 was released");
        else expect(Buffer.from(rows.row(3)!).equals(expected(3))).toBe(true);
        rows.close();
      }
    }
  });

  it("takes rows released before they are inflated", () => {
    const rows = InflatedRows.open(pngLayout(encoded)!)!;
    rows.release(300);
    expect(Buffer.from(rows.row(350)!).equals(inflated.subarray(350 * rowBytes, 351 * rowBytes))).toBe(true);
    expect(() => rows.row(299)).toThrow("row 299 was released");
    rows.close();
  });

  it("gives no row past data zlib rejects or a stream that ends early, and decodePngRect leaves such PNGs to libvips", () => {
    const damaged = Buffer.from(stream);
    for (let at = 100; at < damaged.length - 10; at += 97) damaged.writeUInt8(damaged.readUInt8(at) ^ 0x5a, at);
    const truncated = stream.subarray(0, stream.length >> 1);
    for (const bad of [damaged, truncated]) {
      const badPng = withStream(encoded, bad, 1000);
      const rows = InflatedRows.open(pngLayout(badPng)!)!;
      expect(rows.row(399)).toBeUndefined();
      // Asking again never writes to zlib's closed handle (that would abort the process).
      expect(rows.row(399)).toBeUndefined();
      rows.close();
      expect(decodePngRect(badPng, { x: 0, y: 390, width: 10, height: 10 })).toBeUndefined();
    }
  });

  it("uses zlib handles Node has, never the libvips fallback, and finds none on a stream without them", () => {
    // .ci/run runs this on every tested Node line (scripts/node-lines.txt): a release that drops or changes these
    // internals fails here, naming itself, rather than decoding every crop with libvips unseen.
    const inflate = createInflate();
    expect(zlibInternals(inflate)).toBeDefined();
    inflate.close();
    const inflater = openInflateInto();
    expect({ node: process.version, fallback: inflater === undefined }).toEqual({
      node: process.version,
      fallback: false,
    });
    // And the internal inflates into the caller's buffer as inflate-into.ts expects: all of it, nothing left over.
    const out = Buffer.alloc(inflated.length);
    const step = { input: stream, inAt: 0, out, outAt: 0, room: out.length, last: true };
    expect(inflater!.write(step)).toEqual({ roomLeft: 0, inputLeft: 0 });
    expect(out.equals(inflated)).toBe(true);
    inflater!.close();
    expect(zlibInternals({ _handle: {} })).toBeUndefined();
    expect(zlibInternals({ _handle: { writeSync() {} }, _writeState: [0, 0] })).toBeUndefined();
  });
});

describe("decodePngRect under a long chain of Up rows", () => {
  it("keeps only the rows it may unfilter, so a restart row far down the screen is still reached", async () => {
    // 1179x20000 RGB, every row Up-filtered (a copy of the row above) except rows 0 and 19700 (Sub). Rows kept from
    // row 0 down to row 19700 would be 70 MB, more than the row buffer may hold (64 MiB); a crop at row 19990 needs
    // only rows 19700 down, and the decoder keeps no more than ~1,500 rows above a crop this narrow.
    const width = 1179;
    const height = 20000;
    const rowBytes = width * 3 + 1;
    const filtered = Buffer.alloc(rowBytes * height);
    for (let y = 0; y < height; y++) filtered[y * rowBytes] = 2;
    for (const y of [0, 19700]) {
      filtered[y * rowBytes] = 1;
      for (let i = 1; i < rowBytes; i++) filtered[y * rowBytes + i] = (i * (y ? 7 : 13)) & 0xff;
    }
    const header = Buffer.alloc(13);
    header.writeUInt32BE(width, 0);
    header.writeUInt32BE(height, 4);
    header.set([8, 2, 0, 0, 0], 8);
    const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    const png = Buffer.concat([
      signature,
      chunk("IHDR", header),
      chunk("IDAT", deflateSync(filtered, { level: 1 })),
      chunk("IEND", Buffer.alloc(0)),
    ]);
    const crop = { x: 100, y: 19990, width: 200, height: 10 };
    expect(decodePngRect(png, crop)?.equals(await libvips(png, crop))).toBe(true);
  });
});
