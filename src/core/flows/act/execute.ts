/*
 * Doing one `ai.act` step on the device through the device seam (src/core/device/description.ts):
 * taps, typing a named value, clearing, checking, choosing an option, a key, a scroll; each within
 * {@link ACTION_LIMIT_MS} and the call's deadline. A value's text goes to the device only.
 */
import { centreOf, type ControlIdentity, type ObservedControl } from "../../device/controls.js";
import { idSelector } from "../../device/node-locator.js";
import { scrollRegion, swipeFor } from "../../device/swipe-geometry.js";
import { limitedSignal, untilAborted } from "../../ground/deadline.js";
import { ElementNotFoundError, TimeoutError } from "../../ground/errors.js";
import type { Point, Rect } from "../../ground/geometry.js";
import type { ControlRole, PRESS_KEYS } from "../../model/contract.js";
import type { Call } from "../../run/call.js";
import type { ActStep } from "../../store/act-record.js";

/** The longest one action may take. */
export const ACTION_LIMIT_MS = 5_000;
/** How long a `select` waits for its options to show after opening it. */
const OPTIONS_SHOW_MS = 300;

/** The control a step acts on now: its role, label, where it is and, for a checkable one, its state. */
export interface ActOn {
  role: ControlRole;
  label: string;
  bounds: Rect;
  /** Where to act, in screenshot pixels. */
  point: Point;
  checked?: boolean | undefined;
  /** Its identity, when it was found in the page source now (not by its crop). */
  identity?: ControlIdentity;
}

/** What {@link performStep} needs besides the call. */
export interface Perform {
  values: Readonly<Record<string, string>>;
  /** The option with this label on the screen now, once a select is open. */
  findOption: (label: string) => Promise<ObservedControl | undefined>;
  /**
   * Type a fill into the field found by its id, with no focusing tap (a replay, whose next step is known
   * not to press a key: a key goes to the focused field, which only the tap is sure to leave focused).
   */
  fillById?: boolean;
}

/** The control as a step acts on it. */
export function actOn(control: ObservedControl): ActOn {
  const { role, label, checked } = control.control;
  return { role, label, bounds: control.bounds, point: centreOf(control.bounds), checked, identity: control.identity };
}

/** Run `work` within the action limit and the call's deadline. */
async function limited(call: Call, what: string, work: () => Promise<void>): Promise<void> {
  const limit = limitedSignal(
    call.deadline.signal,
    ACTION_LIMIT_MS,
    () => new TimeoutError(`${what} did not finish within ${ACTION_LIMIT_MS} ms.`),
  );
  try {
    await untilAborted(work(), limit.signal);
  } finally {
    limit.dispose();
  }
}

/** Do `step` on `on` (absent for a key or a screen scroll); returns what was done, for the history. */
export async function performStep(
  call: Call,
  step: Pick<ActStep, "action" | "value" | "checked" | "option" | "key" | "direction">,
  on: ActOn | undefined,
  perform: Perform,
): Promise<string> {
  const what = describeStep(step, on?.label);
  switch (step.action) {
    case "tap":
      await limited(call, what, () => call.tap(on!.point));
      return what;
    case "fill": {
      const text = perform.values[step.value!]!;
      const id = perform.fillById ? on!.identity?.id : undefined;
      const selectors = id !== undefined ? [idSelector(id, call.device.platform)] : undefined;
      await limited(call, what, () => call.fill({ point: on!.point, text, selectors }));
      return what;
    }
    case "clear":
      await limited(call, what, () => call.clear({ point: on!.point }));
      return what;
    case "setChecked":
      if (on!.checked === step.checked) return `${what}: it already was`;
      await limited(call, what, () => call.tap(on!.point));
      return what;
    case "select":
      await selectOption(call, { what, on: on!, option: step.option!, perform });
      return what;
    case "press":
      await limited(call, what, () => call.pressKey(step.key as (typeof PRESS_KEYS)[number]));
      return what;
    case "scroll": {
      const region = scrollRegion(call.device, on?.bounds);
      await limited(call, what, () => call.swipe(swipeFor(region, step.direction!)));
      return what;
    }
    default:
      throw new Error(`tapshot bug: "${step.action}" is no action to perform.`);
  }
}

/** Open a select unless its option shows already, then tap the option by its label. */
async function selectOption(
  call: Call,
  { what, on, option, perform }: { what: string; on: ActOn; option: string; perform: Perform },
): Promise<void> {
  let shown = await perform.findOption(option);
  if (!shown) {
    await limited(call, `${what} (opening it)`, () => call.tap(on.point));
    await call.deadline.sleep(OPTIONS_SHOW_MS);
    shown = await perform.findOption(option);
  }
  if (!shown) {
    throw new ElementNotFoundError(`${what}: no option "${option}" showed once "${on.label}" was opened.`);
  }
  const at = centreOf(shown.bounds);
  await limited(call, what, () => call.tap(at));
}

/** `fill "Email" with value email`, `press enter`: a step in words, with value names only. */
export function describeStep(
  step: Pick<ActStep, "action" | "value" | "checked" | "option" | "key" | "direction">,
  label: string | undefined,
): string {
  const on = label !== undefined ? ` "${label}"` : "";
  switch (step.action) {
    case "fill":
      return `fill${on} with value ${step.value}`;
    case "setChecked":
      return `set${on} ${step.checked ? "on" : "off"}`;
    case "select":
      return `select "${step.option}" in${on}`;
    case "press":
      return `press ${step.key}`;
    case "scroll":
      return `scroll${on || " the screen"} ${step.direction}`;
    default:
      return `${step.action}${on}`;
  }
}
