/**
 * Accepting and reverting one stored value (docs/reviewing.md), through the `Store` API under
 * the key's lock, so a run learning or healing it finishes first and no reader sees a torn record.
 * `tapshot accept`/`revert` and the review page both go through here.
 */
import { parseScopedKey } from "../../core/store/keys.js";
import { StoreError } from "../../core/ground/errors.js";
import { BaselineRecordSchema, BaselineValueSchema, type BaselineRecord } from "../../core/store/baseline-record.js";
import { deleteRecord, readRecord, restorePrevious, rewriteRecord, sha256 } from "../../core/store/record-io.js";
import { FORMAT } from "../../core/store/record-format.js";
import { reviewOf } from "../../core/store/review-state.js";
import { TapRecordSchema, TapValueSchema, type TapRecord } from "../../core/store/tap-record.js";
import { JudgmentRecordSchema } from "../../core/store/judgment-record.js";
import { ActRecordSchema, ActValueSchema, type ActRecord } from "../../core/store/act-record.js";
import { rejectionOf } from "../../core/store/rejections.js";
import type { Store } from "../../core/store/store.js";

/** How long a review waits for a run that is learning or healing the value. */
export const LOCK_WAIT_MS = 10_000;

/** What a review did to one value. */
export interface ReviewChange {
  key: string;
  /** `accepted`; `reverted` (a heal: the previous value is back); `deleted` (a new value); `unchanged`. */
  action: "accepted" | "reverted" | "deleted" | "unchanged";
  /** Store keys written or removed (with extension), for the user to commit. */
  files: string[];
  /** Why nothing changed, when nothing did. */
  why?: string;
}

/** Who reviews, and when. */
export interface ReviewBy {
  name: string | null;
  at: string;
}

/** The key's lock, held while `work` runs. */
export async function withKeyLock<T>(store: Store, key: string, work: () => Promise<T>): Promise<T> {
  const release = await store.lock(key, { deadline: Date.now() + LOCK_WAIT_MS });
  try {
    return await work();
  } finally {
    await release();
  }
}

async function readPending(store: Store, key: string, seen: string | undefined) {
  const { inner } = parseScopedKey(key);
  const schema =
    inner.startsWith("taps/") || inner.startsWith("locators/")
      ? TapRecordSchema
      : inner.startsWith("judgments/")
        ? JudgmentRecordSchema
        : inner.startsWith("acts/")
          ? ActRecordSchema
          : BaselineRecordSchema;
  const stored = await readRecord(
    store,
    key,
    schema as typeof TapRecordSchema | typeof BaselineRecordSchema | typeof ActRecordSchema,
  );
  if (!stored) return { why: "it is no longer stored" };
  if (reviewOf(stored.record).state !== "pending") return { why: "it is not pending review" };
  // A run healed it again after it was shown: what was reviewed is not what is stored.
  if (seen && stored.record.imageSha256 !== seen) return { why: "it changed since it was shown; review it again" };
  return { stored: stored as { record: TapRecord | BaselineRecord | ActRecord; image: Buffer } };
}

/** Mark a pending value accepted. `seen` is the image SHA-256 the reviewer looked at. */
export async function acceptValue(store: Store, key: string, by: ReviewBy, seen?: string): Promise<ReviewChange> {
  return withKeyLock(store, key, async () => {
    const { stored, why } = await readPending(store, key, seen);
    if (!stored) return { key, action: "unchanged", files: [], why };
    const record = { ...stored.record, format: FORMAT, review: { state: "accepted", by: by.name, at: by.at } };
    return { key, action: "accepted", files: await rewriteRecord(store, key, record) };
  });
}

/**
 * Revert a pending value: a heal gets its previous value back and remembers the rejected image
 * (src/core/store/rejections.ts), so the same heal is refused later; a new value is deleted, so
 * the next run learns it again. A value that replaced another screen's is new on this screen.
 */
export async function revertValue(store: Store, key: string, by: ReviewBy, seen?: string): Promise<ReviewChange> {
  return withKeyLock(store, key, async () => {
    const { stored, why } = await readPending(store, key, seen);
    if (!stored) return { key, action: "unchanged", files: [], why };
    const { record } = stored;
    // A judgment is never healed: reverting one deletes it, so it is never used again (the next run asks anew).
    if (!isHeal(record) || (record.kind as string) === "judgment") {
      return { key, action: "deleted", files: await deleteRecord(store, key) };
    }

    const previousImage = await store.read(`${key}.previous.png`);
    if (!previousImage || sha256(previousImage) !== record.previous!.imageSha256) {
      throw new StoreError(
        `${store.location}/${key}.previous.png ${previousImage ? "does not match its record" : "is missing"}, so ` +
          `the value before the heal cannot be restored. Restore the files from git, or accept the heal.`,
      );
    }
    const { previous, ...current } = record;
    // The value is the previous one alone: an optional field only the heal set (a tap's element, a
    // baseline's prompt masks) is not kept. A baseline's tree and named changes are of the healed screen.
    const valueFields = Object.keys(
      "crop" in record
        ? TapValueSchema.shape
        : record.kind === "act"
          ? ActValueSchema.shape
          : BaselineValueSchema.shape,
    );
    const kept = Object.entries(current).filter(([f]) => !valueFields.includes(f) && f !== "tree" && f !== "changed");
    const restored = {
      ...Object.fromEntries(kept),
      ...previous,
      format: FORMAT,
      rejected: [...(record.rejected ?? []), await rejectionOf(record, stored.image, by)],
    };
    const schema = "crop" in record ? TapRecordSchema : record.kind === "act" ? ActRecordSchema : BaselineRecordSchema;
    return {
      key,
      action: "reverted",
      files: await restorePrevious(store, key, (schema as typeof TapRecordSchema).parse(restored), previousImage),
    };
  });
}

/**
 * Finish a revert that was killed after it wrote the record's JSON (record-io.ts restorePrevious):
 * the record's image is put in place from `.previous.png` when it is not yet, then that file is
 * removed. Nothing is done when the files do not say so (an image that matches neither is left for
 * a person, as `tapshot list` shows it).
 */
export async function finishRevert(store: Store, key: string): Promise<ReviewChange> {
  return withKeyLock(store, key, async () => {
    const json = await store.read(`${key}.json`);
    const record = json ? (JSON.parse(json.toString("utf8")) as { previous?: unknown; imageSha256?: string }) : null;
    const previousImage = await store.read(`${key}.previous.png`);
    if (!record || record.previous !== undefined || !previousImage) {
      return { key, action: "unchanged", files: [], why: "no unfinished revert" };
    }
    const image = await store.read(`${key}.png`);
    const files: string[] = [];
    if (!image || sha256(image) !== record.imageSha256) {
      if (sha256(previousImage) !== record.imageSha256) {
        return { key, action: "unchanged", files: [], why: "its images match neither its record nor each other" };
      }
      await store.write(`${key}.png`, previousImage);
      files.push(`${key}.png`);
    }
    await store.remove(`${key}.previous.png`);
    return { key, action: "reverted", files: [...files, `${key}.previous.png`], why: "a revert that was interrupted" };
  });
}

/** A heal keeps the value's creation time; a learn (even one replacing another screen's value) sets it anew. */
export function isHeal(record: { previous?: unknown; createdAt: string; storedAt: string }): boolean {
  return record.previous !== undefined && record.createdAt !== record.storedAt;
}
