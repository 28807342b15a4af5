/**
 * The full-page stitcher (docs/api.md "Whole-page baselines") on real PNGs drawn by sharp: a
 * long page with a status bar, a sticky header, a sticky footer and a navigation bar is cut into
 * the screens a phone would show while scrolling it, and stitched back.
 */
import sharp from "sharp";
import { decode, type RawImage } from "../../src/core/pixels/image-decode.js";
import {
  pagePosition,
  screenOfRow,
  screenSlices,
  stitchScreens,
  StitchError,
} from "../../src/core/flows/screenshot/stitch.js";

const WIDTH = 360;
const STATUS = 24;
const HEADER = 56;
const FOOTER = 48;
const NAV = 16;
const SCREEN = 720;
/** The scrolling band of one screen. */
const BAND = SCREEN - STATUS - HEADER - FOOTER - NAV;
const ROW = 64;

/** A list of `rows` rows, each with its own colour, bar length and number drawn in it. */
async function listBody(rows: number): Promise<RawImage> {
  const shapes = Array.from({ length: rows }, (_, i) => {
    const y = i * ROW;
    const hue = (i * 47) % 360;
    return (
      `<rect x="0" y="${y}" width="${WIDTH}" height="${ROW - 4}" fill="#fff"/>` +
      `<rect x="12" y="${y + 8}" width="44" height="44" rx="8" fill="hsl(${hue},70%,50%)"/>` +
      `<rect x="72" y="${y + 14}" width="${60 + ((i * 37) % 200)}" height="12" fill="#333"/>` +
      `<rect x="72" y="${y + 34}" width="${40 + ((i * 53) % 120)}" height="8" fill="#999"/>` +
      `<text x="300" y="${y + 40}" font-size="18" fill="#111">${i + 1}</text>`
    );
  }).join("");
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${rows * ROW}">
    <rect width="100%" height="100%" fill="#e6e8ec"/>${shapes}</svg>`;
  return decode(await sharp(Buffer.from(svg)).png().toBuffer());
}

async function bar(height: number, colour: string, label: string): Promise<RawImage> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}">
    <rect width="100%" height="100%" fill="${colour}"/>
    <rect x="16" y="${height / 4}" width="120" height="${height / 2}" fill="#fff"/><text x="200" y="${height - 8}">${label}</text></svg>`;
  return decode(await sharp(Buffer.from(svg)).png().toBuffer());
}

function rowsOf(raw: RawImage, y0: number, y1: number): Buffer {
  return raw.data.subarray(y0 * raw.width * 4, y1 * raw.width * 4);
}

/**
 * The screen a phone shows with the list scrolled by `offset`: bars and header/footer fixed, the
 * body moved. With `blendedEdge`, the band's last row is half footer, as where a list ends at a
 * fractional pixel (a 2.625 device pixel ratio).
 */
function screenAt(parts: Parts, offset: number, { blendedEdge = false } = {}): RawImage {
  const band = Buffer.from(rowsOf(parts.body, offset, offset + BAND));
  if (blendedEdge) {
    const stride = WIDTH * 4;
    const footer = rowsOf(parts.footer, 0, 1);
    for (let i = 0; i < stride; i++) band[(BAND - 1) * stride + i] = (band[(BAND - 1) * stride + i]! + footer[i]!) >> 1;
  }
  const data = Buffer.concat([
    rowsOf(parts.status, 0, STATUS),
    rowsOf(parts.header, 0, HEADER),
    band,
    rowsOf(parts.footer, 0, FOOTER),
    rowsOf(parts.nav, 0, NAV),
  ]);
  return { data, width: WIDTH, height: SCREEN };
}

interface Parts {
  status: RawImage;
  header: RawImage;
  body: RawImage;
  footer: RawImage;
  nav: RawImage;
}

let parts: Parts;

beforeAll(async () => {
  parts = {
    status: await bar(STATUS, "#0f3d91", "12:00"),
    header: await bar(HEADER, "#ffc83d", "Your list"),
    body: await listBody(40),
    footer: await bar(FOOTER, "#1c1f26", "Total"),
    nav: await bar(NAV, "#ffffff", ""),
  };
});

const options = { top: STATUS, bottom: SCREEN - NAV, expectedShift: Math.round(BAND / 2) };

test("screens scrolled by half a band stitch into the whole page, header and footer kept once", async () => {
  const end = parts.body.height - BAND;
  const offsets = [0, 288, 576, 864, 1152, 1440, 1728, 2016, end].filter(
    (o, i, all) => o <= end && all.indexOf(o) === i,
  );
  const page = stitchScreens(
    offsets.map((o) => screenAt(parts, o)),
    options,
  );
  expect(page.layout.offsets).toEqual(offsets);
  expect(page.layout).toMatchObject({ head: STATUS + HEADER, foot: FOOTER + NAV, band: BAND });
  const expected = Buffer.concat([
    rowsOf(parts.status, 0, STATUS),
    rowsOf(parts.header, 0, HEADER),
    rowsOf(parts.body, 0, parts.body.height),
    rowsOf(parts.footer, 0, FOOTER),
    rowsOf(parts.nav, 0, NAV),
  ]);
  expect(page.raw.height).toBe(STATUS + HEADER + parts.body.height + FOOTER + NAV);
  expect(page.raw.data.equals(expected)).toBe(true);
  // Each body row is named by the first screen that showed it.
  expect(screenOfRow(page.layout, 10)).toBe(1);
  expect(screenOfRow(page.layout, STATUS + HEADER + BAND + 5)).toBe(2);
  expect(screenOfRow(page.layout, page.raw.height - 1)).toBe(offsets.length);
});

