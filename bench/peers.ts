/**
 * Benchmark 7, peers: tapshot against the comparators its users could pick instead
 * (bench/peer-tools.ts), each peer alternating with tapshot in one run, on the 1179x2556 cart
 * screenshot and edited copies of it, from PNG files, from PNG bytes in memory and from decoded
 * pixels. Figures are tapshot / peer (<= 1 means tapshot is as fast or faster). Also: each tool's
 * verdict on every pair, a stored crop found at its place against OpenCV template matching (the
 * engine of Appium's images plugin), where decoding a low crop's rows costs least, and each
 * tool's peak RSS over 50 comparisons in a fresh process (peer-memory-child.ts).
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pixelmatch from "pixelmatch";
import sharp from "sharp";
import { compare, decode, decodeRegion, type RawImage } from "tapshot/images";
import { runJsonChild } from "./child.js";
import { ALLOWED_PIXELS, BAR_MASKS, PEERS, tapshot, type PeerName, type Tool, type Verdict } from "./peer-tools.js";
import { IPHONE_15, invertRect, loadScreen, rgba } from "./screens.js";
import { alternate, figure, fromMedians, median, wallMs, type Figure } from "./stats.js";

const require = createRequire(import.meta.url);

/** Options of {@link benchPeers}. */
export interface PeersOptions {
  runs: number;
  warmup: number;
  /** Child processes per tool for the memory figure. */
  memoryRuns: number;
}

/** The pairs timed (and judged) and the pairs only judged. */
const TIMED = ["identical bytes", "same pixels re-encoded", "near-identical", "very different"] as const;
const JUDGED = ["clock changed in the status bar", "1-px shift", "half-pixel anti-aliasing shift"] as const;
type PairName = (typeof TIMED)[number] | (typeof JUDGED)[number];

interface Pair {
  png: Buffer;
  raw: RawImage;
  file: string;
}

/** The cart screen's rows shifted down by `shift` (0-1) of a pixel, blending neighbouring rows. */
function shiftedRows(raw: RawImage, shift: number): Buffer {
  const out = Buffer.from(raw.data);
  const row = raw.width * 4;
  for (let y = 1; y < raw.height; y++) {
    for (let i = 0; i < row; i++) {
      const here = raw.data[y * row + i]!;
      const above = raw.data[(y - 1) * row + i]!;
      out[y * row + i] = Math.round(here * (1 - shift) + above * shift);
    }
  }
  return out;
}

/**
 * The base screen and its edited copies, all encoded alike (RGBA, libpng's adaptive filtering), as
 * one device encodes every screenshot it sends; "same pixels re-encoded" is the one PNG of another
 * encoding (no filtering, zlib level 9).
 */
async function makePairs(dir: string): Promise<{ base: Pair; pairs: Record<PairName, Pair>; fixture: Buffer }> {
  const cart = await loadScreen("cart");
  const raw = await rgba(cart.png);
  const { width, height } = raw;
  const encode = (data: Buffer) =>
    sharp(data, { raw: { width, height, channels: 4 } })
      .png({ adaptiveFiltering: true })
      .toBuffer();
  const basePng = await encode(raw.data);
  const edited: Record<PairName, () => Promise<Buffer>> = {
    "identical bytes": async () => Buffer.from(basePng),
    "same pixels re-encoded": () => sharp(basePng).png({ compressionLevel: 9, adaptiveFiltering: false }).toBuffer(),
    "near-identical": () => encode(invertRect(raw, { x: 900, y: 400, width: 20, height: 20 })),
    "very different": () => encode(invertRect(raw, { x: 0, y: height >> 1, width, height: height >> 1 })),
    "clock changed in the status bar": () => encode(invertRect(raw, { x: 120, y: 50, width: 110, height: 40 })),
    "1-px shift": () => encode(shiftedRows(raw, 1)),
    "half-pixel anti-aliasing shift": () => encode(shiftedRows(raw, 0.5)),
  };
  const baseFile = join(dir, "base.png");
  await writeFile(baseFile, basePng);
  const pairs = {} as Record<PairName, Pair>;
  for (const [name, make] of Object.entries(edited) as [PairName, () => Promise<Buffer>][]) {
    const png = await make();
    const file = join(dir, `${name.replace(/[^a-z0-9]+/g, "-")}.png`);
    await writeFile(file, png);
    pairs[name] = { png, raw: await rgba(png), file };
  }
  if (pairs["same pixels re-encoded"].png.equals(basePng)) throw new Error("re-encoding gave the same bytes");
  return { base: { png: basePng, raw, file: baseFile }, pairs, fixture: cart.png };
}

