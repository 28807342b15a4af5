/*
 * The schema of a stored judgment: a statement, the evidence it was judged on and the model's
 * probability that it held.
 */
import { z } from "zod";
import { BoxSchema } from "../model/contract.js";
import { DeviceDescriptionSchema } from "../device/description.js";
import { FormatSchema, IsoDate } from "./record-format.js";
import { RejectionSchema, ReviewSchema } from "./review-state.js";

/** The fields of a judgment (a judgment is never healed: other evidence is another judgment). */
export const JudgmentValueSchema = z.object({
  /** How likely the statement held for the evidence, 0-1, as the model answered. */
  probability: z.number().min(0).max(1),
  model: z.string(),
  reason: z.string(),
  imageSha256: z.string(),
  storedAt: IsoDate,
  review: ReviewSchema.optional(),
});

export const JudgmentRecordSchema = z.object({
  format: FormatSchema,
  kind: z.literal("judgment"),
  /** The statement judged, and the test's `context` sent with it (null when none). */
  statement: z.string(),
  context: z.string().nullable(),
  /** SHA-256 (hex) of the evidence as hashed: text and tree with `ignore` masked, and the image's pixels. */
  evidenceHash: z.string().regex(/^[0-9a-f]{64}$/),
  /** The text and tree the model read, typed text removed (docs/api.md, "Semantic assertions"). */
  evidence: z.string(),
  /** Whether the model was sent the image too. */
  imageSent: z.boolean(),
  /** The rectangle of the screen the stored image shows, in screenshot pixels (the element, or the screen). */
  shot: BoxSchema,
  device: DeviceDescriptionSchema,
  ...JudgmentValueSchema.shape,
  createdAt: IsoDate,
  previous: JudgmentValueSchema.optional(),
  rejected: z.array(RejectionSchema).optional(),
});
/** A stored judgment: `_ai_/judgments/<platform>/<device>/<statement>-<hash>-<evidence>.json`. */
export type JudgmentRecord = z.infer<typeof JudgmentRecordSchema>;
