/*
 * The evidence a transfer rests on and the rule that decides it (docs/transfer.md): the source
 * record's accessibility element in this device's page source, its crop searched at this
 * device's pixel density, and whether they agree.
 */
import { describeAttributes, findElement, type A11yElement, type A11yFinding } from "../../device/page-source.js";
import { contains, type Point, type Rect } from "../../ground/geometry.js";
import { cutRegion } from "../../pixels/crop.js";
import { decode, toRect, type RawImage } from "../../pixels/images.js";
import { searchScaled, type ScaledFinding } from "../../pixels/scaled-search.js";
import type { Call } from "../../run/call.js";
import type { TapRecord } from "../../store/records.js";
import { readCost } from "./locate.js";

/** A tap stored on another device of the platform. */
export interface TransferSource {
  key: string;
  record: TapRecord;
  image: Buffer;
}

/**
 * How the scaled crop is judged: a replay's per-pixel threshold (a looser one let a header bar of
 * a similar colour match the rig's Checkout button), but up to 5% of its pixels, for the resampling.
 */
export const TRANSFER_VERDICT = { threshold: 0.1, maxDiffRatio: 0.05 };
/** Scales tried around the density ratio (layouts round sizes to whole pixels or units). */
export const SCALE_STEPS = [1, 0.96, 1.04];
/** The searched part of the element is at most this many times its height wide (elements stretch). */
export const CORE_WIDTH_HEIGHTS = 4;
/** Without pixels, the element's centre must lie within this share of the screen of its stored place. */
export const PLACE_TOLERANCE = 0.1;
/** An element covering this share of the screen or more is a container: no evidence of one element. */
const CONTAINER_SHARE = 0.5;

/** The accessibility evidence: the element found once, or why not. */
export type A11yEvidence =
  { kind: "found"; element: A11yElement; matched: string[] } | { kind: "missing"; why: string };

/** The pixel evidence: the search's finding and, when found once, the point it puts the tap at. */
export type PixelEvidence =
  | Exclude<ScaledFinding, { kind: "unique" }>
  | (Extract<ScaledFinding, { kind: "unique" }> & { point: Point })
  | { kind: "skipped"; why: string };

export interface TransferEvidence {
  source: TransferSource;
  a11y: A11yEvidence;
  pixels: PixelEvidence;
}

/** Gather both kinds of evidence for one source on the settled screenshot `shot`. */
export async function gatherEvidence(
  call: Call,
  source: TransferSource,
  shot: { raw: RawImage },
): Promise<TransferEvidence> {
  return { source, a11y: await a11yEvidence(call, source.record), pixels: await pixelEvidence(call, source, shot.raw) };
}

async function a11yEvidence(call: Call, record: TapRecord): Promise<A11yEvidence> {
  const stored = record.element;
  if (!stored) return { kind: "missing", why: "the source record has no accessibility element" };
  const reading = await call.pageSource();
  if ("skipped" in reading) return { kind: "missing", why: `page source skipped: ${reading.skipped}` };
  const finding: A11yFinding = findElement(reading.elements, stored, call.device.platform);
  const wanted = describeAttributes(stored.attributes);
  if (finding.kind === "none") return { kind: "missing", why: `no element with ${wanted} (${readCost(reading)})` };
  if (finding.kind === "ambiguous") {
    return { kind: "missing", why: `${finding.elements.length} elements with ${wanted}: twins` };
  }
  const { width, height } = call.device.screen;
  const { bounds } = finding.element;
  if (bounds.width * bounds.height >= CONTAINER_SHARE * width * height) {
    return { kind: "missing", why: `the element with ${wanted} covers half the screen or more: a container` };
  }
  return { kind: "found", element: finding.element, matched: finding.matched };
}

/**
 * The element's centre part (its height, at most {@link CORE_WIDTH_HEIGHTS} heights wide, around
 * the stored point) searched at the density ratio and around it.
 */
async function pixelEvidence(call: Call, source: TransferSource, screen: RawImage): Promise<PixelEvidence> {
  const { record } = source;
  const { box, point, crop } = record;
  const width = Math.min(box.width, CORE_WIDTH_HEIGHTS * box.height);
  const core = toRect(
    { x: point.x - width / 2, y: box.y, width, height: box.height },
    crop.x + crop.width,
    crop.y + crop.height,
  );
  const inCrop = { x: Math.max(core.x, crop.x), y: Math.max(core.y, crop.y) };
  const part: Rect = {
    x: inCrop.x - crop.x,
    y: inCrop.y - crop.y,
    width: core.x + core.width - inCrop.x,
    height: core.y + core.height - inCrop.y,
  };
  if (part.width < 2 || part.height < 2) return { kind: "skipped", why: "the stored crop is too small to search" };
  const template = cutRegion(await decode(source.image), part);
  const ratio = call.device.scale / record.device.scale;
  const finding = await searchScaled(screen, template, {
    scales: SCALE_STEPS.map((step) => ratio * step),
    device: call.device,
    verdict: TRANSFER_VERDICT,
  });
  if (finding.kind !== "unique") return finding;
  // The stored point's place in the part, scaled: where the tap goes on this screen.
  const at = {
    x: Math.round(finding.rect.x + (point.x - inCrop.x) * finding.scale),
    y: Math.round(finding.rect.y + (point.y - inCrop.y) * finding.scale),
  };
  return { ...finding, point: at };
}

