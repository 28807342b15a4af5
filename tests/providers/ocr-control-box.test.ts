import sharp from "sharp";
import type { Box } from "../../src/core/model/contract.js";
import { decode, type RawImage } from "../../src/core/pixels/image-decode.js";
import { controlBox } from "../../src/providers/ocr/control-box.js";

const FONT = 'font-family="DejaVu Sans"';

async function render(body: string, background = "#f4f5f7"): Promise<RawImage> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="720" height="1280">
    <rect width="720" height="1280" fill="${background}"/>${body}</svg>`;
  return decode(await sharp(Buffer.from(svg)).png().toBuffer());
}

function inside(inner: Box, outer: Box): boolean {
  return (
    inner.x >= outer.x &&
    inner.y >= outer.y &&
    inner.x + inner.width <= outer.x + outer.width &&
    inner.y + inner.height <= outer.y + outer.height
  );
}

// Text boxes as an OCR engine gives them: a little larger than the glyphs.
const checkoutText = { x: 265, y: 930, width: 194, height: 42 };

test("a filled button: the box grows over the button's colour, up to its edges", async () => {
  const raw = await render(`<rect x="24" y="900" width="672" height="96" rx="48" fill="#1a73e8"/>
    <text x="360" y="962" ${FONT} font-size="36" font-weight="bold" fill="#fff" text-anchor="middle">Checkout</text>`);
  const result = controlBox(raw, checkoutText);
  expect(result.kind).toBe("control");
  expect(inside(result.box, { x: 24, y: 900, width: 672, height: 96 })).toBe(true);
  expect(inside(checkoutText, result.box)).toBe(true);
  expect(result.box.height).toBeGreaterThanOrEqual(90);
  expect(result.box.width).toBeGreaterThan(500);
});

test("an outlined button: the box is the inside of its border", async () => {
  const raw = await render(`<rect x="16" y="140" width="688" height="120" rx="16" fill="#ffffff"/>
    <rect x="520" y="168" width="160" height="64" rx="10" fill="#ffffff" stroke="#c5221f" stroke-width="3"/>
    <text x="600" y="212" ${FONT} font-size="28" fill="#c5221f" text-anchor="middle">Remove</text>`);
  const text = { x: 540, y: 186, width: 120, height: 34 };
  const result = controlBox(raw, text);
  expect(result.kind).toBe("control");
  expect(inside(result.box, { x: 520, y: 168, width: 160, height: 64 })).toBe(true);
  expect(result.box.height).toBeGreaterThanOrEqual(54);
});

test("a dark-mode card: light text on a dark block gets the block", async () => {
  const raw = await render(
    `<rect x="16" y="140" width="688" height="112" rx="16" fill="#1f1f23"/>
    <text x="40" y="208" ${FONT} font-size="32" fill="#e8eaed">Notifications</text>`,
    "#121212",
  );
  const text = { x: 36, y: 178, width: 212, height: 40 };
  const result = controlBox(raw, text);
  expect(result.kind).toBe("control");
  expect(inside(result.box, { x: 16, y: 140, width: 688, height: 112 })).toBe(true);
  expect(result.box.width).toBeGreaterThan(600);
});

test("text on the screen's own background: the padded text box", async () => {
  const raw = await render(
    `<text x="360" y="1060" ${FONT} font-size="30" fill="#1a73e8" text-anchor="middle">Continue shopping</text>`,
  );
  const text = { x: 216, y: 1030, width: 288, height: 40 };
  const result = controlBox(raw, text);
  expect(result.kind).toBe("text");
  expect(inside(text, result.box)).toBe(true);
  expect(result.box.width).toBeLessThan(text.width + 30);
});

test("a block far taller than a control is not taken for one", async () => {
  const raw = await render(`<rect x="0" y="200" width="720" height="900" fill="#fff3e0"/>
    <text x="40" y="500" ${FONT} font-size="30" fill="#333">Your order</text>`);
  const text = { x: 36, y: 472, width: 170, height: 38 };
  const result = controlBox(raw, text);
  expect(result.kind).toBe("text");
  expect(result.box.height).toBeLessThan(60);
});
