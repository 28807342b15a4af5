/*
 * The lifecycle of a stored value (docs/design.md section 4), one implementation for taps and
 * baselines. A {@link StoredKind} says what is specific to its kind: how a value is used on
 * the screen, learned and healed; this module decides when each happens, under which lock,
 * and how records are written.
 *
 * - Use: a record made on this screen size and orientation is used; another is noted, not used.
 * - Learn: with nothing usable, take the key's lock and read again: a usable record that appeared
 *   was stored by a parallel learner and is used; otherwise learn and create the record (never
 *   overwriting one), replacing one made on another screen while keeping it as `previous`.
 * - Heal: a mismatch with autoHeal in mode auto, or any mismatch in mode update, takes the key's lock and reads again. A record
 *   whose fingerprint changed was healed by a parallel run: it is used when the screen matches
 *   it now, else healed from. A heal keeps the value it replaces as `previous`.
 * - Review: every learned or healed value is stored `pending` (docs/reviewing.md). A heal whose
 *   image a person rejected (`tapshot revert`) is refused before the model is asked, and fails
 *   as the mismatch it is, naming the rejection.
 */
import { describeZodError } from "../ground/zod-errors.js";
import { failureReserve } from "../ground/deadline.js";
import type { z } from "zod";
import type { Call } from "./call.js";
import type { MismatchEnd } from "./stable-screen.js";
import { untilAborted } from "../ground/deadline.js";
import { screenOf, sameScreen } from "../device/description.js";
import { HEALED_MESSAGE, UPDATED_MESSAGE, type Outcome } from "../ground/log.js";
import {
  createRecord,
  readRecord,
  replaceRecord,
  sha256,
  type Stored,
  type StoredRecordBase,
} from "../store/record-io.js";
import { FORMAT } from "../store/record-format.js";
import { PENDING, type Rejection } from "../store/review-state.js";
import { describeRejection } from "../store/rejections.js";
import { keyOnDevice } from "../store/keys.js";

/** What a flow returns to the engine: the caller's result, the log entry's outcome and detail. */
export interface Done<R> {
  outcome: Exclude<Outcome, "failed">;
  result: R;
  detail?: string;
}

/** A new value: the record fields it sets, its image, and what the call returns. */
export interface NewValue<Rec, R> {
  fields: Omit<Rec, "format" | "imageSha256" | "storedAt" | "createdAt" | "previous" | "review" | "rejected">;
  image: Buffer;
  done: Done<R>;
}

/** A learn that found nothing to store (an act whose goal held before any step): the call ends with `done`. */
export interface NothingToStore<R> {
  nothingToStore: Done<R>;
}

/** Why a stored value did not match the screen. */
export interface Mismatch {
  /** For messages: what differed. */
  text: string;
  /** Whether a heal can help (not when the screen changed size mid-call). */
  healable: boolean;
  /** How the poll ended: the screen `settled` without matching, or was still changing at the `deadline`. */
  ended?: MismatchEnd;
  /** Set when the heal was refused because a person rejected it: the kind's failure says so. */
  rejected?: string;
}

/** The outcome of using a stored value: done, or a mismatch. */
export type Use<R, M extends Mismatch> = { done: Done<R> } | { mismatch: M };

/** What is specific to one kind of stored value, bound to one call. */
export interface StoredKind<Rec extends StoredRecordBase, R, M extends Mismatch> {
  /** `tap` or `baseline`, for notes. */
  noun: string;
  /** The record's schema, checked on every read. */
  schema: z.ZodType<Rec>;
  /** The fields of a value, kept as `previous` when it is replaced (parsing strips the rest). */
  valueSchema: z.ZodType<unknown>;
  /** Whether a mismatch may be healed (autoHeal in mode auto). */
  healing: boolean;
  /** The error when nothing usable is stored and mode is replay. */
  notStored(otherScreen: Stored<Rec> | null): Error | Promise<Error>;
  /** Watch the screen until it matches `stored` (then act on it) or `until` passes. */
  use(stored: Stored<Rec>, until: number): Promise<Use<R, M>>;
  /** Look once: a parallel run's value, used when the screen matches it now. */
  useNow(stored: Stored<Rec>): Promise<Done<R> | null>;
  /** Fail on a mismatch that is not healed, reporting what differed. */
  fail(stored: Stored<Rec>, mismatch: M): Promise<never>;
  /** Learn a new value (the model is asked). */
  learn(otherScreen: Stored<Rec> | null): Promise<NewValue<Rec, R> | NothingToStore<R>>;
  /**
   * The fingerprint (src/core/store/rejections.ts) of what a heal would store now, as far as the
   * screen of `mismatch` shows it without a model; `undefined` when it cannot be told.
   */
  healsTo(mismatch: M, rejection: Rejection): Promise<string | undefined>;
  /** Heal `stored` after `mismatch`: a new value, or `done` when no change is needed after all. */
  heal(stored: Stored<Rec>, mismatch: M): Promise<NewValue<Rec, R> | { done: Done<R> }>;
}

