/*
 * The cheap rungs of a tap's heal ladder (docs/heal.md): the stored crop searched for on the
 * whole screen, and the stored element in the page source. They heal without a model when the
 * evidence is unambiguous; otherwise what they found goes to the model as text.
 */
import { describeAttributes, type A11yElement } from "../../device/a11y-element.js";
import { findElement, type A11yFinding } from "../../device/element-queries.js";
import { contains, type Point, type Rect } from "../../ground/geometry.js";
import type { Box } from "../../model/contract.js";
import { cropPng } from "../../pixels/image-encode.js";
import { decode, type RawImage } from "../../pixels/image-decode.js";
import { toRect } from "../../pixels/pixel-rects.js";
import { searchMoved, shifted, type SearchFinding, type Shift } from "../../pixels/moved-crop.js";
import type { Call } from "../../run/call.js";
import type { NewValue } from "../../run/lifecycle.js";
import type { TapRecord } from "../../store/tap-record.js";
import { CROP_VERDICT } from "../shared/crop-verdict.js";
import { CROP_PAD_UNITS, storedCrop } from "./crop-check.js";
import { actOn, readCost } from "./locate.js";
import type { CropMismatch, TapDone, TapParams } from "./tap-params.js";

/** Model name of a heal from the whole-screen crop search (docs/heal.md): not a model's judgment. */
export const CROP_SEARCH_MODEL = "local:crop-search";
/** Model name of a heal from the stored element found in the page source alone. */
export const A11Y_MODEL = "local:a11y";
/** Model name of a heal where crop search and the page source agree. */
export const AGREED_MODEL = "local:crop-search+a11y";

/** What the cheap rungs of a heal found: each rung's finding when it ran. */
export interface CheapFindings {
  search?: SearchFinding;
  a11y?: A11yFinding;
}

/** A stored tap as the ladder reads it. */
type StoredTap = { record: TapRecord; image: Buffer };

/**
 * The cheap rungs of a heal (docs/heal.md): crop search, then the stored element in the page
 * source. Without `verify` a cheap heal needs both rungs to agree (the crop found inside the
 * element's bounds); with `verify` one unambiguous rung may tap, and verify must pass. Otherwise
 * no value: the heal goes on to the model with what was found.
 */
export async function healCheaply(
  call: Call,
  stored: StoredTap,
  shot: { png: Buffer; raw: RawImage },
  params: TapParams,
): Promise<{ value?: NewValue<TapRecord, TapDone>; found: CheapFindings }> {
  const found: CheapFindings = {};
  if (params.heal.search) {
    const started = Date.now();
    const expected = await storedCrop(call, stored);
    found.search = await searchMoved(shot.raw, expected, stored.record.crop, call.device, CROP_VERDICT);
    call.note(`heal ladder: crop search ${describeFinding(found.search)} (${Date.now() - started} ms)`);
  }
  const element = stored.record.element;
  if (params.heal.accessibility && element) {
    const reading = await call.pageSource();
    if ("skipped" in reading) call.note(`heal ladder: accessibility skipped: ${reading.skipped}`);
    else {
      found.a11y = findElement(reading.elements, element, call.device.platform);
      call.note(`heal ladder: accessibility ${describeA11y(found.a11y, element)} (${readCost(reading)})`);
    }
  }
  const heal = chooseCheapHeal(call, stored.record, found, params);
  if (!heal) return { found };
  await actOn(call, heal.point, params);
  const { record } = stored;
  const reason = heal.reason + (params.verify ? `, and "${params.verify}" held after the tap` : "");
  const value: NewValue<TapRecord, TapDone> = {
    fields: {
      kind: record.kind,
      prompt: record.prompt,
      verify: record.verify,
      device: call.device,
      point: heal.point,
      box: heal.box,
      crop: heal.crop,
      model: heal.model,
      reason,
      element: heal.element,
    },
    image: await cropPng(shot.png, heal.crop),
    done: {
      outcome: "healed",
      result: { point: heal.point },
      detail: `point (${record.point.x}, ${record.point.y}) -> (${heal.point.x}, ${heal.point.y}) by ${heal.model}`,
    },
  };
  return { value, found };
}

/** A cheap rung's heal, before it is tapped. */
interface CheapHeal {
  point: Point;
  box: Box;
  crop: Rect;
  model: string;
  reason: string;
  element?: A11yElement;
}

/** The rule of docs/heal.md: which findings may heal without a model. */
function chooseCheapHeal(
  call: Call,
  record: TapRecord,
  found: CheapFindings,
  params: TapParams,
): CheapHeal | undefined {
  const search = found.search?.kind === "unique" ? found.search : undefined;
  const a11y = found.a11y?.kind === "unique" ? found.a11y : undefined;
  if (search && a11y) {
    const point = shifted(record.point, search.shift);
    if (contains(a11y.element.bounds, point)) return searchHeal(record, search, AGREED_MODEL, a11y);
    call.note("heal ladder: crop search and the accessibility element disagree; asking the model");
    return undefined;
  }
  if (params.verify && search) return searchHeal(record, search, CROP_SEARCH_MODEL);
  if (params.verify && a11y) return a11yHeal(call, a11y);
  if (search || a11y)
    call.note("heal ladder: without verify a cheap heal needs a second agreeing rung; asking the model");
  return undefined;
}

