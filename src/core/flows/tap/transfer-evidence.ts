/*
 * The evidence a transfer rests on and the rule that decides it (docs/transfer.md): the source
 * record's accessibility element found once in this device's page source with the same identity
 * (id, text or label, class), at the place the prompt's position words name, and its pixels there
 * agreeing with the stored image resized to its bounds. Anything short of all of them is the model's.
 */
import type { Platform } from "../../device/description.js";
import { describeAttributes, namesOf, type A11yElement } from "../../device/a11y-element.js";
import { CONTAINER_SHARE, findElement } from "../../device/element-queries.js";
import type { Point, Rect } from "../../ground/geometry.js";
import { cutRegion } from "../../pixels/crop.js";
import { resizeRawTo, unmatchedShare } from "../../pixels/element-match.js";
import { decode, type RawImage } from "../../pixels/image-decode.js";
import { rectFits } from "../../pixels/pixel-rects.js";
import type { Call } from "../../run/call.js";
import type { TapRecord } from "../../store/tap-record.js";
import { readCost } from "./locate.js";
import { placeDisagreement, promptPlaces } from "./position-words.js";

/** A tap stored on another device of the platform. */
export interface TransferSource {
  key: string;
  record: TapRecord;
  image: Buffer;
}

/**
 * How the element's pixels are judged: a replay's per-pixel threshold, a like pixel within 1.5
 * tap units (a resized label or corner lies a pixel or three off), and at most 5% of the pixels
 * of either image without one. The rig's Checkout resized from 3x to 2x and from 51 to 40 points
 * high leaves 1.9%; a dialog over it, 100%.
 */
export const ELEMENT_VERDICT = { threshold: 0.1, radiusUnits: 1.5, maxUnmatched: 0.05 };
/** The part of the stored element the stored image shows must be at least this many pixels a side. */
const MIN_SIDE = 4;
/**
 * The attributes naming what an element says; a candidate whose value of any of them differs from
 * the stored one (present or not) is another element. iOS `value` is left out: a field's value is
 * what was typed into it, a switch's its state.
 */
const LABEL_ATTRIBUTES: Record<Platform, string[]> = { android: ["text", "content-desc"], ios: ["label"] };
/** Stored attributes that may change while the element stays the same (see {@link LABEL_ATTRIBUTES}). */
const VOLATILE_ATTRIBUTES: Record<Platform, string[]> = { android: [], ios: ["value"] };

/** The element this device shows for the stored one, or why there is none to tap. */
export type Candidate = { kind: "found"; element: A11yElement; matched: string[] } | { kind: "none"; why: string };

/** How the element's pixels compare with the stored image resized to its bounds. */
export type PixelVerdict =
  | { kind: "agree"; unmatched: number; point: Point }
  | { kind: "contradict"; unmatched: number }
  | { kind: "skipped"; why: string };

/** Everything one source gave: the candidate and, when there is one, its pixels. */
export interface TransferEvidence {
  source: TransferSource;
  candidate: Candidate;
  pixels: PixelVerdict;
}

/** A transfer decided: where to tap, the element's box, and why. */
export interface TransferPlan {
  point: Point;
  box: Rect;
  element: A11yElement;
  evidence: string;
}

/** Gather the evidence of one source on the settled screenshot `shot`; the pixels only for a candidate. */
export async function gatherEvidence(
  call: Call,
  source: TransferSource,
  shot: { raw: RawImage },
  { prompt }: { prompt: string },
): Promise<TransferEvidence> {
  const candidate = await findCandidate(call, source.record, prompt);
  const pixels =
    candidate.kind === "found"
      ? await elementPixels(call, source, candidate.element, shot.raw)
      : ({ kind: "skipped", why: "no candidate" } as const);
  return { source, candidate, pixels };
}

