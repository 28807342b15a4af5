/*
 * What people decided about stored values (docs/reviewing.md): a value's review state, and the
 * heals a person reverted, kept so the same heal is refused without a model call.
 */
import { z } from "zod";
import { BoxSchema } from "../model/contract.js";
import { IsoDate } from "./record-format.js";

/**
 * Whether a person has looked at a value (docs/reviewing.md): new values and heals are
 * `pending` until accepted. Replays use pending values all the same.
 */
export const ReviewSchema = z.discriminatedUnion("state", [
  z.object({ state: z.literal("pending") }),
  z.object({
    state: z.literal("accepted"),
    /** Who accepted it (`Name <email>` from git config, `--by` or `$TAPSHOT_REVIEWER`), when known. */
    by: z.string().nullable(),
    at: IsoDate.nullable(),
  }),
]);
/** The review state of a stored value. */
export type Review = z.infer<typeof ReviewSchema>;

/** The review state of a value just learned or healed. */
export const PENDING: Review = { state: "pending" };

/** A record's review state; a record stored before format 2 has none and was accepted by being committed. */
export function reviewOf(record: { review?: Review | undefined }): Review {
  return record.review ?? { state: "accepted", by: null, at: null };
}

/**
 * A heal a person reverted: what identifies its image, so the same heal is refused without a
 * model call (src/core/store/rejections.ts computes the fingerprint).
 */
export const RejectionSchema = z.object({
  /** SHA-256 over the rejected image's pixels (a baseline's outside its system bars). */
  fingerprint: z.string(),
  /** A tap's rejected crop rectangle, where a later screen is looked at. */
  crop: BoxSchema.optional(),
  /** What the model had said when it healed. */
  model: z.string(),
  reason: z.string(),
  rejectedAt: IsoDate,
  rejectedBy: z.string().nullable(),
});
/** A reverted heal, kept in the record's `rejected` list. */
export type Rejection = z.infer<typeof RejectionSchema>;
