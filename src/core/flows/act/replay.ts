/*
 * Replaying a stored act without a model (docs/api.md "ai.act"): each step's control is found by
 * its identity in the page source, else by its crop on the screenshot (a moved control), waiting
 * as a tap waits (src/core/flows/shared/stored-screen.ts tells a loading screen from a changed one).
 */
import { centreOf, findControl, identityKey, type Observation, type ObservedControl } from "../../device/controls.js";
import { contains, type Point, type Rect } from "../../ground/geometry.js";
import { decode, type RawImage } from "../../pixels/image-decode.js";
import { systemBarMasks } from "../../pixels/masks.js";
import { searchMoved, shifted } from "../../pixels/moved-crop.js";
import type { Mismatch, Use } from "../../run/lifecycle.js";
import { DEFAULT_SETTLE } from "../../run/settle.js";
import { describeEnd, pollForMatch } from "../../run/stable-screen.js";
import type { ActRecord, ActStep } from "../../store/act-record.js";
import type { Stored } from "../../store/record-io.js";
import { CROP_VERDICT } from "../shared/crop-verdict.js";
import { settledScreenIsFinal } from "../shared/stored-screen.js";
import type { ActDone } from "./act-params.js";
import { actOn, describeStep, performStep, type ActOn } from "./execute.js";
import { attempt, findOption, observeContext, type DoneStep, type Loop } from "./learn.js";
import { observeNow, withFilledFieldsPainted } from "./observe.js";
import { cropOf } from "./sheet.js";

/** A replayed step whose control was not found. */
export interface ActMismatch extends Mismatch {
  /** The index of the step that failed; the steps before it were done. */
  stepIndex: number;
  screenshot: Buffer;
}

/** Replay every stored step in order; a step whose control does not show by `until` is the mismatch. */
export async function replaySteps(
  loop: Loop,
  stored: Stored<ActRecord>,
  until: number,
): Promise<Use<ActDone, ActMismatch>> {
  const { call } = loop;
  const sheet = await decode(stored.image);
  const { steps } = stored.record;
  for (const [index, step] of steps.entries()) {
    const crop = step.control && cropOf(sheet, step.control);
    let on: ActOn | undefined;
    if (step.control) {
      const found = await findStepControl(loop, { record: stored.record, step, crop: crop!, until });
      if ("mismatch" in found) return { mismatch: { ...found.mismatch, stepIndex: index } };
      on = found.on;
    }
    loop.attempts++;
    const what = await performStep(call, step, on, {
      values: loop.params.values,
      findOption: (label) => findOption(loop, label),
      fillById: steps[index + 1]?.action !== "press",
    });
    attempt(loop, { outcome: "done", reason: `replayed: ${what}` });
    if (step.action === "fill" && step.control) loop.filled.set(identityKey(step.control.identity), step.value!);
    loop.steps.push(replayedStep(step, crop, on));
  }
  return { done: { outcome: "replayed", result: { steps: loop.steps.map((s) => s.summary), history: loop.history } } };
}

/** A replayed step as the loop keeps it: a heal stores it again with its crop. */
function replayedStep(step: ActStep, crop: RawImage | undefined, on: ActOn | undefined): DoneStep {
  const { control, ...rest } = step;
  const summary = {
    action: step.action as DoneStep["summary"]["action"],
    control: on?.label ?? control?.label ?? "",
    ...(step.value !== undefined ? { value: step.value } : {}),
    ...(step.option !== undefined ? { option: step.option } : {}),
    ...(step.key !== undefined ? { key: step.key } : {}),
    ...(step.checked !== undefined ? { checked: step.checked } : {}),
    ...(step.direction !== undefined ? { direction: step.direction } : {}),
  };
  if (!control) return { step: rest, crop: undefined, summary };
  const { sheetY: _sheetY, ...kept } = control;
  return { step: { ...rest, control: kept }, crop, summary };
}

interface StepLook {
  record: ActRecord;
  step: ActStep;
  crop: RawImage;
  until: number;
}

/** Watch the screen until the step's control shows (by identity, else by crop), or the poll ends. */
async function findStepControl(
  loop: Loop,
  { record, step, crop, until }: StepLook,
): Promise<{ on: ActOn } | { mismatch: Omit<ActMismatch, "stepIndex"> }> {
  const { call } = loop;
  const control = step.control!;
  const inPlace = await identityInPlace(loop, step);
  if (inPlace) return { on: actOn(inPlace) };
  const isFinal = (png: Buffer) =>
    settledScreenIsFinal(call, png, {
      record: { screenThumb: step.screenThumb, device: record.device, crop: control.crop },
      expected: async () => crop,
      verdict: CROP_VERDICT,
      until,
    });
  const poll = { until, masks: systemBarMasks(call.device), settle: DEFAULT_SETTLE.tap, isFinal };
  /** The places the crop matched on the last screenshot, when it matched more than one. */
  let ambiguous: Rect[] | undefined;
  const polled = await pollForMatch(call, poll, async (png) => {
    const look = await lookOnce(loop, { step, crop, png });
    ambiguous = look.ambiguous;
    return look.on ? { matched: true, value: look.on } : { matched: false, value: undefined };
  });
  if (polled.matched) return { on: polled.value! };
  const byCrop = ambiguous
    ? `, and its crop matched ${ambiguous.length} places, so none was chosen (${placesText(ambiguous)})`
    : " nor its crop on the screen";
  const text =
    `step ${loop.steps.length + 1} (${describeStep(step, control.label)}) found no control with its identity ` +
    `(${identityKey(control.identity)})${byCrop}` +
    describeEnd(polled.ended, DEFAULT_SETTLE.tap, "waited" in polled ? polled.waited : undefined);
  // The failure's screenshot is kept for review: the fields typed into so far are painted over.
  const observation = await observeNow(call, observeContext(loop)).catch(() => undefined);
  const screenshot = observation ? await withFilledFieldsPainted({ png: polled.png }, observation) : polled.png;
  return { mismatch: { text, healable: true, ended: polled.ended, screenshot } };
}

