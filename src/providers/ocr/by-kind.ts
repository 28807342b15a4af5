/*
 * Choosing among the places OCR read a quoted text by the kind of control the prompt names
 * (docs/providers.md, "What it answers"), with the page source's controls the request carries: each
 * place belongs to the control whose box holds it (a button's text, an Ionic input's label), or else
 * to the input it labels (a field just below it, a switch beside it on its row). When exactly one
 * control of the asked kind owns a place, that control is the answer; otherwise nothing is chosen.
 */
import { TARGET_KINDS, quotedTarget } from "../../core/device/quoted-target.js";
import { contains } from "../../core/ground/geometry.js";
import type { Box, ControlRole, LocateControl } from "../../core/model/contract.js";
import type { TextMatch } from "./match.js";

/** A label lies at most this many of its own text heights above its field, or before its input on a row. */
const LABEL_GAP_LINES = 1.5;
const ROW_GAP_LINES = 6;
/** The controls a separate text can label; a button or link holds its own text. */
const LABELLED_ROLES: readonly ControlRole[] = ["field", "select", "switch", "checkbox", "radio"];

/** The place chosen and the control it belongs to. */
export interface KindChoice {
  match: TextMatch;
  control: LocateControl;
  kind: string;
}

/** The one place among `matches` that belongs to a control of the prompt's kind, else `undefined`. */
export function chooseByKind(
  prompt: string,
  matches: readonly TextMatch[],
  controls: readonly LocateControl[] | undefined,
): KindChoice | undefined {
  const target = quotedTarget(prompt);
  if (!target || !controls?.length) return undefined;
  const roles = TARGET_KINDS[target.kind] ?? [];
  const owned = matches
    .map((match) => ({ match, control: ownerOf(match.box, controls), kind: target.kind }))
    .filter((o): o is KindChoice => o.control !== undefined && roles.includes(o.control.role));
  // A field's placeholder and the label above it are two places of one field: still one answer.
  return new Set(owned.map((o) => o.control)).size === 1 ? owned[0] : undefined;
}

/** The control a text read at `box` belongs to: the smallest holding its centre, else the input it labels. */
function ownerOf(box: Box, controls: readonly LocateControl[]): LocateControl | undefined {
  const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
  const holding = controls.filter((c) => contains(c.box, centre)).sort((a, b) => area(a.box) - area(b.box));
  return holding[0] ?? labelled(box, controls);
}

/** The nearest input just below `box` and overlapping it across, or else just after it on its row. */
function labelled(box: Box, controls: readonly LocateControl[]): LocateControl | undefined {
  const inputs = controls.filter((c) => LABELLED_ROLES.includes(c.role));
  const bottom = box.y + box.height;
  const below = inputs
    .filter((c) => c.box.y >= bottom - box.height / 2 && c.box.y - bottom <= box.height * LABEL_GAP_LINES)
    .filter((c) => c.box.x < box.x + box.width && box.x < c.box.x + c.box.width)
    .sort((a, b) => a.box.y - b.box.y);
  if (below[0]) return below[0];
  const middle = box.y + box.height / 2;
  const right = box.x + box.width;
  return inputs
    .filter((c) => c.box.y <= middle && middle <= c.box.y + c.box.height)
    .filter((c) => c.box.x >= right && c.box.x - right <= box.height * ROW_GAP_LINES)
    .sort((a, b) => a.box.x - b.box.x)[0];
}

function area(box: Box): number {
  return box.width * box.height;
}
