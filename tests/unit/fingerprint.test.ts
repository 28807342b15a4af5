/**
 * The change fingerprint (src/cli/review/fingerprint.ts, docs/reviewing.md "Grouped changes") on real
 * PNGs: a shop screen drawn by librsvg (rounded corners and a text label, anti-aliased by the font
 * engine) at two phones' sizes and densities. The same restyle groups across them; another colour,
 * another place or no change does not.
 */
import sharp from "sharp";
import { changeFingerprint, rememberedFingerprints } from "../../src/cli/review/fingerprint.js";

/** A phone: its screen in dp and its density (pixels per dp). */
interface Phone {
  width: number;
  height: number;
  density: number;
}
const PIXEL_7: Phone = { width: 360, height: 640, density: 3 };
const PIXEL_8: Phone = { width: 412, height: 732, density: 2.625 };

interface Look {
  header?: string;
  checkout?: string;
  label?: string;
}

/** The shop laid out in proportions of the screen (as an app lays out), rendered at the phone's density. */
function shop(phone: Phone, look: Look = {}): Promise<Buffer> {
  const { width: w, height: h, density } = phone;
  const button = { x: w * 0.1, y: h * 0.8, width: w * 0.8, height: h * 0.09 };
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.round(w * density)}" height="${Math.round(h * density)}" viewBox="0 0 ${w} ${h}">
  <rect width="100%" height="100%" fill="#ffffff"/>
  <rect x="0" y="${h * 0.04}" width="${w}" height="${h * 0.09}" fill="${look.header ?? "#1e40af"}"/>
  <text x="16" y="${h * 0.1}" font-family="DejaVu Sans" font-size="20" fill="#ffffff">Your cart</text>
  <rect x="${w * 0.05}" y="${h * 0.2}" width="${w * 0.9}" height="${h * 0.12}" rx="8" fill="#eef1f6"/>
  <rect x="${button.x}" y="${button.y}" width="${button.width}" height="${button.height}" rx="12" fill="${look.checkout ?? "#16a34a"}"/>
  <text x="${w / 2}" y="${button.y + button.height * 0.65}" text-anchor="middle" font-family="DejaVu Sans" font-size="18" fill="#ffffff">${look.label ?? "Checkout"}</text>
</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** The fingerprint of the change from the phone's shop to the shop with `look`. */
async function printOf(phone: Phone, look: Look): Promise<string | undefined> {
  return changeFingerprint(await shop(phone), await shop(phone, look));
}

const RED = { checkout: "#dc2626" };
const PURPLE = { checkout: "#7c3aed" };

test("the same restyle on two phones of other sizes and densities is one change", async () => {
  const onSeven = await printOf(PIXEL_7, RED);
  expect(onSeven).toMatch(/^[0-9a-f]{12}$/);
  expect(await printOf(PIXEL_8, RED)).toBe(onSeven);
});

test("a purple and a red restyle of the same button are two changes, on one phone and across phones", async () => {
  const red = await printOf(PIXEL_7, RED);
  expect(await printOf(PIXEL_7, PURPLE)).not.toBe(red);
  expect(await printOf(PIXEL_8, PURPLE)).not.toBe(red);
  // Purple is one change too, wherever it is made.
  expect(await printOf(PIXEL_8, PURPLE)).toBe(await printOf(PIXEL_7, PURPLE));
});

test("the same colour in another place is another change", async () => {
  expect(await printOf(PIXEL_7, { header: "#dc2626" })).not.toBe(await printOf(PIXEL_7, RED));
});

test("two renders of one colour a few units apart (another GPU, resampling) are one change", async () => {
  expect(await printOf(PIXEL_8, { checkout: "#de2828" })).toBe(await printOf(PIXEL_7, RED));
});

test("no change is `unchanged`; images that cannot be compared have no fingerprint", async () => {
  const screen = await shop(PIXEL_7);
  expect(await changeFingerprint(screen, screen)).toBe("unchanged");
  expect(await changeFingerprint(screen, await shop({ ...PIXEL_7, height: 800 }))).toBeUndefined();
});

test("remembered fingerprints answer as computed ones, and keep at most `limit`", async () => {
  const remembered = rememberedFingerprints(1);
  const [before, red, purple] = await Promise.all([shop(PIXEL_7), shop(PIXEL_7, RED), shop(PIXEL_7, PURPLE)]);
  expect(await remembered(before, red)).toBe(await changeFingerprint(before, red));
  expect(await remembered(before, purple)).toBe(await changeFingerprint(before, purple));
  expect(await remembered(before, red)).not.toBe(await remembered(before, purple));
});
