/*
 * One look at what `toSatisfy` judges (docs/api.md, "Semantic assertions"): the element (found
 * again each time, refused when a selector matches several), its evidence from the page source,
 * the image when one goes with it (text fields painted over), and the hash of it all. A missing
 * or empty element is a `waiting` look, never a failure by itself.
 */
import { createHash } from "node:crypto";
import type { ElementTarget, Rect } from "../../device/description.js";
import { InputError } from "../../ground/errors.js";
import type { Call } from "../../run/call.js";
import { cropPng, encodePng } from "../../pixels/image-encode.js";
import { decode } from "../../pixels/image-decode.js";
import { isUniform } from "../../pixels/image-compare.js";
import { toRect } from "../../pixels/pixel-rects.js";
import { fillRects, systemBarMasks } from "../../pixels/masks.js";
import { MASK_GREY_BYTE } from "../../pixels/pixel-diff.js";
import { pixelFingerprint } from "../../store/rejections.js";
import { buildEvidence, evidenceText, maskedForHash, nodeAt, subtree, typedValues, type Evidence } from "./evidence.js";

/** What is judged: the element (or the whole screen) and how. */
export interface SnapshotParams {
  /** The element; `undefined` for the whole screen. */
  target: ElementTarget | undefined;
  /** Send the image: `undefined` decides (an element without text, or the screen). */
  screenshot: boolean | undefined;
  ignore: RegExp[];
}

/** A look that can be judged. */
export interface Snapshot {
  state: "ready";
  /** SHA-256 (hex) of the evidence as hashed. */
  hash: string;
  evidence: Evidence;
  /** What the model reads. */
  text: string;
  /** The image sent (text fields painted over), if one is. */
  image: Buffer | undefined;
  /** The element's rectangle, or the screen's, in screenshot pixels. */
  shot: Rect;
}

/** A look at an element that is not there yet, or shows nothing yet. */
export interface Waiting {
  state: "waiting";
  why: string;
}

/** Look once. Throws an InputError when the selector matches several elements. */
export async function readSnapshot(call: Call, params: SnapshotParams): Promise<Snapshot | Waiting> {
  const { width, height } = call.device.screen;
  let shot: Rect = { x: 0, y: 0, width, height };
  if (params.target) {
    const rects = await call.elementMatches(params.target);
    if (rects.length > 1) throw ambiguous(params.target, rects.length);
    if (!rects.length) return { state: "waiting", why: `${describeTarget(params.target)} matches no element` };
    shot = toRect(rects[0]!, width, height);
    if (shot.width < 1 || shot.height < 1) return { state: "waiting", why: "the element lies off the screen" };
  }
  const reading = await call.pageNodes();
  // A session with no page source at all (a web view's adapter, say) is judged from its image alone;
  // a read that failed this time is looked at again.
  if ("skipped" in reading && !reading.absent) {
    return { state: "waiting", why: `no accessibility tree: ${reading.skipped}` };
  }
  const nodes = "skipped" in reading ? [] : reading.elements;
  const root = params.target ? nodeAt(nodes, shot) : undefined;
  if (params.target && nodes.length && root === undefined) {
    return { state: "waiting", why: "the element is not in the page source" };
  }
  const evidence = buildEvidence(nodes.length ? subtree(nodes, root) : [], {
    platform: call.device.platform,
    typed: typedValues(nodes, call.device.platform),
    ignore: params.ignore,
    ...(nodes.length ? {} : { noTree: "this device session has no page source" }),
  });
  const wantsImage =
    !nodes.length || (params.target ? (params.screenshot ?? evidence.text.length === 0) : params.screenshot !== false);
  const image = wantsImage ? await imageOf(call, shot, evidence) : undefined;
  if (image?.empty && params.target && evidence.text.length === 0) {
    return { state: "waiting", why: "the element is empty: no text, and its crop is one flat colour" };
  }
  const text = evidenceText(evidence);
  const hash = createHash("sha256")
    .update(JSON.stringify([maskedForHash(text, params.ignore), image?.fingerprint ?? null]))
    .digest("hex");
  return { state: "ready", hash, evidence, text, image: image?.png, shot };
}

/**
 * The image of `shot` with the text fields painted grey, its fingerprint (system bars and ignored
 * elements left out) and whether it is one flat colour.
 */
async function imageOf(call: Call, shot: Rect, evidence: Evidence) {
  const screen = await call.screenshot();
  const whole = shot.x === 0 && shot.y === 0 && shot.width === call.device.screen.width;
  const png = whole && shot.height === call.device.screen.height ? screen : await cropPng(screen, shot);
  const raw = await decode(png);
  const local = (rects: Rect[]) => rects.map((r) => ({ ...r, x: r.x - shot.x, y: r.y - shot.y }));
  fillRects(raw, local(evidence.fields), MASK_GREY_BYTE);
  const bars = whole
    ? systemBarMasks({ screen: { width: raw.width, height: raw.height }, insets: call.device.insets })
    : [];
  return {
    png: evidence.fields.length ? await encodePng(raw) : png,
    fingerprint: pixelFingerprint(raw, [...bars, ...local(evidence.ignoredBounds)]),
    empty: isUniform(raw),
  };
}

/** The image stored with a judgment: the one sent, or else the shot now, text fields painted over. */
export async function storedImage(call: Call, snapshot: Snapshot): Promise<Buffer> {
  if (snapshot.image) return snapshot.image;
  return (await imageOf(call, snapshot.shot, snapshot.evidence)).png;
}

function describeTarget(target: ElementTarget): string {
  return "selector" in target ? `the selector ${JSON.stringify(target.selector)}` : "the element";
}

function ambiguous(target: ElementTarget, count: number): InputError {
  return new InputError(
    `toSatisfy refuses ${describeTarget(target)}: it matches ${count} elements, and a statement is judged about ` +
      `one. Make the selector match one element (an accessibility id, or a narrower selector).`,
  );
}
