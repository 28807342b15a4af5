/*
 * The decide loop of `ai.act` (docs/api.md "ai.act"): observe, ask `decide`, apply the policy
 * (./policy.ts), do the action, and ask `complete` after each step and when the model says `done`;
 * until the goal is judged reached, the steps run out, or the call's deadline or budget ends it.
 */
import { redact } from "../../ground/secrets.js";
import { identityKey, type ObservedControl } from "../../device/controls.js";
import { DeviceError, ElementNotFoundError, TimeoutError, VerifyFailedError } from "../../ground/errors.js";
import { MAX_HISTORY_LINES, type ActionChoice } from "../../model/contract.js";
import { cutRegion } from "../../pixels/crop.js";
import type { RawImage } from "../../pixels/image-decode.js";
import { toAiImage, type Call } from "../../run/call.js";
import type { ActStep } from "../../store/act-record.js";
import { storedThumb } from "../shared/stored-screen.js";
import type { ActAttempt, ActParams, ActStepSummary } from "./act-params.js";
import { actOn, performStep } from "./execute.js";
import { observeNow, observeScreen, withFilledFieldsPainted, type Seen } from "./observe.js";
import { actionKey, pickChoice } from "./policy.js";

/** A goal this likely reached completes the call. */
export const COMPLETE_AT = 0.9;
/** While a busy control shows, a completion below this waits and looks again. */
const LOADING_BELOW = 0.8;
/** How long to wait before looking again at a busy screen or after a `wait`. */
const WAIT_MS = 500;
/** A busy control that stays this long is decided on anyway (a permanent spinner). */
const MAX_BUSY_WAIT_MS = 10_000;

/** A step executed in this call, with the crop of its control taken before it acted. */
export interface DoneStep {
  step: Omit<ActStep, "control"> & { control?: Omit<NonNullable<ActStep["control"]>, "sheetY"> };
  crop: RawImage | undefined;
  summary: ActStepSummary;
}

/** The state of one call's loop; a heal starts it with the replayed steps. */
export interface Loop {
  call: Call;
  params: ActParams;
  steps: DoneStep[];
  history: ActAttempt[];
  /** Identity key of each field filled in this call -> the value name. */
  filled: Map<string, string>;
  executed: Set<string>;
  /** Attempts so far, replayed steps included (history numbers its entries by it). */
  attempts: number;
  /** Attempts a replay made before a heal handed the goal to the model: maxSteps counts the model's alone. */
  replayedAttempts: number;
  models: Set<string>;
  reason: string;
}

/** A fresh loop. */
export function newLoop(call: Call, params: ActParams): Loop {
  return {
    call,
    params,
    steps: [],
    history: [],
    filled: new Map(),
    executed: new Set(),
    attempts: 0,
    replayedAttempts: 0,
    models: new Set(),
    reason: "",
  };
}

/** What the observation compares fields with in this call. */
export function observeContext(loop: Loop) {
  return { platform: loop.call.device.platform, values: loop.params.values, filled: loop.filled };
}
const context = observeContext;

/** Run the loop until the goal is judged reached; throws when it is not within maxSteps. */
export async function decideToGoal(loop: Loop): Promise<void> {
  const { call, params } = loop;
  let seen: Seen | undefined;
  let busySince: number | undefined;
  for (;;) {
    call.deadline.throwIfAborted();
    seen ??= await observeScreen(call, context(loop));
    const busy = seen.observation.busy;
    if (busy && Date.now() - (busySince ??= Date.now()) < MAX_BUSY_WAIT_MS) {
      attempt(loop, { outcome: "waited", reason: `the screen shows a busy control (${busy})` });
      seen = await waitAndLook(loop);
      continue;
    }
    busySince = undefined;
    if (loop.attempts - loop.replayedAttempts >= params.maxSteps) throw notReached(loop);
    const answer = await call.ask({
      kind: "decide",
      goal: params.goal,
      screen: await toAiImage(await withFilledFieldsPainted(seen, seen.observation)),
      controls: seen.observation.controls.map((c) => c.control),
      valueNames: params.valueNames,
      history: historyLines(loop),
    });
    loop.models.add(answer.model);
    const picked = pickChoice(answer.choices, seen, {
      valueNames: params.valueNames,
      filledInto: filledInto(loop),
      executed: loop.executed,
    });
    if ("refused" in picked) {
      loop.attempts++;
      attempt(loop, { choice: picked.choice, outcome: "refused", reason: picked.refused });
      seen = undefined;
      continue;
    }
    const next = await stepOnce(loop, seen, picked);
    if (next === "completed") return;
    seen = next;
  }
}

