/**
 * Measures the local OCR engine on this machine: installed size of its packages, time to
 * load, warm latency of a read and of a full `locate`, and the process's memory. Screens are
 * rendered with sharp at phone resolutions (1179x2556, like a 393x852 @3x device, and
 * 1500x2127). Run with `npx tsx bench/ocr/bench.ts [--runs N]`; prints one JSON object.
 */
import { readdir, readFile, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { loadOcrEngine } from "tapshot/providers";
import { ocr, OCR_PACKAGES } from "tapshot/providers";

const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 5;
const FONT = 'font-family="DejaVu Sans"';

/** The cart screen in CSS pixels (393 wide), drawn at `scale`. */
function cartSvg(width: number, height: number): string {
  const s = width / 393;
  const t = (x: number, y: number, size: number, fill: string, text: string, extra = "") =>
    `<text x="${x * s}" y="${y * s}" ${FONT} font-size="${size * s}" fill="${fill}" ${extra}>${text}</text>`;
  const r = (x: number, y: number, w: number, h: number, fill: string, extra = "") =>
    `<rect x="${x * s}" y="${y * s}" width="${w * s}" height="${h * s}" fill="${fill}" ${extra}/>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    ${r(0, 0, 393, height / s, "#f4f5f7")}${r(0, 0, 393, 60, "#1a73e8")}
    ${t(16, 38, 20, "#fff", "My Cart", 'font-weight="bold"')}
    ${r(8, 72, 377, 64, "#fff", `rx="${8 * s}"`)}${t(20, 110, 16, "#202124", "Blue T-shirt")}
    ${t(200, 110, 16, "#202124", "$19.99")}
    ${r(290, 86, 80, 34, "#fff", `rx="${5 * s}" stroke="#c5221f" stroke-width="${s}"`)}
    ${t(330, 109, 14, "#c5221f", "Remove", 'text-anchor="middle"')}
    ${r(8, 146, 377, 64, "#fff", `rx="${8 * s}"`)}${t(20, 184, 16, "#202124", "Running shoes")}
    ${t(200, 184, 16, "#202124", "$89.00")}
    ${r(290, 160, 80, 34, "#fff", `rx="${5 * s}" stroke="#c5221f" stroke-width="${s}"`)}
    ${t(330, 183, 14, "#c5221f", "Remove", 'text-anchor="middle"')}
    ${t(16, 232, 11, "#5f6368", "Prices include VAT. Free returns within 30 days.")}
    ${r(8, 246, 377, 92, "#1e1f24", `rx="${10 * s}"`)}${t(24, 272, 13, "#9aa0a6", "Gift card balance")}
    ${t(24, 298, 22, "#e8e8ea", "$25.00", 'font-weight="bold"')}${t(24, 324, 16, "#e8e8ea", "Apply to order")}
    ${r(12, 360, 369, 48, "#1a73e8", `rx="${24 * s}"`)}
    ${t(196, 391, 18, "#fff", "Checkout", 'font-weight="bold" text-anchor="middle"')}
    ${t(16, 440, 15, "#1a73e8", "Continue shopping")}</svg>`;
}

const EXPECTED = [
  "My Cart",
  "Blue T-shirt",
  "Remove",
  "Running shoes",
  "Prices include VAT",
  "Gift card balance",
  "$25.00",
  "Apply to order",
  "Checkout",
  "Continue shopping",
];

async function dirSize(dir: string): Promise<number> {
  let total = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await dirSize(full);
    else if (entry.isFile()) total += (await stat(full)).size;
  }
  return total;
}

/** The OCR packages and everything they pull in, per package-lock.json, with their size on disk. */
async function installedSize(): Promise<{ packages: string[]; megabytes: number }> {
  const lock = JSON.parse(await readFile("package-lock.json", "utf8")) as {
    packages: Record<string, { dependencies?: Record<string, string> }>;
  };
  const seen = new Set<string>();
  const queue: string[] = [...OCR_PACKAGES];
  while (queue.length) {
    const name = queue.shift()!;
    if (seen.has(name)) continue;
    seen.add(name);
    queue.push(...Object.keys(lock.packages[`node_modules/${name}`]?.dependencies ?? {}));
  }
  let bytes = 0;
  for (const name of seen) bytes += await dirSize(path.join("node_modules", name)).catch(() => 0);
  return { packages: [...seen].sort(), megabytes: Math.round(bytes / 1e5) / 10 };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const size = await installedSize();
  const rssBefore = process.memoryUsage().rss;
  let t = performance.now();
  const engine = await loadOcrEngine();
  const loadMs = performance.now() - t;

  const screens: Record<string, unknown> = {};
  for (const [width, height] of [
    [1179, 2556],
    [1500, 2127],
  ] as const) {
    const png = await sharp(Buffer.from(cartSvg(width, height)))
      .png()
      .toBuffer();
    t = performance.now();
    const first = await engine.read(png);
    const firstMs = performance.now() - t;
    const reads: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      t = performance.now();
      await engine.read(png);
      reads.push(performance.now() - t);
    }
    // A full locate on a screen not read before (the channel caches recent reads).
    const locates: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const variant = await sharp(png)
        .composite([
          { input: { create: { width: 1, height: 1, channels: 3, background: `#0000${i + 10}` } }, top: 0, left: 0 },
        ])
        .png()
        .toBuffer();
      const screen = { mimeType: "image/png" as const, data: variant.toString("base64"), width, height };
      t = performance.now();
      await ocr().request(
        { kind: "locate", screen, prompt: 'the "Checkout" button' },
        { signal: new AbortController().signal },
      );
      locates.push(performance.now() - t);
    }
    const read = first.map((l) => l.text).join(" | ");
    screens[`${width}x${height}`] = {
      firstReadMs: Math.round(firstMs),
      warmReadMsMedian: Math.round(median(reads)),
      warmLocateMsMedian: Math.round(median(locates)),
      missed: EXPECTED.filter((e) => !read.includes(e)),
      read,
    };
  }
  const usage = process.resourceUsage();
  console.log(
    JSON.stringify(
      {
        engine: engine.model,
        cpus: os.cpus().length,
        loadAverage: os.loadavg().map((l) => Math.round(l * 10) / 10),
        installed: size,
        loadMs: Math.round(loadMs),
        screens,
        rssMegabytes: {
          beforeLoad: Math.round(rssBefore / 1e6),
          afterRuns: Math.round(process.memoryUsage().rss / 1e6),
          peak: Math.round(usage.maxRSS / 1e3),
        },
      },
      null,
      2,
    ),
  );
}

await main();