/** The rule of docs/transfer.md: a candidate whose pixels agree is tapped; anything else is the model's. */
export function chooseTransfer({ candidate, pixels }: TransferEvidence): { plan: TransferPlan } | { why: string } {
  if (candidate.kind === "none") return { why: candidate.why };
  const found = describeCandidate(candidate);
  if (pixels.kind === "skipped") return { why: `${found}, but its pixels were not compared (${pixels.why})` };
  if (pixels.kind === "contradict") {
    return {
      why: `${found}, but its pixels contradict the stored image: ${describePixels(pixels)} (covered or restyled)`,
    };
  }
  const { element } = candidate;
  return {
    plan: { point: pixels.point, box: element.bounds, element, evidence: `${found}; ${describePixels(pixels)}` },
  };
}

/** The stored element found once here, with the same identity and at the place the prompt names. */
async function findCandidate(call: Call, record: TapRecord, prompt: string): Promise<Candidate> {
  const stored = record.element;
  if (!stored) return { kind: "none", why: "the source record has no accessibility element" };
  const reading = await call.pageSource();
  if ("skipped" in reading) return { kind: "none", why: `page source skipped: ${reading.skipped}` };
  const { platform } = call.device;
  const finding = findElement(reading.elements, stored, platform);
  const wanted = describeAttributes(stored.attributes);
  if (finding.kind === "none") return { kind: "none", why: `no element with ${wanted} (${readCost(reading)})` };
  if (finding.kind === "ambiguous") {
    return { kind: "none", why: `${finding.elements.length} elements with ${wanted}: twins` };
  }
  const { element } = finding;
  const { width, height } = call.device.screen;
  if (element.bounds.width * element.bounds.height >= CONTAINER_SHARE * width * height) {
    return { kind: "none", why: `the element with ${wanted} covers half the screen or more: a container` };
  }
  const other = identityDifference(stored.attributes, element.attributes, platform);
  if (other) {
    return { kind: "none", why: `the element found by ${finding.matched.join(" + ")} ${other}: another element` };
  }
  const misplaced = placeDifference(prompt, element, reading.elements, platform);
  if (misplaced) return { kind: "none", why: misplaced };
  return { kind: "found", element, matched: finding.matched };
}

/** How `now` differs from the stored attributes in what identifies it, or `undefined` when it does not. */
export function identityDifference(
  stored: Record<string, string>,
  now: Record<string, string>,
  platform: Platform,
): string | undefined {
  const names = new Set([...Object.keys(stored), ...LABEL_ATTRIBUTES[platform]]);
  for (const name of names) {
    if (VOLATILE_ATTRIBUTES[platform].includes(name) || stored[name] === now[name]) continue;
    const was = stored[name] === undefined ? "none" : JSON.stringify(stored[name]);
    const is = now[name] === undefined ? "none" : JSON.stringify(now[name]);
    return `has ${name}=${is} where the stored element has ${was}`;
  }
  return undefined;
}

/**
 * With position words in the prompt, whether the candidate is at the place they name among the
 * elements of its kind here (the same id, else the same class); `undefined` when it is.
 */
function placeDifference(
  prompt: string,
  element: A11yElement,
  elements: A11yElement[],
  platform: Platform,
): string | undefined {
  const { places, unchecked } = promptPlaces(prompt);
  if (unchecked.length) {
    return `the prompt names a place by ${unchecked.map((w) => `"${w}"`).join(", ")}, which only the model can judge`;
  }
  if (!places.length) return undefined;
  const mine = namesOf(element, platform);
  const by = mine.id !== undefined ? "id" : "class";
  const kind = elements
    .filter((e) => (by === "id" ? namesOf(e, platform).id === mine.id : namesOf(e, platform).cls === mine.cls))
    .map((e) => e.bounds);
  for (const place of places) {
    const disagreement = placeDisagreement(place, element.bounds, kind);
    if (disagreement) return `among the elements with its ${by} here, ${disagreement}`;
  }
  return undefined;
}

/**
 * The stored image of the element (the part the stored crop shows), resized to the same part of
 * the candidate's bounds, against the screen there. When they agree, the stored point goes to the
 * same relative place in the candidate.
 */