/** What one screenshot showed of a step's control: where to act, or the places its crop matched when several. */
interface Look {
  on?: ActOn;
  ambiguous?: Rect[];
}

/**
 * Look for the step's control on one screenshot: by its identity in the page source, else by its crop.
 * Where the page source shows controls of the step's role and label, the crop counts only at their
 * places: a rebuilt form's look-alike empty fields (only their hints differ) are told apart by it, and
 * a crop that matched only another field is not acted on.
 */
async function lookOnce(
  loop: Loop,
  { step, crop, png }: { step: ActStep; crop: RawImage; png: Buffer },
): Promise<Look> {
  const { call } = loop;
  const control = step.control!;
  const observation = await observeNow(call, observeContext(loop)).catch(() => undefined);
  const byIdentity = observation && findControl(observation, control.identity);
  if (byIdentity) return { on: actOn(byIdentity) };
  const search = await searchMoved(await decode(png), crop, control.crop, call.device, CROP_VERDICT);
  const places = search.kind === "unique" ? [search.rect] : search.kind === "ambiguous" ? search.rects : [];
  const labelled = sameRoleAndLabel(observation, control);
  if (labelled.length && places.length) {
    const at = labelled.filter((c) => places.some((rect) => contains(rect, centreOf(c.bounds))));
    if (at.length !== 1) return { ambiguous: search.kind === "ambiguous" ? places : undefined };
    const where = `the page source shows a ${control.role} "${control.label}"`;
    call.note(
      `step "${describeStep(step, control.label)}": found by its crop, ` +
        (places.length === 1 ? `where ${where}` : `which matched ${places.length} places; the one where ${where}`),
    );
    return { on: actOn(at[0]!) };
  }
  if (search.kind !== "unique") return { ambiguous: search.kind === "ambiguous" ? search.rects : undefined };
  const { rect, shift } = search;
  call.note(`step "${describeStep(step, control.label)}": found by its crop ${shift.dx}, ${shift.dy} px off its place`);
  const point = shifted(control.point, shift);
  const moved: ActOn = { role: control.role, label: control.label, bounds: rect, point };
  // A toggle found by its crop takes its state from the control of its role under the point, if any.
  if (step.action === "setChecked") moved.checked = (await controlAt(loop, point, control.role))?.control.checked;
  return { on: moved };
}

/** The observed controls of the stored control's role and (non-empty) label. */
function sameRoleAndLabel(
  observation: Observation | undefined,
  { role, label }: { role: string; label: string },
): ObservedControl[] {
  if (!observation || !label) return [];
  return observation.controls.filter((c) => c.control.role === role && c.control.label === label);
}

/** `at (x, y) 120x40, at (x, y) 120x40`: where a crop matched. */
function placesText(rects: readonly Rect[]): string {
  return rects.map((r) => `at (${r.x}, ${r.y}) ${r.width}x${r.height}`).join(", ");
}

/** How far (in tap units) a control found by its identity may lie from its stored point and still be "in place". */
const IN_PLACE_UNITS = 2;

/**
 * The step's control when the page source shows it, by identity, where it was stored: then no
 * screenshot is needed to act on it (a replay of unchanged screens costs a page source read per
 * step). A control that moved, or that the page source does not show, is looked for on the
 * screenshots as a tap waits for its crop.
 */
async function identityInPlace(loop: Loop, step: ActStep): Promise<ObservedControl | undefined> {
  const found = await identityNow(loop, step);
  if (!found) return undefined;
  const centre = centreOf(found.bounds);
  const stored = step.control!.point;
  const near = IN_PLACE_UNITS * loop.call.device.scale;
  return Math.abs(centre.x - stored.x) <= near && Math.abs(centre.y - stored.y) <= near ? found : undefined;
}

/** The observed control of `role` whose bounds hold `point`, if any. */
async function controlAt(loop: Loop, point: Point, role: string): Promise<ObservedControl | undefined> {
  const observation = await observeNow(loop.call, observeContext(loop)).catch(() => undefined);
  return observation?.controls.find((c) => c.control.role === role && contains(c.bounds, point));
}

/** The step's control in the page source now, by identity; `undefined` when absent or unreadable. */
async function identityNow(loop: Loop, step: ActStep): Promise<ObservedControl | undefined> {
  const observation = await observeNow(loop.call, observeContext(loop)).catch(() => undefined);
  return observation && findControl(observation, step.control!.identity);
}
