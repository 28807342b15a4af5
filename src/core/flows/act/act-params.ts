/* `ai.act`'s options and result (docs/api.md "ai.act"), and the check of its input. */
import { MAX_ACT_VALUES, type ActAction, type ActionChoice } from "../../model/contract.js";
import { checkBoolean, checkKnownOptions, checkSignal, checkText } from "../../ground/checks.js";
import { InputError } from "../../ground/errors.js";
import { LiteralScrubber } from "../../ground/literal-scrub.js";
import { registerTypedValues } from "../../ground/secrets.js";

/**
 * A value read on the machine tapshot runs on, from an environment variable: the plugin's and
 * the MCP server's way to keep a secret off the wire (`{ "password": { "env": "SHOP_PASSWORD" } }`).
 */
export interface ValueReference {
  env: string;
}

/** The longest value `ai.act` types, in characters (64 KiB); a longer one is an InputError naming the value. */
export const MAX_VALUE_LENGTH = 65_536;

/** Options of `ai.act`. */
export interface ActOptions {
  /**
   * Values to type, by name (`{ email: "…", password: "…" }`), up to 10; names match
   * `/^[A-Za-z][A-Za-z0-9_-]{0,63}$/`. The model sees only the names; the text is typed verbatim and
   * never sent, stored, logged or reported. At most {@link MAX_VALUE_LENGTH} characters each. A
   * value may also be `{ env: "NAME" }`: read from that environment variable where tapshot runs.
   */
  values?: Record<string, string | ValueReference>;
  /** The most actions tried, failed and refused ones included; a whole number 1-20. Default 5. */
  maxSteps?: number;
  /** Total time budget in ms (observing, model calls, actions of at most 5 s each). Default 60000, at most 300000. */
  timeout?: number;
  /** Aborts the call; actions already done are not rolled back. */
  signal?: AbortSignal;
  /** When a replayed step's control is gone, hand the rest of the goal to the model from that step and store the new steps. */
  autoHeal?: boolean;
}

/** One executed step, as `ai.act` returns it. */
export interface ActStepSummary {
  action: Exclude<ActAction, "done" | "stuck" | "wait">;
  /** The control's label ("" for a key press or a screen scroll). */
  control: string;
  /** `fill`: the value's name. */
  value?: string;
  option?: string;
  key?: "enter" | "back" | "tab";
  checked?: boolean;
  direction?: "up" | "down" | "left" | "right";
}

/** One attempt of the call, failed and refused ones included. */
export interface ActAttempt {
  /** The step it was: 1 for the first action tried. */
  step: number;
  choice?: ActionChoice;
  /** The chosen option's probability, or the completion judgment's. */
  probability?: number;
  outcome: "done" | "refused" | "failed" | "waited" | "completed";
  reason: string;
}

/** What `ai.act` did. */
export interface ActResult {
  /**
   * `learned` by the model, `replayed` from the store without a model, `healed`: replayed, then
   * finished by the model; or `reached`: the goal held before any step, so nothing was done or stored.
   */
  outcome: "learned" | "replayed" | "healed" | "reached";
  /** The steps executed. */
  steps: ActStepSummary[];
  /** Every attempt, in order. */
  history: ActAttempt[];
  /** Model requests this call made (0 for a replay). */
  aiCalls: number;
}

/** `ai.act`'s checked input. */
export interface ActParams {
  goal: string;
  values: Readonly<Record<string, string>>;
  /** The value names, sorted. */
  valueNames: string[];
  maxSteps: number;
  autoHeal: boolean;
}

/** What a flow returns to the engine as its result (the engine adds `outcome` and `aiCalls`). */
export type ActDone = Pick<ActResult, "steps" | "history">;

/** `ai.act`'s default and longest timeout. */
export const ACT_TIMEOUT = { default: 60_000, max: 300_000 } as const;
const VALUE_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
const ACT_OPTIONS = ["values", "maxSteps", "timeout", "signal", "autoHeal"];