/** One run of the lifecycle: the call, the record's key and its kind. */
interface KeyRun<Rec extends StoredRecordBase, R, M extends Mismatch> {
  call: Call;
  key: string;
  kind: StoredKind<Rec, R, M>;
}

/** Run the lifecycle for `key`: use, learn or heal, and store what changed. */
export async function runStored<Rec extends StoredRecordBase, R, M extends Mismatch>(
  call: Call,
  key: string,
  kind: StoredKind<Rec, R, M>,
): Promise<Done<R>> {
  const run: KeyRun<Rec, R, M> = { call, key, kind };
  const first = await readUsable(call, key, kind, { noteOtherScreen: true });
  if (first.usable) return useOrHeal(run, first.usable, first.from);
  if (call.config.mode === "replay") throw await kind.notStored(first.otherScreen);

  // One learner per key: parallel runs of this device wait here, then use what it stored.
  const learned = await withLock(call, key, async () => {
    const again = await readUsable(call, key, kind, { noteOtherScreen: false });
    if (again.usable) {
      call.note(`${kind.noun} stored by a parallel run`);
      return { stored: again.usable, done: undefined };
    }
    return { stored: undefined, done: await learnAndStore(run, again.otherScreen) };
  });
  if (learned.stored) return useOrHeal(run, learned.stored, key);
  return learned.done;
}

/**
 * {@link readRecord} within the call's deadline: the store gets the call's signal, and a store that
 * ignores it (a stalled bucket, a runner's own store) cannot hold the call past its deadline.
 */
function readStored<Rec extends StoredRecordBase>(
  call: Call,
  key: string,
  schema: StoredKind<Rec, unknown, Mismatch>["schema"],
): Promise<Stored<Rec> | null> {
  const { signal } = call.deadline;
  return untilAborted(readRecord(call.config.store, key, schema, { signal }), signal);
}

/**
 * The stored record as `usable` when it fits this screen, else as `otherScreen`; `from` is the
 * key it was read from. With nothing under `key`, the keys older versions gave this device are
 * read (an alias: a learn or heal then stores under `key`, the old files stay as they are).
 */
async function readUsable<Rec extends StoredRecordBase>(
  call: Call,
  key: string,
  kind: Pick<StoredKind<Rec, unknown, Mismatch>, "schema" | "noun">,
  { noteOtherScreen }: { noteOtherScreen: boolean },
): Promise<{ usable: Stored<Rec> | null; otherScreen: Stored<Rec> | null; from: string }> {
  let from = key;
  let stored = await readStored(call, key, kind.schema);
  for (const device of stored ? [] : call.formerDeviceSlugs) {
    from = keyOnDevice(key, device);
    stored = await readStored(call, from, kind.schema);
    if (stored) {
      call.note(`${kind.noun} read from ${from}.json, the key older tapshot versions gave this device`);
      break;
    }
  }
  if (!stored) return { usable: null, otherScreen: null, from: key };
  if (sameScreen(stored.record.device, call.device)) return { usable: stored, otherScreen: null, from };
  if (noteOtherScreen) {
    call.note(
      `stored ${kind.noun} was made on a ${screenOf(stored.record.device)} screen, ` +
        `this one is ${screenOf(call.device)}: not used`,
    );
  }
  return { usable: null, otherScreen: stored, from };
}

async function learnAndStore<Rec extends StoredRecordBase, R, M extends Mismatch>(
  { call, key, kind }: KeyRun<Rec, R, M>,
  otherScreen: Stored<Rec> | null,
): Promise<Done<R>> {
  const value = await kind.learn(otherScreen);
  // A value learned after the deadline or an abort is not stored (docs/guarantees.md).
  call.deadline.throwIfAborted();
  if ("nothingToStore" in value) return value.nothingToStore;
  const now = new Date().toISOString();
  const record = complete(kind, {
    format: FORMAT,
    ...value.fields,
    imageSha256: sha256(value.image),
    storedAt: now,
    createdAt: now,
    review: PENDING,
    ...(otherScreen ? { previous: kind.valueSchema.parse(otherScreen.record) } : {}),
  });
  const store = call.config.store;
  if (otherScreen) {
    await replaceRecord(store, key, record, value.image, otherScreen.image);
    call.note(`replaced the ${screenOf(otherScreen.record.device)} ${kind.noun}, keeping it as previous`);
  } else if (!(await createRecord(store, key, record, value.image))) {
    // Only possible when another run held a lock that went stale: its value stays, this one is not stored.
    call.note(`another run stored this ${kind.noun} at the same time; its value was kept, this one was not stored`);
  }
  return value.done;
}

