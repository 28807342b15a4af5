/*
 * Which of a `decide` answer's choices `ai.act` takes (docs/api.md "ai.act"), as the web API it
 * comes from does: the likeliest, when certain enough and valid on the observed screen.
 */
import type { ActionChoice } from "../../model/contract.js";
import { identityKey, type ObservedControl } from "../../device/controls.js";
import type { Seen } from "./observe.js";

/** A choice this likely is taken. */
export const CERTAIN = 0.8;
/** Below {@link CERTAIN}, a choice at least this likely is taken when {@link MARGIN} above the next. */
export const LIKELY = 0.5;
export const MARGIN = 0.3;
/** A `done` below this is refused outright. */
export const DONE_AT_LEAST = 0.5;

/** The actions that need a control of the observation. */
const ON_CONTROL = new Set(["tap", "fill", "clear", "setChecked", "select"]);
const CHECKABLE = new Set(["checkbox", "switch", "radio"]);

/** What the call did so far that the policy weighs. */
export interface PolicyState {
  valueNames: readonly string[];
  /** Value name -> identity key of the field this call filled it into. */
  filledInto: ReadonlyMap<string, string>;
  /** `<screen signature> <action key>` of every action executed. */
  executed: ReadonlySet<string>;
}

/** The choice taken, with its control; or why none was. */
export type Picked =
  { choice: ActionChoice; control: ObservedControl | undefined } | { refused: string; choice?: ActionChoice };

/** The key two equal actions share. */
export function actionKey(choice: ActionChoice, control: ObservedControl | undefined): string {
  const { action, value, checked, option, key, direction } = choice;
  const on = control ? identityKey(control.identity) : "";
  return JSON.stringify([action, on, value, checked, option, key, direction]);
}

/** Take the likeliest choice under the policy, or say why it is refused. */
export function pickChoice(choices: ActionChoice[], seen: Seen, state: PolicyState): Picked {
  const sorted = [...choices].sort((a, b) => b.probability - a.probability);
  const top = sorted[0];
  if (!top) return { refused: "the model gave no choice" };
  const next = sorted[1]?.probability ?? 0;
  const p = top.probability;
  if (top.action === "done" && p < DONE_AT_LEAST) {
    return { refused: `"done" at ${p.toFixed(2)} is below ${DONE_AT_LEAST}`, choice: top };
  }
  if (p < CERTAIN && !(p >= LIKELY && p - next >= MARGIN)) {
    return {
      refused:
        `uncertain: ${p.toFixed(2)} is below ${CERTAIN}, and not at least ${LIKELY} with ` +
        `${MARGIN} above the next (${next.toFixed(2)})`,
      choice: top,
    };
  }
  const invalid = invalidChoice(top, seen, state);
  if (typeof invalid === "string") return { refused: invalid, choice: top };
  if (state.executed.has(`${seen.signature} ${actionKey(top, invalid.control)}`)) {
    return { refused: "the same action was already done on this unchanged screen", choice: top };
  }
  return { choice: top, control: invalid.control };
}

/** Why `choice` cannot be done on the observed screen, or its control. */
function invalidChoice(
  choice: ActionChoice,
  seen: Seen,
  state: PolicyState,
): string | { control: ObservedControl | undefined } {
  const { action } = choice;
  const control =
    choice.control === undefined ? undefined : seen.observation.controls.find((c) => c.control.id === choice.control);
  if (choice.control !== undefined && !control) return `no control "${choice.control}" was observed`;
  if (ON_CONTROL.has(action) && !control) return `"${action}" names no control`;
  const role = control?.control.role;
  if (action === "fill") {
    if (role !== "field") return `"fill" on a ${role}, not a field`;
    if (choice.value === undefined || !state.valueNames.includes(choice.value)) {
      return `"fill" names no supplied value (${state.valueNames.join(", ") || "none were given"})`;
    }
    const into = state.filledInto.get(choice.value);
    if (into !== undefined && into !== identityKey(control!.identity)) {
      return `the value "${choice.value}" was already filled into another field in this call`;
    }
  }
  if (action === "clear" && role !== "field") return `"clear" on a ${role}, not a field`;
  if (action === "setChecked" && (!CHECKABLE.has(role!) || choice.checked === undefined)) {
    return `"setChecked" needs a checkbox, switch or radio and a state`;
  }
  if (action === "select" && (role !== "select" || !choice.option)) return `"select" needs a select and an option`;
  if (action === "press" && !choice.key) return `"press" names no key`;
  if (action === "scroll" && !choice.direction) return `"scroll" names no direction`;
  return { control };
}