async function elementPixels(
  call: Call,
  source: TransferSource,
  element: A11yElement,
  screen: RawImage,
): Promise<PixelVerdict> {
  const { crop, point } = source.record;
  const was = source.record.element!.bounds;
  const shown = intersection(was, crop);
  if (!shown || shown.width < MIN_SIDE || shown.height < MIN_SIDE) {
    return { kind: "skipped", why: "the stored image shows too little of the element" };
  }
  const map = mapping(was, element.bounds);
  const target = roundRect({ ...map.point(shown), width: shown.width * map.sx, height: shown.height * map.sy });
  if (target.width < MIN_SIDE || target.height < MIN_SIDE || !rectFits(target, screen.width, screen.height)) {
    return { kind: "skipped", why: `the element is ${target.width}x${target.height} px here, too small to compare` };
  }
  const stored = cutRegion(await decode(source.image), { ...shown, x: shown.x - crop.x, y: shown.y - crop.y });
  const resized = await resizeRawTo(stored, target);
  const radius = Math.max(1, Math.round(ELEMENT_VERDICT.radiusUnits * call.device.scale));
  const unmatched = unmatchedShare(resized, cutRegion(screen, target), {
    radius,
    threshold: ELEMENT_VERDICT.threshold,
    stopAbove: ELEMENT_VERDICT.maxUnmatched,
  });
  if (unmatched > ELEMENT_VERDICT.maxUnmatched) return { kind: "contradict", unmatched };
  const at = map.point(point);
  const { bounds } = element;
  const clamp = (v: number, lo: number, size: number) => Math.min(lo + size - 1, Math.max(lo, Math.round(v)));
  return {
    kind: "agree",
    unmatched,
    point: { x: clamp(at.x, bounds.x, bounds.width), y: clamp(at.y, bounds.y, bounds.height) },
  };
}

/** The map from the stored element's bounds to the candidate's: each axis scaled on its own. */
function mapping(from: Rect, to: Rect) {
  const sx = to.width / from.width;
  const sy = to.height / from.height;
  return { sx, sy, point: (p: Point) => ({ x: to.x + (p.x - from.x) * sx, y: to.y + (p.y - from.y) * sy }) };
}

function intersection(a: Rect, b: Rect): Rect | undefined {
  const x = Math.max(a.x, b.x);
  const y = Math.max(a.y, b.y);
  const width = Math.min(a.x + a.width, b.x + b.width) - x;
  const height = Math.min(a.y + a.height, b.y + b.height) - y;
  return width > 0 && height > 0 ? { x, y, width, height } : undefined;
}

/** Whole pixels, rounded inward where the edges fall between them. */
function roundRect(r: Rect): Rect {
  const x = Math.ceil(r.x - 1e-9);
  const y = Math.ceil(r.y - 1e-9);
  return { x, y, width: Math.floor(r.x + r.width + 1e-9) - x, height: Math.floor(r.y + r.height + 1e-9) - y };
}

function describeCandidate({ element, matched }: Extract<Candidate, { kind: "found" }>): string {
  const b = element.bounds;
  return `the element was found once by ${matched.join(" + ")} at (${b.x}, ${b.y}) ${b.width}x${b.height}, its identity equal`;
}

/** The pixel verdict as a clause (counting stops past the limit, so a contradiction says "more than"). */
function describePixels(pixels: Exclude<PixelVerdict, { kind: "skipped" }>): string {
  const limit = `${ELEMENT_VERDICT.maxUnmatched * 100}%`;
  if (pixels.kind === "contradict") {
    return `the stored image resized to its bounds left more than ${limit} of the pixels without a like one nearby`;
  }
  const share = `${(pixels.unmatched * 100).toFixed(1)}%`;
  return `the stored image resized to its bounds matched (${share} of the pixels without a like one nearby, at most ${limit})`;
}