/** Use a usable record read from key `from`; heal a mismatch when the kind may. */
async function useOrHeal<Rec extends StoredRecordBase, R, M extends Mismatch>(
  run: KeyRun<Rec, R, M>,
  stored: Stored<Rec>,
  from: string,
): Promise<Done<R>> {
  const { call, key, kind } = run;
  const { deadline } = call;
  const until = kind.healing ? deadline.after("matchBeforeHeal") : deadline.end - failureReserve(deadline.remaining());
  const used = await kind.use(stored, until);
  if ("done" in used) return usedValue(call, from, used.done);
  if (!kind.healing || !used.mismatch.healable) return kind.fail(stored, used.mismatch);
  return withLock(call, key, () => healAndStore(run, stored, used.mismatch));
}

/** A value was used: its last-use time moves (see `tapshot prune`). */
async function usedValue<R>(call: Call, key: string, done: Done<R>): Promise<Done<R>> {
  await call.config.store.touch(`${key}.json`);
  return done;
}

/** Heal with the key's lock held. */
async function healAndStore<Rec extends StoredRecordBase, R, M extends Mismatch>(
  { call, key, kind }: KeyRun<Rec, R, M>,
  stored: Stored<Rec>,
  mismatch: M,
): Promise<Done<R>> {
  const current = await readStored(call, key, kind.schema);
  if (current && fingerprint(current.record) !== fingerprint(stored.record)) {
    // A parallel run healed it while this one waited for the lock.
    const done = await kind.useNow(current);
    if (done) {
      call.note(`healed by a parallel run`);
      return usedValue(call, key, done);
    }
    call.note(`a parallel run changed the ${kind.noun}; healing from its value`);
    stored = current;
  }
  const rejection = await rejectedHeal(kind, stored, mismatch);
  if (rejection) return kind.fail(stored, { ...mismatch, rejected: describeRejection(rejection) });
  const healed = await kind.heal(stored, mismatch);
  if (!("fields" in healed)) return healed.done;
  call.deadline.throwIfAborted();

  // Built from the heal's fields alone: an optional field of the replaced value (a tap's accessibility
  // element, say) must not survive a heal that did not set it. Only the record's history carries over.
  const { createdAt, rejected } = stored.record;
  const record = complete(kind, {
    format: FORMAT,
    ...healed.fields,
    imageSha256: sha256(healed.image),
    storedAt: new Date().toISOString(),
    createdAt,
    previous: kind.valueSchema.parse(stored.record),
    review: PENDING,
    ...(rejected ? { rejected } : {}),
  });
  await replaceRecord(call.config.store, key, record, healed.image, stored.image);
  const { done } = healed;
  const message = done.outcome === "updated" ? UPDATED_MESSAGE : HEALED_MESSAGE;
  return { ...done, detail: [`${message}: ${key}.json`, done.detail].filter(Boolean).join("; ") };
}

/** The rejection a heal from `mismatch` would repeat, if any; no model is asked. */
async function rejectedHeal<Rec extends StoredRecordBase, M extends Mismatch>(
  kind: StoredKind<Rec, unknown, M>,
  stored: Stored<Rec>,
  mismatch: M,
): Promise<Rejection | undefined> {
  for (const rejection of stored.record.rejected ?? []) {
    if ((await kind.healsTo(mismatch, rejection)) === rejection.fingerprint) return rejection;
  }
  return undefined;
}

/** A record about to be written, checked against its kind's schema first: nothing incomplete is ever stored. */
function complete<Rec extends StoredRecordBase>(kind: StoredKind<Rec, unknown, Mismatch>, record: object): Rec {
  const checked = kind.schema.safeParse(record);
  if (checked.success) return checked.data;
  throw new Error(
    `tapshot bug: the ${kind.noun} record it was about to store is incomplete (${describeZodError(checked.error)}); ` +
      `nothing was written. Please report it with this message.`,
  );
}

/** One rule for "another run changed this record": its image or its store time differ. */
function fingerprint(record: StoredRecordBase): string {
  return `${record.storedAt} ${record.imageSha256}`;
}

async function withLock<T>(call: Call, key: string, work: () => Promise<T>): Promise<T> {
  const release = await call.config.store.lock(key, { deadline: call.deadline.end, signal: call.deadline.signal });
  try {
    return await work();
  } finally {
    await release();
  }
}
