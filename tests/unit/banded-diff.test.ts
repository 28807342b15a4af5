/**
 * The diff image drawn in bands (src/core/pixels/banded-diff.ts) equals one pixelmatch call over
 * the whole image, anti-aliased edges across band borders included, and stops at its signal.
 */
import pixelmatch from "pixelmatch";
import sharp from "sharp";
import { bandedDiff } from "../../src/core/pixels/banded-diff.js";

const W = 301;
const H = 700;

/** Anti-aliased shapes and text crossing the 128-row band borders. */
async function screen(dx: number, label: string): Promise<Buffer> {
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}"><rect width="100%" height="100%" fill="#fff"/>` +
    `<circle cx="${120 + dx}" cy="128" r="40" fill="#1e40af"/><circle cx="200" cy="${256 + dx}" r="25" fill="#dc2626"/>` +
    `<text x="${20 + dx}" y="390" font-size="28" fill="#111">${label}</text>` +
    `<line x1="0" y1="500" x2="${W}" y2="${520 + dx}" stroke="#16a34a" stroke-width="3"/></svg>`;
  return sharp(Buffer.from(svg)).ensureAlpha().raw().toBuffer();
}

test("the banded diff image and count equal pixelmatch over the whole image", async () => {
  const a = await screen(0, "Checkout");
  const b = await screen(3, "Check out");
  const whole = Buffer.alloc(W * H * 4);
  const expected = pixelmatch(a, b, whole, W, H, { threshold: 0.1, diffMask: false });

  const banded = await bandedDiff(a, b, { width: W, height: H, threshold: 0.1 });

  expect(expected).toBeGreaterThan(500);
  expect(banded.diffPixels).toBe(expected);
  expect(banded.diff.equals(whole)).toBe(true);
});

test("an aborted signal stops the diff between bands with the signal's reason", async () => {
  const a = await screen(0, "Checkout");
  const b = await screen(3, "Check out");
  const controller = new AbortController();
  const running = bandedDiff(a, b, { width: W, height: H, threshold: 0.1, signal: controller.signal });
  controller.abort(new Error("the call's timeout passed"));
  await expect(running).rejects.toThrow("the call's timeout passed");
});