/** Check `ai.act`'s goal and options. Errors name a value's name, never its text. */
export function checkActInput(goal: unknown, options: unknown) {
  const opts = checkKnownOptions(options, ACT_OPTIONS, "act");
  const params: ActParams = {
    goal: checkText(goal, "act's goal", '"sign in with the email and password"'),
    ...checkValues(opts.values),
    maxSteps: checkMaxSteps(opts.maxSteps),
    autoHeal: checkBoolean(opts.autoHeal, "autoHeal"),
  };
  checkGoalHoldsNoValue(params.goal, params.values);
  // From here on every sink of this process replaces the values' text (src/core/ground/secrets.ts).
  registerTypedValues(params.values);
  return { params, timeout: checkActTimeout(opts.timeout), signal: checkSignal(opts.signal) };
}

/** A goal that holds a value's text would send it to the model and store it: refused, naming the value. */
function checkGoalHoldsNoValue(goal: string, values: Readonly<Record<string, string>>): void {
  const names = Object.keys(values).filter((name) => values[name]);
  const scrubber = new LiteralScrubber(names.map((name) => ({ text: values[name]!, replacement: name })));
  const name = scrubber.firstIn(goal);
  if (name === undefined) return;
  throw new InputError(
    `act's goal holds the text of value \`${name}\`, which would reach the model and the store: ` +
      `say 'the ${name}' instead.`,
  );
}

/** act's `values`: named strings or `{ env }` references, each read and checked (also `controls`' `values`). */
export function checkValues(value: unknown): Pick<ActParams, "values" | "valueNames"> {
  if (value === undefined) return { values: {}, valueNames: [] };
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InputError('act\'s values must be an object of named strings, e.g. { email: "…", password: "…" }.');
  }
  const names = Object.keys(value);
  if (names.length > MAX_ACT_VALUES) {
    throw new InputError(`act takes at most ${MAX_ACT_VALUES} values; got ${names.length}.`);
  }
  const values: Record<string, string> = {};
  for (const name of names) {
    if (!VALUE_NAME.test(name)) {
      throw new InputError(
        `act's value name ${JSON.stringify(name.slice(0, 70))} must start with a letter and hold only letters, ` +
          `digits, "_" and "-" (at most 64), e.g. "email".`,
      );
    }
    const text = valueText(name, (value as Record<string, unknown>)[name]);
    if (text.length > MAX_VALUE_LENGTH) {
      throw new InputError(
        `act's value "${name}" is ${text.length} characters long; a value may be at most ${MAX_VALUE_LENGTH} ` +
          "characters (64 KiB).",
      );
    }
    values[name] = text;
  }
  return { values, valueNames: [...names].sort() };
}

/** A value's text: a string as given, or `{ env }` read from the environment. Errors never hold the text. */
function valueText(name: string, given: unknown): string {
  if (typeof given === "string") return given;
  if (given && typeof given === "object" && !Array.isArray(given)) {
    const { env, ...rest } = given as Record<string, unknown>;
    if (typeof env === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(env) && !Object.keys(rest).length) {
      const text = process.env[env];
      if (text === undefined) {
        throw new InputError(
          `act's value "${name}" is read from the environment variable ${env}, which is not set where tapshot ` +
            `runs: set ${env} there (on the Appium host for the plugin), or pass the value itself.`,
        );
      }
      return text;
    }
  }
  throw new InputError(
    `act's value "${name}" must be a string, or { env: "VARIABLE" } to read it from the environment; got ` +
      `${given === null ? "null" : Array.isArray(given) ? "an array" : typeof given === "object" ? "another object" : `a ${typeof given}`}.`,
  );
}

function checkMaxSteps(value: unknown): number {
  if (value === undefined) return 5;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > 20) {
    throw new InputError(`act's maxSteps must be a whole number from 1 to 20, e.g. 5; got ${String(value)}.`);
  }
  return value;
}

function checkActTimeout(value: unknown): number {
  if (value === undefined) return ACT_TIMEOUT.default;
  if (typeof value !== "number" || !(value >= 1 && value <= ACT_TIMEOUT.max)) {
    throw new InputError(
      `act's timeout must be a number of milliseconds from 1 to ${ACT_TIMEOUT.max}, e.g. 60000; got ${String(value)}.`,
    );
  }
  return value;
}