type Source = "files" | "bytes" | "decoded";
const SOURCES: Source[] = ["files", "bytes", "decoded"];

function runner(tool: Tool, source: Source, base: Pair, pair: Pair, dir: string): (() => Promise<Verdict>) | undefined {
  if (source === "files" && tool.files) return () => tool.files!(base.file, pair.file, dir);
  if (source === "bytes" && tool.bytes) return () => tool.bytes!(base.png, pair.png, dir);
  if (source === "decoded" && tool.decoded) return () => tool.decoded!(base.raw, pair.raw);
  return undefined;
}

/** What tapshot's compare answered before this benchmark's changes: pixelmatch on copies with the bars painted grey. */
function previousTapshot(base: RawImage, actual: RawImage): Verdict {
  const paint = (raw: RawImage) => {
    const out = Buffer.from(raw.data);
    for (const m of BAR_MASKS) out.fill(0x80, m.y * raw.width * 4, (m.y + m.height) * raw.width * 4);
    return out;
  };
  const diffPixels = pixelmatch(paint(base), paint(actual), undefined, base.width, base.height, { threshold: 0.1 });
  return { pass: diffPixels <= ALLOWED_PIXELS, figure: diffPixels };
}

/** Each tool's verdict on each pair: pair -> tool -> "pass (figure)" or "FAIL (figure)". */
export type Verdicts = Record<string, Record<string, string>>;

