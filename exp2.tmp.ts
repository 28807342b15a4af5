import { readFile } from "node:fs/promises";
import { decode, type RawImage } from "./src/core/pixels/images.js";
import { cutRegion } from "./src/core/pixels/crop.js";
import sharp from "sharp";
async function resizeTo(raw: RawImage, w: number, h: number): Promise<RawImage> {
  const data = await sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: 4 } }).resize(w, h, { fit: "fill" }).ensureAlpha().raw().toBuffer();
  return { data, width: w, height: h };
}
function yiq(d: Uint8Array | Buffer, i: number) {
  const r = d[i]!, g = d[i + 1]!, b = d[i + 2]!;
  return [r * 0.29889531 + g * 0.58662247 + b * 0.11448223, r * 0.59597799 - g * 0.2741761 - b * 0.32180189, r * 0.21147017 - g * 0.52261711 + b * 0.31114694];
}
function missing(a: RawImage, b: RawImage, r: number, t: number) {
  const max = 35215 * t * t;
  let n = 0;
  for (let y = 0; y < a.height; y++) for (let x = 0; x < a.width; x++) {
    const [ya, ia, qa] = yiq(a.data, (y * a.width + x) * 4);
    let ok = false;
    for (let dy = -r; dy <= r && !ok; dy++) { const yy = y + dy; if (yy < 0 || yy >= b.height) continue;
      for (let dx = -r; dx <= r && !ok; dx++) { const xx = x + dx; if (xx < 0 || xx >= b.width) continue;
        const [yb, ib, qb] = yiq(b.data, (yy * b.width + xx) * 4);
        const d = 0.5053 * (ya - yb) ** 2 + 0.299 * (ia - ib) ** 2 + 0.1957 * (qa - qb) ** 2;
        if (d <= max) ok = true; } }
    if (!ok) n++;
  }
  return n / (a.width * a.height);
}
const src = await decode(await readFile("/tmp/tr/iphone-15-stretched.png"));
const stored = cutRegion(src, { x: 330, y: 1431, width: 519, height: 154 });
for (const [file, r] of [["iphone-se-stretched", { x: 210, y: 900, width: 330, height: 81 }], ["iphone-se-dialog", { x: 32, y: 900, width: 686, height: 104 }], ["iphone-se-default", { x: 32, y: 900, width: 686, height: 104 }]] as const) {
  const region = cutRegion(await decode(await readFile(`/tmp/tr/${file}.png`)), r);
  const res = await resizeTo(stored, r.width, r.height);
  for (const rad of [1, 2, 3, 4]) console.log(file, rad, missing(res, region, rad, 0.1).toFixed(4), missing(region, res, rad, 0.1).toFixed(4));
}