/** One chosen action (or `wait`, `stuck`, `done`); the next look, or `completed`. */
async function stepOnce(
  loop: Loop,
  seen: Seen,
  { choice, control }: { choice: ActionChoice; control: ObservedControl | undefined },
): Promise<Seen | "completed" | undefined> {
  if (choice.action === "wait") {
    attempt(loop, { choice, outcome: "waited", reason: "the model chose to wait" });
    return waitAndLook(loop);
  }
  if (choice.action === "stuck") {
    attempt(loop, { choice, outcome: "refused", reason: "the model is stuck" });
    throw new ElementNotFoundError(
      `act "${loop.params.goal}" on ${loop.call.deviceSlug}: the model found no way towards the goal on this screen ` +
        `(${loop.steps.length} steps done). Check that the screen can reach it, or word the goal more precisely.`,
    );
  }
  if (choice.action === "done") {
    const judged = await judgeComplete(loop, seen);
    if (judged === "completed") return judged;
    loop.attempts++;
    attempt(loop, { choice, outcome: "refused", reason: `"done", but the goal was not confirmed on this screen` });
    return judged;
  }
  loop.attempts++;
  const done = await doStep(loop, seen, choice, control);
  if (!done) return undefined;
  return judgeComplete(loop, await observeScreen(loop.call, context(loop)));
}

/** Do a chosen action; `false` when it failed (counted, kept in the history). */
async function doStep(loop: Loop, seen: Seen, choice: ActionChoice, control: ObservedControl | undefined) {
  const { call } = loop;
  const on = control && actOn(control);
  const step = stepOf(choice);
  try {
    const what = await performStep(call, step, on, {
      values: loop.params.values,
      findOption: (label) => findOption(loop, label),
    });
    attempt(loop, { choice, outcome: "done", reason: what });
  } catch (error) {
    // The call's own deadline or abort ends everything; a device's failure or a slow action is one failed step.
    if (call.deadline.signal.aborted) throw error;
    if (!(error instanceof DeviceError || error instanceof TimeoutError || error instanceof ElementNotFoundError)) {
      throw error;
    }
    // Scrubbed whole before it is cut to a line: a driver may echo the typed text anywhere in it.
    attempt(loop, { choice, outcome: "failed", reason: redact(error.message).split("\n")[0]! });
    return false;
  }
  loop.executed.add(`${seen.signature} ${actionKey(choice, control)}`);
  if (step.action === "fill" && control) loop.filled.set(identityKey(control.identity), step.value!);
  if (step.action === "clear" && control) loop.filled.delete(identityKey(control.identity));
  loop.steps.push(doneStep(loop, seen, step, control));
  return true;
}

/** The stored form of a chosen action. */
function stepOf(choice: ActionChoice): DoneStep["step"] {
  const { action, value, checked, option, key, direction } = choice;
  return {
    action: action as ActStep["action"],
    ...(action === "fill" ? { value } : {}),
    ...(action === "setChecked" ? { checked } : {}),
    ...(action === "select" ? { option } : {}),
    ...(action === "press" ? { key } : {}),
    ...(action === "scroll" ? { direction } : {}),
  };
}

function doneStep(loop: Loop, seen: Seen, step: DoneStep["step"], control: ObservedControl | undefined): DoneStep {
  const summary: ActStepSummary = {
    action: step.action as ActStepSummary["action"],
    control: control?.control.label ?? "",
    ...(step.value !== undefined ? { value: step.value } : {}),
    ...(step.option !== undefined ? { option: step.option } : {}),
    ...(step.key !== undefined ? { key: step.key } : {}),
    ...(step.checked !== undefined ? { checked: step.checked } : {}),
    ...(step.direction !== undefined ? { direction: step.direction } : {}),
  };
  if (!control) return { step, crop: undefined, summary };
  const { identity, bounds } = control;
  const { label, role } = control.control;
  const point = actOn(control).point;
  const stored = { ...step, screenThumb: storedThumb(seen.raw, loop.call.device) };
  const crop = cutRegion(seen.raw, bounds);
  return { step: { ...stored, control: { identity, label, role, point, crop: bounds } }, crop, summary };
}

