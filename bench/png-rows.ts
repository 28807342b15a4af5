/**
 * A streaming PNG row decoder, for benchmark 7's crop-decode figure only: it inflates the pixel
 * data chunk by chunk, stops once the crop's bottom row is inflated, unfilters the rows down to
 * there (each row's filter may refer to the row above, so every row above the crop is needed)
 * and returns the crop as RGBA. 8-bit RGB or RGBA, non-interlaced PNGs only (the fixtures).
 */
import { createInflate } from "node:zlib";
import type { RawImage, Rect } from "tapshot/images";

function chunks(png: Buffer): { ihdr: Buffer; idat: Buffer[] } {
  const idat: Buffer[] = [];
  let ihdr: Buffer | undefined;
  for (let at = 8; at < png.length;) {
    const length = png.readUInt32BE(at);
    const type = png.toString("latin1", at + 4, at + 8);
    const data = png.subarray(at + 8, at + 8 + length);
    if (type === "IHDR") ihdr = data;
    else if (type === "IDAT") idat.push(data);
    at += 12 + length;
  }
  if (!ihdr) throw new Error("not a PNG: no IHDR chunk");
  return { ihdr, idat };
}

/** Inflate `parts` until `needed` bytes are out, then stop. */
function inflatePrefix(parts: Buffer[], needed: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const inflate = createInflate();
    const out: Buffer[] = [];
    let length = 0;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      inflate.destroy();
      resolve(Buffer.concat(out, length));
    };
    inflate.on("data", (c: Buffer) => {
      out.push(c);
      length += c.length;
      if (length >= needed) finish();
    });
    inflate.on("end", finish);
    inflate.on("error", (e) => (done ? undefined : reject(e)));
    for (const part of parts) inflate.write(part);
    inflate.end();
  });
}

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/** The crop's pixels as RGBA, decoding only the rows down to its bottom. */
export async function decodeRowsTo(png: Buffer, rect: Rect): Promise<RawImage> {
  const { ihdr, idat } = chunks(png);
  const width = ihdr.readUInt32BE(0);
  const [depth, colour, , , interlace] = [ihdr[8], ihdr[9], ihdr[10], ihdr[11], ihdr[12]];
  if (depth !== 8 || (colour !== 2 && colour !== 6) || interlace !== 0) {
    throw new Error("decodeRowsTo reads 8-bit RGB or RGBA non-interlaced PNGs only");
  }
  const bpp = colour === 6 ? 4 : 3;
  const stride = width * bpp;
  const bottom = rect.y + rect.height;
  const data = await inflatePrefix(idat, bottom * (stride + 1));
  let previous = new Uint8Array(stride);
  let current = new Uint8Array(stride);
  const out = Buffer.alloc(rect.width * rect.height * 4);
  for (let y = 0; y < bottom; y++) {
    const start = y * (stride + 1);
    const filter = data[start]!;
    const line = data.subarray(start + 1, start + 1 + stride);
    for (let i = 0; i < stride; i++) {
      const left = i >= bpp ? current[i - bpp]! : 0;
      const up = previous[i]!;
      const upLeft = i >= bpp ? previous[i - bpp]! : 0;
      const raw = line[i]!;
      current[i] =
        filter === 0
          ? raw
          : filter === 1
            ? raw + left
            : filter === 2
              ? raw + up
              : filter === 3
                ? raw + ((left + up) >> 1)
                : raw + paeth(left, up, upLeft);
    }
    if (y >= rect.y) {
      for (let x = 0; x < rect.width; x++) {
        const s = (rect.x + x) * bpp;
        const d = ((y - rect.y) * rect.width + x) * 4;
        out[d] = current[s]!;
        out[d + 1] = current[s + 1]!;
        out[d + 2] = current[s + 2]!;
        out[d + 3] = bpp === 4 ? current[s + 3]! : 255;
      }
    }
    [previous, current] = [current, previous];
  }
  return { data: out, width: rect.width, height: rect.height };
}
