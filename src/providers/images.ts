/**
 * Images as the model gets them: downscaled to what it can use, encoded compactly, and
 * remembered with the region of the request's image they show, so that boxes the model
 * gives in the sent image map back exactly to the pixels of the image tapshot sent.
 */
import type { AiImage, Box } from "../core/model/contract.js";
import { loadSharp } from "../core/pixels/sharp.js";
import type { ImageOptions } from "./options.js";

/** The image bytes one request part carries. */
export interface SentImage {
  mimeType: "image/png" | "image/jpeg" | "image/webp";
  /** Base64. */
  data: string;
  width: number;
  height: number;
}

/** A sent image and the region of the original (request) image it shows, in the original's pixels. */
export interface PreparedImage {
  sent: SentImage;
  region: Box;
}

/** Resolved {@link ImageOptions}, plus a provider's own limit on the short side. */
export interface ImagePlan {
  maxSide: number;
  /** Some models shrink images whose short side exceeds this; sending them smaller keeps pixel answers exact. */
  maxShortSide?: number;
  format: "webp" | "jpeg" | "png";
  quality: number;
  /** Sides of sent images are rounded to a multiple of this (a model that resizes to such sides then sees them as sent). */
  sideMultiple?: number;
}

/**
 * 1280 px on the long side keeps an 11 pt label legible on a 3x phone screenshot, and with
 * lossy WebP brings a flat app screen under a fifth of its PNG bytes (BENCHMARKS.md, figure 4).
 */
export const DEFAULT_MAX_SIDE = 1280;
const MIME = { webp: "image/webp", jpeg: "image/jpeg", png: "image/png" } as const;

/** What a provider adds to the user's {@link ImageOptions}. */
export interface ImageLimits {
  maxShortSide?: number;
  sideMultiple?: number;
  /** The format when the options name none: WebP where the server takes it. Default `"webp"`. */
  defaultFormat?: ImagePlan["format"];
}

/** Fill in the defaults of {@link ImageOptions}. */
export function imagePlan(options: ImageOptions | undefined, limits: ImageLimits = {}): ImagePlan {
  return {
    maxSide: options?.maxSide ?? DEFAULT_MAX_SIDE,
    ...(limits.maxShortSide ? { maxShortSide: limits.maxShortSide } : {}),
    ...(limits.sideMultiple ? { sideMultiple: limits.sideMultiple } : {}),
    format: options?.format ?? limits.defaultFormat ?? "webp",
    quality: options?.quality ?? 80,
  };
}

function targetSize(width: number, height: number, plan: ImagePlan): { width: number; height: number } {
  const long = Math.max(width, height);
  const short = Math.min(width, height);
  const scale = Math.min(1, plan.maxSide / long, plan.maxShortSide ? plan.maxShortSide / short : 1);
  const m = plan.sideMultiple ?? 1;
  const side = (v: number) => Math.max(m, Math.round((v * scale) / m) * m);
  return { width: side(width), height: side(height) };
}

/**
 * Prepare `image` (or the `region` of it) for sending. An image that already fits and is
 * in the planned format is sent as it is; anything else is resized and re-encoded.
 */
export async function prepareImage(image: AiImage, plan: ImagePlan, region?: Box): Promise<PreparedImage> {
  const area = region ?? { x: 0, y: 0, width: image.width, height: image.height };
  const size = targetSize(area.width, area.height, plan);
  const mimeType = MIME[plan.format];
  const unchanged = !region && size.width === image.width && size.height === image.height;
  if (unchanged && image.mimeType === mimeType) return { sent: { ...image }, region: area };

  const sharp = await loadSharp();
  let pipeline = sharp(Buffer.from(image.data, "base64"));
  if (region) pipeline = pipeline.extract({ left: area.x, top: area.y, width: area.width, height: area.height });
  if (size.width !== area.width || size.height !== area.height) {
    pipeline = pipeline.resize({ width: size.width, height: size.height, fit: "fill" });
  }
  if (plan.format === "jpeg") pipeline = pipeline.flatten({ background: "#ffffff" }).jpeg({ quality: plan.quality });
  else if (plan.format === "webp") pipeline = pipeline.webp({ quality: plan.quality });
  else pipeline = pipeline.png();
  const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
  return { sent: { mimeType, data: data.toString("base64"), width: info.width, height: info.height }, region: area };
}

/**
 * The region around a first `box` that a refinement pass zooms into: three times the box
 * each way, at least a third of the screen's short side, kept inside the screen.
 */
export function refinementRegion(box: Box, screen: { width: number; height: number }): Box {
  const minSide = Math.round(Math.min(screen.width, screen.height) / 3);
  const width = Math.min(screen.width, Math.max(minSide, Math.round(box.width * 3)));
  const height = Math.min(screen.height, Math.max(minSide, Math.round(box.height * 3)));
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  const x = Math.min(screen.width - width, Math.max(0, Math.round(cx - width / 2)));
  const y = Math.min(screen.height - height, Math.max(0, Math.round(cy - height / 2)));
  return { x, y, width, height };
}