/**
 * What the cheap rungs found, as text for the model next to the screenshot (docs/heal.md), so it
 * can tell candidates apart instead of starting from nothing; `undefined` when there is nothing to say.
 */
export function evidenceText(call: Call, record: TapRecord, found: CheapFindings): string | undefined {
  const { width, height } = call.device.screen;
  const at = (r: Rect) => `(${r.x}, ${r.y}) ${r.width}x${r.height}`;
  const lines = [`Places are x, y, width x height in pixels of the full ${width}x${height} screenshot.`];
  lines.push(`The element was stored at ${at(record.box)}.`);
  if (record.element) lines.push(`Its accessibility element had ${describeAttributes(record.element.attributes)}.`);
  const { search, a11y } = found;
  if (search?.kind === "unique") lines.push(`The stored crop now matches once, at ${at(search.rect)}.`);
  if (search?.kind === "ambiguous") {
    lines.push(`The stored crop now matches at ${search.rects.length} places: ${search.rects.map(at).join("; ")}.`);
  }
  if (search?.kind === "none") lines.push("The stored crop matches nowhere on the screen (restyled or removed).");
  if (a11y?.kind === "unique") {
    lines.push(
      `The accessibility tree has one element with the same ${a11y.matched.join(" + ")}, at ${at(a11y.element.bounds)}.`,
    );
  }
  if (a11y?.kind === "ambiguous") {
    const places = a11y.elements.map((e) => at(e.bounds)).join("; ");
    lines.push(
      `The accessibility tree has ${a11y.elements.length} elements with the same ${a11y.matched.join(" + ")}: ${places}.`,
    );
  }
  if (a11y?.kind === "none") lines.push("The accessibility tree has no element with those attributes now.");
  if (!search && !a11y && !record.element) return undefined;
  return lines.join("\n").slice(0, 4000);
}

function searchHeal(
  record: TapRecord,
  search: Extract<SearchFinding, { kind: "unique" }>,
  model: string,
  a11y?: Extract<A11yFinding, { kind: "unique" }>,
): CheapHeal {
  const { shift, rect } = search;
  const moved =
    `the stored crop was found once on the screen, moved by ${shift.dx}, ${shift.dy} px ` +
    `(${(shift.diffRatio * 100).toFixed(2)}% of its pixels differed)`;
  return {
    point: shifted(record.point, shift),
    box: { ...record.box, x: record.box.x + shift.dx, y: record.box.y + shift.dy },
    crop: rect,
    model,
    reason: a11y ? `${moved}, inside the accessibility element found by ${a11y.matched.join(" + ")}` : moved,
    ...(a11y
      ? { element: a11y.element }
      : record.element
        ? { element: { ...record.element, bounds: shiftedRect(record.element.bounds, shift) } }
        : {}),
  };
}

function a11yHeal(call: Call, a11y: Extract<A11yFinding, { kind: "unique" }>): CheapHeal {
  const { width, height } = call.device.screen;
  // Parsed bounds are already clipped to the screen (src/core/device/page-source-parse.ts).
  const box = a11y.element.bounds;
  return {
    point: { x: Math.round(box.x + box.width / 2), y: Math.round(box.y + box.height / 2) },
    box,
    crop: toRect(box, width, height, CROP_PAD_UNITS * call.device.scale),
    model: A11Y_MODEL,
    reason:
      `the stored accessibility element was found once in the page source by ` +
      `${describeAttributes(a11y.element.attributes, a11y.matched)}`,
    element: a11y.element,
  };
}

function shiftedRect(r: Rect, shift: Pick<Shift, "dx" | "dy">): Rect {
  return { ...r, x: r.x + shift.dx, y: r.y + shift.dy };
}

function describeA11y(finding: A11yFinding, stored: Pick<A11yElement, "attributes">): string {
  if (finding.kind === "unique") {
    const b = finding.element.bounds;
    return `found the stored element once by ${finding.matched.join(" + ")}, at (${b.x}, ${b.y}) ${b.width}x${b.height}`;
  }
  if (finding.kind === "ambiguous") {
    return `found ${finding.elements.length} elements with ${describeAttributes(stored.attributes, finding.matched)}: ambiguous`;
  }
  return `did not find the stored element (${describeAttributes(stored.attributes)})`;
}

function describeFinding(finding: SearchFinding): string {
  if (finding.kind === "unique")
    return `found the stored crop once, moved by ${finding.shift.dx}, ${finding.shift.dy} px`;
  if (finding.kind === "ambiguous") {
    return `found ${finding.rects.length} similar places (${finding.rects.map((r) => `(${r.x}, ${r.y})`).join(", ")}): ambiguous`;
  }
  return "did not find the stored crop";
}

/**
 * For a mismatch that is not healed (no autoHeal, mode replay): what the crop search would
 * find, so the message says where the element went; nothing is tapped or stored.
 */
export async function movedHint(
  call: Call,
  stored: StoredTap,
  mismatch: CropMismatch,
  params: TapParams,
): Promise<string> {
  if (!params.heal.search || !mismatch.healable) return "";
  const screen = await decode(mismatch.screenshot);
  if (screen.width !== call.device.screen.width || screen.height !== call.device.screen.height) return "";
  const finding = await searchMoved(
    screen,
    await storedCrop(call, stored),
    stored.record.crop,
    call.device,
    CROP_VERDICT,
  );
  return ` Crop search (nothing tapped): ${describeFinding(finding)}.`;
}