test("uneven swipes (touch slop, a short last swipe) are found row for row", async () => {
  const offsets = [0, 301, 577, 870, 1000];
  const page = stitchScreens(
    offsets.map((o) => screenAt(parts, o)),
    options,
  );
  expect(page.layout.offsets).toEqual(offsets);
  const body = rowsOf(page.raw, STATUS + HEADER, STATUS + HEADER + 1000 + BAND);
  expect(body.equals(rowsOf(parts.body, 0, 1000 + BAND))).toBe(true);
  // Encoded and decoded again, the page is the same pixels: what is stored is what was stitched.
  const png = await sharp(page.raw.data, { raw: { width: WIDTH, height: page.raw.height, channels: 4 } })
    .png()
    .toBuffer();
  expect((await decode(png)).data.equals(page.raw.data)).toBe(true);
});

test("a band edge blended with the footer is not stitched into the middle of the page", async () => {
  const offsets = [0, 288, 576, 864];
  const page = stitchScreens(
    offsets.map((o) => screenAt(parts, o, { blendedEdge: true })),
    options,
  );
  expect(page.layout.offsets).toEqual(offsets);
  const end = 864 + BAND;
  // Every body row is the list's own, but for the last, which sits on the footer as on the last screen.
  expect(rowsOf(page.raw, STATUS + HEADER, STATUS + HEADER + end - 1).equals(rowsOf(parts.body, 0, end - 1))).toBe(
    true,
  );
  const last = screenAt(parts, 864, { blendedEdge: true });
  expect(
    rowsOf(page.raw, STATUS + HEADER + end - 1, STATUS + HEADER + end).equals(
      rowsOf(last, SCREEN - FOOTER - NAV - 1, SCREEN - FOOTER - NAV),
    ),
  ).toBe(true);
});

test("one screen is the page as it is", async () => {
  const one = screenAt(parts, 0);
  const page = stitchScreens([one], options);
  expect(page.layout).toMatchObject({ head: STATUS, foot: NAV, offsets: [0] });
  expect(page.raw.data.equals(one.data)).toBe(true);
});

test("screens that do not overlap are refused, naming the two", async () => {
  // A fling: the second screen starts past where the first one ends.
  const error = (() => {
    try {
      stitchScreens([screenAt(parts, 0), screenAt(parts, BAND + 200)], options);
    } catch (e) {
      return e;
    }
  })();
  expect(error).toBeInstanceOf(StitchError);
  expect((error as Error).message).toMatch(/^screen 2 does not continue screen 1/);
});

test("each screen's rows of the page and their position: the header with the first, the footer with the last", () => {
  const layout = { head: 80, foot: 64, band: 576, offsets: [0, 288, 576, 600], height: 80 + 576 + 600 + 64 };
  expect(screenSlices(layout)).toEqual([
    [0, 656],
    [656, 944],
    [944, 1232],
    [1232, 1320],
  ]);
  expect(pagePosition(layout, 960, 1010)).toBe("screen 3 of 4, y 960-1010 of the page");
  expect(pagePosition(layout, 900, 1300)).toBe("screens 2-4 of 4, y 900-1300 of the page");
  expect(pagePosition(layout, 0, 40)).toBe("screen 1 of 4, y 0-40 of the page");
});

/** `screen` through sharp's JPEG at `quality` and back, as an MJPEG frame or a WDA `screenshotQuality` screenshot. */
async function jpegFrame(screen: RawImage, quality: number): Promise<RawImage> {
  const raw = { raw: { width: screen.width, height: screen.height, channels: 4 as const } };
  const jpeg = await sharp(screen.data, raw).jpeg({ quality }).toBuffer();
  return decode(await sharp(jpeg).png().toBuffer());
}

test("JPEG frames at quality 50 to 80 are found at their true offsets, header and footer still kept once", async () => {
  const offsets = [0, 301, 577, 870, 1000];
  const qualities = [50, 80, 65, 50, 72];
  const screens = await Promise.all(offsets.map((o, i) => jpegFrame(screenAt(parts, o), qualities[i]!)));
  const page = stitchScreens(screens, options);
  expect(page.layout.offsets).toEqual(offsets);
  expect(page.layout).toMatchObject({ head: STATUS + HEADER, foot: FOOTER + NAV, band: BAND });
  // The same frames without noise stitch at the same offsets.
  expect(
    stitchScreens(
      offsets.map((o) => screenAt(parts, o)),
      options,
    ).layout.offsets,
  ).toEqual(offsets);
});

test("a header that changes once scrolled is left out of the match, and the page keeps the first screen's", async () => {
  const tinted = await bar(HEADER, "#8a2be2", "Your list");
  const offsets = [0, 288, 576];
  const screens = offsets.map((o, i) => {
    const screen = screenAt(parts, o);
    if (i === 0) return screen;
    const data = Buffer.from(screen.data);
    rowsOf(tinted, 0, HEADER).copy(data, STATUS * WIDTH * 4);
    return { ...screen, data };
  });
  const page = stitchScreens(screens, options);
  expect(page.layout.offsets).toEqual(offsets);
  expect(rowsOf(page.raw, STATUS, STATUS + HEADER).equals(rowsOf(parts.header, 0, HEADER))).toBe(true);
  const body = rowsOf(page.raw, STATUS + HEADER, STATUS + HEADER + 576 + BAND);
  expect(body.equals(rowsOf(parts.body, 0, 576 + BAND))).toBe(true);
});
