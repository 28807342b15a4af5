/**
 * Benchmark 9 (BENCHMARKS.md): the crop-search rung of the heal ladder on redesigns of the real
 * iPhone 15 cart screenshot. Each scenario edits the screenshot (content moved by a banner, a
 * list that grew, the button moved alone, restyled, removed, duplicated) and runs the search
 * tapshot's heal runs; the figure is its wall time against OpenCV template matching
 * (@appium/opencv getImageOccurrence) on the same pair, with the verdict, whether a tap would
 * be wrong, and the model calls the rung saves with `verify` given.
 */
import { createRequire } from "node:module";
import sharp from "sharp";
import { decode, searchMoved, type RawImage, type Rect, type SearchFinding } from "tapshot/images";
import { IPHONE_15, loadScreen } from "./screens.js";
import { alternate, figure, wallMs, type Figure } from "./stats.js";

const require = createRequire(import.meta.url);
/** The in-place verdict of a tap (src/core/flows/tap/tap-kind.ts, docs/design.md section 5). */
const VERDICT = { threshold: 0.1, maxDiffRatio: 0.01 };
/** The miss budget of the issue: a whole-screen search well under one model call. */
const BUDGET_MS = 100;

interface Scenario {
  name: string;
  screen: RawImage;
  /** Where the crop really is now; `undefined` when no cheap tap is right (restyled, removed, ambiguous). */
  truth: Rect | undefined;
}

export async function benchHeal({ runs, warmup }: { runs: number; warmup: number }): Promise<Figure[]> {
  const cart = await loadScreen("cart");
  const box = cart.buttons["checkout-button"]!;
  const pad = 4 * IPHONE_15.scale;
  const crop = {
    x: Math.floor(box.x) - pad,
    y: Math.floor(box.y) - pad,
    width: Math.ceil(box.width) + 2 * pad,
    height: Math.ceil(box.height) + 2 * pad,
  };
  const screen = await decode(cart.png);
  const expected = cut(screen, crop);
  const cropPng = await png(expected);
  const opencv = require("@appium/opencv") as {
    getImageOccurrence(full: Buffer, partial: Buffer): Promise<{ rect: Rect; score: number }>;
  };

  const figures: Figure[] = [];
  for (const scenario of scenarios(screen, crop, expected)) {
    const screenPng = await png(scenario.screen);
    let finding: SearchFinding | undefined;
    let opencvFound: { rect?: Rect; score?: number; error?: string } = {};
    const samples = await alternate(
      runs,
      warmup,
      () =>
        wallMs(async () => {
          finding = await searchMoved(scenario.screen, expected, crop, IPHONE_15, VERDICT);
        }),
      () =>
        wallMs(async () => {
          opencvFound = await opencv.getImageOccurrence(screenPng, cropPng).catch((e: Error) => ({
            error: e.message.split("\n")[0]!,
          }));
        }),
    );
    const found = finding!;
    const tapped = found.kind === "unique" ? found.rect : undefined;
    const wrongTap = tapped !== undefined && !same(tapped, scenario.truth);
    const fig = figure(
      `heal ${scenario.name}: crop search / OpenCV`,
      "ms",
      "@appium/opencv getImageOccurrence",
      samples,
      {
        detail: {
          verdict: found.kind,
          tappedAt: tapped ?? null,
          truth: scenario.truth ?? null,
          wrongTap,
          modelCallsSavedWithVerify: tapped && !wrongTap ? 1 : 0,
          modelCallsWithLadderOff: 1,
          budgetMs: BUDGET_MS,
          opencvFound,
        },
      },
    );
    figures.push(fig);
  }
  return figures;
}

/** The redesigns, each built from the cart screenshot. */
function scenarios(screen: RawImage, crop: Rect, expected: RawImage): Scenario[] {
  const background = screen.data.readUInt32LE((crop.y * screen.width + 4) * 4);
  const bottom = screen.height - IPHONE_15.insets.bottom;
  const moved = (rect: Rect, dy: number) => ({ ...rect, y: rect.y + dy });

  const banner = shiftRows(screen, 420, bottom, 120, 0xffa5a5fc);
  const grew = shiftRows(screen, 1000, bottom, 210, background);
  const alone = paste(fill(screen, crop, background), expected, moved(crop, -600));
  const restyled = invert(banner, moved(crop, 120));
  const removed = fill(screen, crop, background);
  const twins = paste(banner, expected, moved(crop, -600));
  return [
    { name: "moved by an inserted banner", screen: banner, truth: moved(crop, 120) },
    { name: "list grew", screen: grew, truth: moved(crop, 210) },
    { name: "same look, different place", screen: alone, truth: moved(crop, -600) },
    { name: "restyled (model must be asked)", screen: restyled, truth: undefined },
    { name: "removed (nothing may be tapped)", screen: removed, truth: undefined },
    { name: "ambiguous duplicates (nothing cheap)", screen: twins, truth: undefined },
  ];
}

function same(a: Rect, b: Rect | undefined): boolean {
  return b !== undefined && a.x === b.x && a.y === b.y;
}

function copy(raw: RawImage): RawImage {
  return { ...raw, data: Buffer.from(raw.data) };
}

function cut(raw: RawImage, rect: Rect): RawImage {
  const data = Buffer.alloc(rect.width * rect.height * 4);
  for (let row = 0; row < rect.height; row++) {
    const from = ((rect.y + row) * raw.width + rect.x) * 4;
    raw.data.copy(data, row * rect.width * 4, from, from + rect.width * 4);
  }
  return { data, width: rect.width, height: rect.height };
}

/** Rows from `from` move down by `by` (the rows pushed past `to` are lost); the gap gets `colour`. */
function shiftRows(raw: RawImage, from: number, to: number, by: number, colour: number): RawImage {
  const out = copy(raw);
  const row = raw.width * 4;
  raw.data.copy(out.data, (from + by) * row, from * row, (to - by) * row);
  for (let y = from; y < from + by; y++)
    for (let x = 0; x < raw.width; x++) out.data.writeUInt32LE(colour, (y * raw.width + x) * 4);
  return out;
}

function fill(raw: RawImage, rect: Rect, colour: number): RawImage {
  const out = copy(raw);
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    for (let x = rect.x; x < rect.x + rect.width; x++) out.data.writeUInt32LE(colour, (y * raw.width + x) * 4);
  }
  return out;
}

function paste(raw: RawImage, part: RawImage, at: Rect): RawImage {
  const out = copy(raw);
  for (let row = 0; row < part.height; row++) {
    part.data.copy(out.data, ((at.y + row) * raw.width + at.x) * 4, row * part.width * 4, (row + 1) * part.width * 4);
  }
  return out;
}

/** A restyle: every colour inside `rect` inverted. */
function invert(raw: RawImage, rect: Rect): RawImage {
  const out = copy(raw);
  for (let y = rect.y; y < rect.y + rect.height; y++) {
    for (let x = rect.x; x < rect.x + rect.width; x++) {
      const i = (y * raw.width + x) * 4;
      for (let c = 0; c < 3; c++) out.data[i + c] = 255 - out.data[i + c]!;
    }
  }
  return out;
}

function png(raw: RawImage): Promise<Buffer> {
  return sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: 4 } })
    .png()
    .toBuffer();
}
