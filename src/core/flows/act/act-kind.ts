/*
 * Acts as stored values (docs/api.md "ai.act", docs/storage.md): the steps the model decided are
 * replayed without it; when each happens, under which lock, and how records are written is the
 * lifecycle's (src/core/run/lifecycle.ts). This module wires the act's parts into a `StoredKind`:
 * - learn.ts: the decide loop and its policy (policy.ts);
 * - replay.ts: finding each step's control again and doing the step;
 * - sheet.ts: the record's image, the steps' crops on one sheet.
 */
import { NotStoredError, ReplayMismatchError, withArticle } from "../../ground/errors.js";
import { decode } from "../../pixels/image-decode.js";
import type { Call } from "../../run/call.js";
import { runStored, type Done, type NewValue, type NothingToStore, type StoredKind } from "../../run/lifecycle.js";
import { ActRecordSchema, ActValueSchema, type ActRecord } from "../../store/act-record.js";
import { actKey } from "../../store/keys.js";
import type { Stored } from "../../store/record-io.js";
import type { ActDone, ActParams } from "./act-params.js";
import { decideToGoal, newLoop, type Loop } from "./learn.js";
import { replaySteps, type ActMismatch } from "./replay.js";
import { buildSheet } from "./sheet.js";

export type { ActDone, ActParams } from "./act-params.js";

/** The store key of an act on the call's device. */
export function actKeyOf(call: Call, params: ActParams): string {
  return actKey(call.device.platform, call.deviceSlug, params.goal, params.valueNames);
}

/** Replay, learn or heal one act. */
export function runAct(call: Call, key: string, params: ActParams): Promise<Done<ActDone>> {
  return runStored(call, key, actKind(call, key, params));
}

function actKind(call: Call, key: string, params: ActParams): StoredKind<ActRecord, ActDone, ActMismatch> {
  const subject = `act "${params.goal}" on ${call.deviceSlug}`;
  const healing = (params.autoHeal && call.config.mode === "auto") || call.config.mode === "update";
  // The replay's loop: a heal continues it from the step that failed.
  let replayed: Loop | undefined;
  return {
    noun: "act",
    schema: ActRecordSchema,
    valueSchema: ActValueSchema,
    healing,

    notStored() {
      const d = call.device;
      return new NotStoredError(
        `No stored act for "${params.goal}"${namesText(params)} on ${call.deviceSlug} ` +
          `(${call.config.store.location}/${key}.json). mode is "replay", so the model is not asked. Learn it by ` +
          `running this flow once on ${withArticle(d.model)} (${d.platform} ${d.osVersion}) with mode "auto" and a ` +
          `model configured, then commit the new files under _ai_/.`,
      );
    },

    use(stored, until) {
      replayed = newLoop(call, params);
      return replaySteps(replayed, stored, until);
    },

    async useNow() {
      // Steps act on the device: a parallel run's act is healed from, never replayed half-way through another.
      return null;
    },

    async fail(stored, mismatch) {
      await call.report("screenshot", mismatch.screenshot, "screenshot");
      const hint = mismatch.rejected
        ? `${mismatch.rejected}. Fix the app; or delete ${key}.json to learn it again.`
        : `The screen may have changed: run with { autoHeal: true } or TAPSHOT_MODE=update to hand the rest of ` +
          `the goal to the model from this step and update ${key}.json, or reword the goal to learn it anew.`;
      const done = mismatch.stepIndex ? ` (the ${mismatch.stepIndex} steps before it were done)` : "";
      throw new ReplayMismatchError(`${subject}: ${mismatch.text}${done}. ${hint}`);
    },

    async healsTo() {
      return undefined;
    },

    async learn() {
      const loop = newLoop(call, params);
      await decideToGoal(loop);
      if (loop.steps.length === 0) return reachedAlready(call, loop);
      return newValue(call, loop, "learned");
    },

    async heal(_stored: Stored<ActRecord>, mismatch) {
      const loop = replayed ?? newLoop(call, params);
      loop.replayedAttempts = loop.attempts;
      call.note(`step ${mismatch.stepIndex + 1} not found: the model takes the goal from there`);
      await decideToGoal(loop);
      return newValue(call, loop, "healed");
    },
  };
}

/**
 * The goal held before any step (signed in already, on the home screen): the call succeeds with
 * nothing done and nothing stored, so a later run from the starting screen still learns the steps.
 */
function reachedAlready(call: Call, loop: Loop): NothingToStore<ActDone> {
  call.note("the goal was judged reached before any step: nothing done, nothing stored");
  return { nothingToStore: { outcome: "reached", result: { steps: [], history: loop.history } } };
}

async function newValue(call: Call, loop: Loop, outcome: "learned" | "healed"): Promise<NewValue<ActRecord, ActDone>> {
  if (loop.steps.length === 0) {
    // A heal from the first step that the model found already reached: the stored steps stay as they are.
    throw new ReplayMismatchError(
      `act "${loop.params.goal}" on ${call.deviceSlug}: the goal was judged reached before any step, so there is ` +
        `nothing to store. Run it on the screen the goal starts from.`,
    );
  }
  const { steps, image } = await buildSheet(loop.steps);
  const { width, height } = await decode(image);
  const fields = {
    kind: "act" as const,
    goal: loop.params.goal,
    valueNames: loop.params.valueNames,
    device: call.device,
    steps,
    sheet: { width, height },
    model: [...loop.models].join(", ") || "none",
    reason: loop.reason,
  };
  const done: Done<ActDone> = {
    outcome,
    result: { steps: loop.steps.map((s) => s.summary), history: loop.history },
    detail: `${loop.steps.length} steps`,
  };
  return { fields, image, done };
}

function namesText(params: ActParams): string {
  return params.valueNames.length ? ` with values ${params.valueNames.join(", ")}` : "";
}
