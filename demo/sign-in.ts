/**
 * The demo's sign-in through `ai.act`: its goal, the demo account's values, and what a wire double
 * knows of the sign-in page (demo/app/login-page.ts) to decide its steps. A double is not a model:
 * it reads the observed controls the request lists and answers by their labels, and every answer
 * names the double. demo/learn-sign-in.ts learns the committed records with it; tests/e2e/act.test.ts
 * and bench/act.ts use it on the rig.
 */
import type { DoubleChoice, DoubleControl as Control, Knowledge } from "../rig/model-doubles/index.js";

/** The demo flow's goal. */
export const SIGN_IN_GOAL = "sign in";
/** A goal of four steps: both fields, the "Remember me" switch, then Sign in (bench/act.ts). */
export const SIGN_IN_REMEMBERED_GOAL = "sign in and stay signed in (Remember me on)";

/** The demo account: not a secret, but never written to a request, a record or a log all the same. */
export const DEMO_VALUES = { email: "ada@demo-shop.example", password: "demo-shop-pass-1815" };

type Choice = Omit<DoubleChoice, "probability">;

const labelled = (controls: Control[], role: string | undefined, label: RegExp) =>
  controls.find((c) => (role === undefined || c.role === role) && label.test(c.label));

/** Whether the call already typed `name` (the field holds it, or a fill of it went through). */
function filled(field: Control, name: string, history: string[]): boolean {
  if (field.holds === name) return true;
  return history.some((line) => /\bfill\b/i.test(line) && line.includes(name) && !/refused|failed/i.test(line));
}

/** The next step on the sign-in page, by the controls' labels; undefined when none is left. */
export function nextSignInStep(goal: string, controls: Control[], valueNames: string[], history: string[]) {
  for (const name of ["email", "password"]) {
    const field = labelled(controls, "field", new RegExp(name, "i"));
    if (field && valueNames.includes(name) && !filled(field, name, history)) {
      return { action: "fill", control: field.id, value: name } satisfies Choice;
    }
  }
  const remember = labelled(controls, undefined, /remember/i);
  if (/remember/i.test(goal) && remember && remember.checked !== true) {
    return { action: "setChecked", control: remember.id, checked: true } satisfies Choice;
  }
  const submit = labelled(controls, "button", /^\s*(sign in|continue)\b/i);
  return submit ? ({ action: "tap", control: submit.id } satisfies Choice) : undefined;
}

/** Whether the controls are the shop's cart (what a finished sign-in shows). */
const onCart = (controls: Control[]) => labelled(controls, undefined, /checkout|your cart/i) !== undefined;
const busy = (controls: Control[]) => labelled(controls, undefined, /signing in/i) !== undefined;

/** What a wire double knows of the sign-in: `decide` and `complete` read from the observed controls. */
export function signInKnowledge(): Knowledge {
  return {
    decide(goal: string, controls: Control[], valueNames: string[], history: string[]) {
      if (busy(controls)) return { choices: [{ action: "wait", probability: 0.9 }], reason: "double: signing in" };
      if (onCart(controls)) return { choices: [{ action: "done", probability: 0.95 }], reason: "double: the cart" };
      const step = nextSignInStep(goal, controls, valueNames, history);
      if (!step) return { choices: [{ action: "stuck", probability: 0.9 }], reason: "double: no sign-in control" };
      return {
        choices: [{ ...step, probability: 0.95 }],
        reason: `double: ${step.action} on the control labelled ${JSON.stringify(controls.find((c) => c.id === step.control)?.label)}`,
      };
    },
    complete(_goal: string, controls: Control[]) {
      if (onCart(controls))
        return { probability: 0.96, reason: "double: the cart is shown, so the sign-in went through" };
      return labelled(controls, "field", /email|password/i)
        ? { probability: 0.05, reason: "double: the sign-in form is still shown" }
        : { probability: 0.4, reason: "double: still signing in" };
    },
  };
}
