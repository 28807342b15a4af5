/*
 * Encoding images with sharp: RGBA to PNG, a crop, a downscale for a model request, and the
 * outlined and side-by-side images of artifacts.
 */
import type { Rect } from "../ground/geometry.js";
import { withLibvips } from "./image-input.js";
import { checkRectInside, imageSize, type RawImage } from "./image-decode.js";
import { loadSharp } from "./sharp.js";

/** Encode RGBA pixels as PNG. */
export async function encodePng(raw: RawImage): Promise<Buffer> {
  const sharp = await loadSharp();
  return sharp(raw.data, { raw: { width: raw.width, height: raw.height, channels: 4 } })
    .png()
    .toBuffer();
}

/** Cut a rectangle out of a PNG, as PNG. */
export async function cropPng(image: Buffer, rect: Rect): Promise<Buffer> {
  checkRectInside(image, rect);
  return withLibvips(image, (sharp) =>
    sharp(image).extract({ left: rect.x, top: rect.y, width: rect.width, height: rect.height }).png().toBuffer(),
  );
}

/** Options for {@link resizeToFit}. */
export interface FitOptions {
  /** Longest side in pixels after resizing; smaller images are left as they are. */
  maxSide: number;
  format: "png" | "jpeg";
  /** JPEG quality, 1-100. */
  quality?: number;
}

/** Downscale so the long side is at most `maxSide`; returns the encoded image and its size. */
export async function resizeToFit(
  image: Buffer,
  { maxSide, format, quality = 85 }: FitOptions,
): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await withLibvips(image, (sharp) => {
    const resized = sharp(image).resize({ width: maxSide, height: maxSide, fit: "inside", withoutEnlargement: true });
    const encoded = format === "jpeg" ? resized.flatten({ background: "#ffffff" }).jpeg({ quality }) : resized.png();
    return encoded.toBuffer({ resolveWithObject: true });
  });
  return { data, width: info.width, height: info.height };
}

/** Draw a rectangle outline (for artifacts that show where a stored crop was). */
export async function outlineRect(image: Buffer, rect: Rect, color = "#ff0066"): Promise<Buffer> {
  const { width, height } = await imageSize(image);
  const stroke = Math.max(2, Math.round(Math.min(width, height) / 200));
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect x="${rect.x}" y="${rect.y}" width="${rect.width}" height="${rect.height}"
      fill="none" stroke="${color}" stroke-width="${stroke}"/></svg>`;
  const sharp = await loadSharp();
  return sharp(image)
    .composite([{ input: Buffer.from(svg), top: 0, left: 0 }])
    .png()
    .toBuffer();
}

/** Expected, actual and diff side by side, like jest-image-snapshot's composite. */
export async function sideBySide(images: Buffer[]): Promise<Buffer> {
  const sizes = await Promise.all(images.map(imageSize));
  const gap = 8;
  const width = sizes.reduce((sum, s) => sum + s.width, 0) + gap * (images.length - 1);
  const height = Math.max(...sizes.map((s) => s.height));
  let left = 0;
  const layers = images.map((input, i) => {
    const layer = { input, top: 0, left };
    left += sizes[i]!.width + gap;
    return layer;
  });
  const sharp = await loadSharp();
  return sharp({ create: { width, height, channels: 4, background: "#808080" } })
    .composite(layers)
    .png()
    .toBuffer();
}