/** A transfer decided: where to tap, the element's box, and why. */
export interface TransferPlan {
  point: Point;
  box: Rect;
  element: A11yElement | undefined;
  evidence: string;
}

/**
 * The rule of docs/transfer.md. Without `verify`: the element found once, and the crop found once
 * inside it, or (pixels not contradicting) all its attributes equal and its place close. With
 * `verify`: one unambiguous signal, unless the two disagree. `why` says what was missing.
 */
export function chooseTransfer(
  call: Call,
  { source, a11y, pixels }: TransferEvidence,
  { verify }: { verify: string | undefined },
): { plan: TransferPlan } | { why: string } {
  const element = a11y.kind === "found" ? a11y.element : undefined;
  const found = pixels.kind === "unique" ? pixels : undefined;
  const pixelText = describePixels(pixels);
  if (element && found) {
    if (!contains(element.bounds, found.point)) {
      return { why: `the page source and the pixels disagree: the crop ${pixelText}, outside the element` };
    }
    return { plan: plan(element.bounds, found.point, element, `${describeFound(a11y)}; the crop ${pixelText}`) };
  }
  if (verify) {
    if (element) return { plan: plan(element.bounds, centre(element.bounds), element, describeFound(a11y)) };
    if (found)
      return { plan: plan(scaledBox(call, source.record, found), found.point, undefined, `the crop ${pixelText}`) };
    return { why: `${describeFound(a11y)}; the crop ${pixelText}` };
  }
  if (!element) return { why: `${describeFound(a11y)}; without verify a transfer needs the element` };
  if (pixels.kind === "none" && pixels.fits) {
    return { why: `${describeFound(a11y)}, but the crop ${pixelText} (restyled or covered)` };
  }
  const inside = pixels.kind === "ambiguous" ? pixels.rects.filter((r) => contains(element.bounds, centre(r))) : [];
  if (pixels.kind === "ambiguous" && inside.length !== 1) {
    return { why: `${describeFound(a11y)}, but the crop ${pixelText}, ${inside.length} of them inside the element` };
  }
  const same = sameAttributes(source.record, element);
  if (!same) return { why: `${describeFound(a11y)}, but not every stored attribute is equal` };
  const distance = placeDistance(call, source.record, element);
  if (distance > PLACE_TOLERANCE) {
    return {
      why:
        `${describeFound(a11y)}, but ${Math.round(distance * 100)}% of the screen from its stored place ` +
        `(at most ${PLACE_TOLERANCE * 100}% without pixels)`,
    };
  }
  const evidence = `${describeFound(a11y)}, every stored attribute equal, its place within ${Math.round(distance * 100)}% of the screen; the crop ${pixelText}`;
  return { plan: plan(element.bounds, centre(element.bounds), element, evidence) };
}

function plan(box: Rect, point: Point, element: A11yElement | undefined, evidence: string): TransferPlan {
  return { point, box, element, evidence };
}

function centre(r: Rect): Point {
  return { x: Math.round(r.x + r.width / 2), y: Math.round(r.y + r.height / 2) };
}

/** The source's box scaled to this screen around the tap point the pixels found. */
function scaledBox(call: Call, record: TapRecord, found: { point: Point; scale: number }): Rect {
  const { box, point } = record;
  const s = found.scale;
  const scaled = {
    x: found.point.x - (point.x - box.x) * s,
    y: found.point.y - (point.y - box.y) * s,
    width: box.width * s,
    height: box.height * s,
  };
  return toRect(scaled, call.device.screen.width, call.device.screen.height);
}

/** Every attribute the source stored is equal on this element. */
function sameAttributes(record: TapRecord, element: A11yElement): boolean {
  const stored = record.element?.attributes ?? {};
  return Object.keys(stored).length > 0 && Object.entries(stored).every(([k, v]) => element.attributes[k] === v);
}

/** How far the element's centre is from the stored element's, as the larger share of the screen's width or height. */
export function placeDistance(call: Call, record: TapRecord, element: A11yElement): number {
  const was = record.element!.bounds;
  const from = record.device.screen;
  const to = call.device.screen;
  const now = element.bounds;
  const dx = (now.x + now.width / 2) / to.width - (was.x + was.width / 2) / from.width;
  const dy = (now.y + now.height / 2) / to.height - (was.y + was.height / 2) / from.height;
  return Math.max(Math.abs(dx), Math.abs(dy));
}

function describeFound(a11y: A11yEvidence): string {
  if (a11y.kind === "missing") return `accessibility: ${a11y.why}`;
  const b = a11y.element.bounds;
  return `the element was found once by ${a11y.matched.join(" + ")} at (${b.x}, ${b.y}) ${b.width}x${b.height}`;
}

/** The pixel evidence as a clause: "found once at (x, y) at scale 1.5", "matched at 2 places". */
export function describePixels(pixels: PixelEvidence): string {
  if (pixels.kind === "skipped") return `was not searched (${pixels.why})`;
  if (pixels.kind === "unique") {
    const { rect, scale, diffRatio } = pixels;
    return (
      `was found once at (${rect.x}, ${rect.y}) ${rect.width}x${rect.height}, scaled by ${scale.toFixed(2)} ` +
      `(${(diffRatio * 100).toFixed(1)}% of its pixels differed)`
    );
  }
  if (pixels.kind === "ambiguous") {
    return `matched at ${pixels.rects.length} places (${pixels.rects.map((r) => `(${r.x}, ${r.y})`).join(", ")})`;
  }
  return pixels.fits ? "matched nowhere" : "did not fit this screen when scaled";
}