/**
 * Ask whether the goal is reached on `seen`: `completed` at {@link COMPLETE_AT}; while a busy control
 * shows and the answer is below {@link LOADING_BELOW}, wait and ask again; else the look, for the next decision.
 */
async function judgeComplete(loop: Loop, seen: Seen): Promise<Seen | "completed"> {
  const { call, params } = loop;
  for (;;) {
    const answer = await call.ask({
      kind: "complete",
      goal: params.goal,
      screen: await toAiImage(await withFilledFieldsPainted(seen, seen.observation)),
      controls: seen.observation.controls.map((c) => c.control),
      history: historyLines(loop),
    });
    loop.models.add(answer.model);
    const p = answer.probability;
    if (p >= COMPLETE_AT) {
      loop.reason = answer.reason;
      attempt(loop, { probability: p, outcome: "completed", reason: `the goal is reached: ${answer.reason}` });
      return "completed";
    }
    const busy = seen.observation.busy;
    if (!(busy && p < LOADING_BELOW)) return seen;
    attempt(loop, { probability: p, outcome: "waited", reason: `not reached yet while loading (${busy})` });
    seen = await waitAndLook(loop);
  }
}

async function waitAndLook(loop: Loop): Promise<Seen> {
  await loop.call.deadline.sleep(WAIT_MS);
  return observeScreen(loop.call, context(loop));
}

/** The option labelled `label` on the screen now (an open select's). */
export async function findOption(loop: Loop, label: string): Promise<ObservedControl | undefined> {
  const observation = await observeNow(loop.call, context(loop));
  // A list's options, or a dialog's radio buttons (a web select's overlay, an Android single-choice dialog).
  const option = (role: string) =>
    observation.controls.find((c) => c.control.role === role && c.control.label === label);
  return option("option") ?? option("radio");
}

/** Value name -> identity key of the field it was filled into. */
function filledInto(loop: Loop): Map<string, string> {
  return new Map([...loop.filled].map(([field, name]) => [name, field]));
}

/** Keep one attempt, numbered by the attempts counted so far. */
export function attempt(loop: Loop, entry: Omit<ActAttempt, "step">): void {
  const probability = entry.probability ?? entry.choice?.probability;
  loop.history.push({
    step: Math.max(1, loop.attempts),
    ...entry,
    reason: redact(entry.reason),
    ...(probability !== undefined ? { probability } : {}),
  });
}

/** The history as the model reads it: one line per attempt, value names only, the last {@link MAX_HISTORY_LINES}. */
function historyLines(loop: Loop): string[] {
  return loop.history
    .map((h) => {
      const what = h.choice ? `${h.choice.action}${h.choice.control ? ` ${h.choice.control}` : ""}: ` : "";
      return `step ${h.step}: ${h.outcome}: ${what}${h.reason}`.slice(0, 500);
    })
    .slice(-MAX_HISTORY_LINES);
}

function notReached(loop: Loop): VerifyFailedError {
  const last = loop.history.filter((h) => h.outcome !== "waited").slice(-3);
  return new VerifyFailedError(
    `act "${loop.params.goal}" on ${loop.call.deviceSlug}: the goal was not confirmed within maxSteps ` +
      `${loop.params.maxSteps} (${loop.steps.length} actions done, ${loop.attempts - loop.steps.length} failed or refused` +
      `${loop.replayedAttempts ? `, ${loop.replayedAttempts} of them replayed before the heal` : ""}). ` +
      `Last attempts: ${last.map((h) => `${h.outcome}: ${h.reason}`).join("; ") || "none"}. ` +
      `Raise maxSteps, split the goal, or word it more precisely.`,
  );
}
