/*
 * The schema of a stored baseline: the judged screen (or whole page), its masks, and the
 * accessibility tree read when it was stored.
 */
import { z } from "zod";
import { BoxSchema } from "../model/contract.js";
import { DeviceDescriptionSchema } from "../device/description.js";
import { FormatSchema, IsoDate } from "./record-format.js";
import { RejectionSchema, ReviewSchema } from "./review-state.js";

/** The fields of a baseline value (kept as `previous` when it is healed). */
export const BaselineValueSchema = z.object({
  /** The prompt the baseline was judged or healed against. */
  prompt: z.string(),
  /** Regions that vary between runs, masked in comparisons (screenshot pixels). */
  varying: z.array(BoxSchema),
  /** `{ prompt }` masks the model located when it judged (docs/storage.md); no box: an optional one not found. */
  promptMasks: z.array(z.object({ prompt: z.string().min(1), box: BoxSchema.optional() })).optional(),
  model: z.string(),
  reason: z.string(),
  imageSha256: z.string(),
  storedAt: IsoDate,
  review: ReviewSchema.optional(),
});

export const BaselineRecordSchema = z.object({
  format: FormatSchema,
  kind: z.literal("baseline"),
  name: z.string(),
  device: DeviceDescriptionSchema,
  ...BaselineValueSchema.shape,
  createdAt: IsoDate,
  previous: BaselineValueSchema.optional(),
  /**
   * The screen's accessibility elements that have an id or a text, read from the page source when the
   * baseline was stored, bounds in screenshot pixels (docs/storage.md); absent where none could be read.
   */
  tree: z
    .object({ elements: z.array(z.object({ attributes: z.record(z.string(), z.string()), bounds: BoxSchema })) })
    .optional(),
  /**
   * On a whole-page baseline (`fullPage`, docs/storage.md): the image is the stitched page, `height`
   * pixels tall, from `screens` screens; a single-screen call on its name is refused.
   */
  fullPage: z.object({ screens: z.number().int().positive(), height: z.number().int().positive() }).optional(),
  /** On a healed baseline: the changed elements the failed comparison named (docs/api.md, "What changed"). */
  changed: z.string().optional(),
  /** Heals a person reverted (format 2). */
  rejected: z.array(RejectionSchema).optional(),
});
/** A stored baseline: `_ai_/screenshots/<platform>/<name>/<device>.json`. */
export type BaselineRecord = z.infer<typeof BaselineRecordSchema>;