export async function benchPeers({
  runs,
  warmup,
  memoryRuns,
}: PeersOptions): Promise<{ figures: Figure[]; verdicts: Verdicts }> {
  const dir = await mkdtemp(join(tmpdir(), "tapshot-bench-peers-"));
  const peers: Tool[] = [];
  try {
    const { base, pairs, fixture } = await makePairs(dir);
    for (const name of Object.keys(PEERS) as PeerName[]) peers.push(await PEERS[name]());
    const figures: Figure[] = [];

    const verdicts: Verdicts = {};
    const say = (v: Verdict) =>
      `${v.pass ? "pass" : "FAIL"}${v.figure === undefined ? "" : ` (${v.stopped ? `> ${v.figure - 1}` : v.figure})`}`;
    for (const name of [...TIMED, ...JUDGED]) {
      const row: Record<string, string> = {
        "tapshot before issue 19": say(previousTapshot(base.raw, pairs[name].raw)),
      };
      for (const tool of [tapshot, ...peers]) {
        const run = runner(tool, "files", base, pairs[name], dir) ?? runner(tool, "bytes", base, pairs[name], dir)!;
        row[tool.name] = say(await run());
      }
      verdicts[name] = row;
    }

    for (const name of TIMED) {
      for (const source of SOURCES) {
        for (const peer of peers) {
          const viaPeer = runner(peer, source, base, pairs[name], dir);
          const viaTapshot = runner(tapshot, source, base, pairs[name], dir);
          if (!viaPeer || !viaTapshot) continue;
          const samples = await alternate(
            runs,
            warmup,
            () => wallMs(viaTapshot),
            () => wallMs(viaPeer),
          );
          figures.push(figure(`${name}, from ${source}: tapshot / ${peer.name}`, "ms", peer.name, samples));
        }
      }
    }
    figures.push(...(await cropReplay(fixture, runs, warmup)));
    figures.push(...(await memory(dir, base.file, pairs["near-identical"].file, memoryRuns)));
    return { figures, verdicts };
  } finally {
    for (const peer of peers) peer.close?.();
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * A stored crop found at its place: tapshot decodes the crop and the screenshot's rows down to
 * the crop's bottom and compares; OpenCV (Appium's images plugin) searches the whole screenshot
 * for the crop by template matching. Then, for a crop low on the screen, tapshot's region decode
 * (its own row decoder, stopping at the crop's bottom) against libvips' region decode through sharp.
 */
async function cropReplay(screen: Buffer, runs: number, warmup: number): Promise<Figure[]> {
  const cart = await loadScreen("cart");
  const box = cart.buttons["checkout-button"]!;
  const pad = 4 * IPHONE_15.scale;
  const crop = {
    x: Math.floor(box.x) - pad,
    y: Math.floor(box.y) - pad,
    width: Math.ceil(box.width) + 2 * pad,
    height: Math.ceil(box.height) + 2 * pad,
  };
  const cropPng = await sharp(screen)
    .extract({ left: crop.x, top: crop.y, width: crop.width, height: crop.height })
    .png()
    .toBuffer();
  const opencv = require("@appium/opencv") as {
    getImageOccurrence(full: Buffer, partial: Buffer): Promise<{ rect: { x: number; y: number }; score: number }>;
  };
  let found = { x: -1, y: -1, score: 0 };
  let diffPixels = -1;
  const viaTapshot = () =>
    wallMs(async () => {
      const [expected, actual] = await Promise.all([decode(cropPng), decodeRegion(Buffer.from(screen), crop)]);
      diffPixels = (await compare(expected, actual, { stopAbove: Math.floor(crop.width * crop.height * 0.01) }))
        .diffPixels;
    });
  const viaOpencv = () =>
    wallMs(async () => {
      const { rect, score } = await opencv.getImageOccurrence(Buffer.from(screen), cropPng);
      found = { ...rect, score };
    });
  const replay = figure(
    "crop replay at its place: tapshot / OpenCV template matching",
    "ms",
    "@appium/opencv getImageOccurrence",
    await alternate(runs, warmup, viaTapshot, viaOpencv),
    { detail: { crop, tapshotDiffPixels: diffPixels, opencvFound: found } },
  );

  const low = {
    x: 0,
    y: IPHONE_15.screen.height - IPHONE_15.insets.bottom - 160,
    width: IPHONE_15.screen.width,
    height: 150,
  };
  const libvipsRegion = (png: Buffer) =>
    sharp(png)
      .extract({ left: low.x, top: low.y, width: low.width, height: low.height })
      .ensureAlpha()
      .raw()
      .toBuffer();
  const viaRowDecoder = () => wallMs(() => decodeRegion(Buffer.from(screen), low));
  const viaLibvips = () => wallMs(() => libvipsRegion(Buffer.from(screen)));
  if (!(await decodeRegion(screen, low)).data.equals(await libvipsRegion(screen))) {
    throw new Error("tapshot's region decode differs from libvips'");
  }
  const decodeLow = figure(
    `low crop (rows ${low.y}-${low.y + low.height}) decode: tapshot / libvips region`,
    "ms",
    "sharp extract + raw (libvips region decode)",
    await alternate(runs, warmup, viaRowDecoder, viaLibvips),
  );
  return [replay, decodeLow];
}

async function childPeakRss(tool: string, base: string, actual: string, dir: string): Promise<number> {
  const args = [tool, base, actual, dir];
  return (await runJsonChild<{ peakRssMb: number }>("./peer-memory-child.ts", args, `peer memory child (${tool})`))
    .peakRssMb;
}

/** Peak RSS of 50 near-identical comparisons from files, one fresh process per tool and run. */
async function memory(dir: string, base: string, actual: string, runs: number): Promise<Figure[]> {
  const names = ["raw", "tapshot", ...Object.keys(PEERS)];
  const peaks = new Map<string, number[]>(names.map((n) => [n, []]));
  for (let run = 0; run < runs; run++) {
    for (const name of names) peaks.get(name)!.push(await childPeakRss(name, base, actual, dir));
  }
  const ours = median(peaks.get("tapshot")!);
  const raw = median(peaks.get("raw")!);
  return [
    fromMedians(
      "peak RSS, 50 comparisons: tapshot / reading the files only",
      "MB",
      "reading the files",
      ours,
      raw,
      runs,
    ),
    ...Object.keys(PEERS).map((name) =>
      fromMedians(`peak RSS, 50 comparisons: tapshot / ${name}`, "MB", name, ours, median(peaks.get(name)!), runs),
    ),
  ];
}
