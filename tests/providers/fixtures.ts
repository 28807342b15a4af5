/** Screens and helpers shared by the provider tests. */
import sharp from "sharp";
import type { AiImage, Box } from "../../src/core/model/contract.js";
import type { Knowledge } from "../../rig/model-doubles/index.js";

/** A phone-sized screen (1179x2556, like a 393x852 @3 viewport) with a few coloured elements, as PNG. */
export async function phoneScreen(width = 1179, height = 2556): Promise<AiImage> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="100%" height="100%" fill="#f4f4f4"/>
    <rect x="90" y="2100" width="999" height="180" rx="24" fill="#0a7cff"/>
    <rect x="90" y="300" width="600" height="90" fill="#333"/>
    <text x="120" y="360" font-size="60" fill="#fff">Cart (2)</text></svg>`;
  const png = await sharp(Buffer.from(svg)).png().toBuffer();
  return { mimeType: "image/png", data: png.toString("base64"), width, height };
}

/** Where the checkout button is, in pixels of the full 1179x2556 screen. */
export const CHECKOUT: Box = { x: 90, y: 2100, width: 999, height: 180 };

/** Knowledge that knows the checkout button, answering in pixels of whatever frame it gets. */
export function checkoutKnowledge(screenWidth = 1179, screenHeight = 2556): Knowledge {
  return {
    locate(target, image) {
      if (!target.includes("checkout")) return { found: false, reason: `double: nothing like "${target}"` };
      const sx = image.width / screenWidth;
      const sy = image.height / screenHeight;
      const b = CHECKOUT;
      return {
        box: { x: b.x * sx, y: b.y * sy, width: b.width * sx, height: b.height * sy },
        reason: "double: checkout",
      };
    },
    check: (statement) => ({ pass: statement.includes("summary"), reason: "double: check" }),
    judge: (_prompt, image, references) => ({
      accept: true,
      reason: `double: ${references} references`,
      varying: [{ x: 0, y: 0, width: image.width, height: image.height * 0.05 }],
    }),
    compare: (_prompt, { screen }) => ({
      realChange: false,
      reason: "double: only the clock",
      varying: [{ x: 0, y: 0, width: screen.width, height: screen.height * 0.05 }],
    }),
  };
}

/** Expect two boxes to agree within `tolerance` pixels on every edge. */
export function expectBoxNear(actual: Box | undefined, expected: Box, tolerance: number): void {
  expect(actual).toBeDefined();
  const a = actual!;
  const edges = (b: Box) => [b.x, b.y, b.x + b.width, b.y + b.height];
  edges(a).forEach((v, i) => expect(Math.abs(v - edges(expected)[i]!)).toBeLessThanOrEqual(tolerance));
}

/** A signal that never aborts. */
export const noAbort = (): AbortSignal => new AbortController().signal;

/** Small retry delays so retry tests stay quick without timing assertions. */
export const fastRetry = { attempts: 4, initialDelayMs: 10, maxDelayMs: 50 };
