/*
 * The schema of a stored act (docs/storage.md): the steps a model decided towards a goal on one
 * device, each with the control's identity, its crop (a band of the record's image), its point and
 * the action; a value by its name only, never its text.
 */
import { z } from "zod";
import { ACT_ACTIONS, BoxSchema, CONTROL_ROLES, PRESS_KEYS } from "../model/contract.js";
import { DeviceDescriptionSchema } from "../device/description.js";
import { rectFits } from "../pixels/pixel-rects.js";
import { FormatSchema, IsoDate, PointSchema, sizeText } from "./record-format.js";
import { RejectionSchema, ReviewSchema } from "./review-state.js";
import { ScreenThumbSchema } from "./tap-record.js";

/** The actions a stored step may do: every action but `done`, `stuck` and `wait`. */
export const STEP_ACTIONS = ACT_ACTIONS.filter(
  (a): a is Exclude<(typeof ACT_ACTIONS)[number], "done" | "stuck" | "wait"> =>
    a !== "done" && a !== "stuck" && a !== "wait",
);

/** How a replay finds a control (src/core/device/controls.ts). */
export const IdentitySchema = z
  .object({
    id: z.string().min(1).optional(),
    label: z.string().min(1).optional(),
    cls: z.string().optional(),
    ordinal: z.number().int().nonnegative().optional(),
  })
  .refine((i) => i.id !== undefined || i.label !== undefined, { message: "names neither an id nor a label" });

/** The control a step acted on, as it was when the step was learned. */
export const StepControlSchema = z.object({
  identity: IdentitySchema,
  label: z.string(),
  role: z.enum(CONTROL_ROLES),
  /** Where it was acted on, in screenshot pixels. */
  point: PointSchema,
  /** Its crop's rectangle on the screen, in screenshot pixels. */
  crop: BoxSchema,
  /** Where the crop lies in the record's image (a vertical sheet of the steps' crops), in pixels from its top. */
  sheetY: z.number().int().nonnegative(),
});

/** One stored step. */
export const ActStepSchema = z.object({
  action: z.enum(STEP_ACTIONS as unknown as [string, ...string[]]),
  control: StepControlSchema.optional(),
  /** `fill`: the name of the supplied value, never its text. */
  value: z.string().optional(),
  checked: z.boolean().optional(),
  option: z.string().optional(),
  key: z.enum(PRESS_KEYS).optional(),
  direction: z.enum(["up", "down", "left", "right"]).optional(),
  /** The screen the step was decided on, coarsely (src/core/flows/shared/stored-screen.ts): tells loading from change. */
  screenThumb: ScreenThumbSchema.optional(),
});
/** A stored step. */
export type ActStep = z.infer<typeof ActStepSchema>;

/** The fields of an act value (kept as `previous` when it is healed). */
export const ActValueSchema = z.object({
  steps: z.array(ActStepSchema).min(1).max(40),
  /** The image's size: the steps' crops stacked top to bottom. */
  sheet: z.object({ width: z.number().int().positive(), height: z.number().int().positive() }),
  /** The models that decided the steps and judged the goal reached. */
  model: z.string(),
  /** The completion judgment's reason. */
  reason: z.string(),
  imageSha256: z.string(),
  storedAt: IsoDate,
  review: ReviewSchema.optional(),
});

export const ActRecordSchema = z
  .object({
    format: FormatSchema,
    kind: z.literal("act"),
    goal: z.string(),
    /** The names of the values the call supplied, sorted; part of the key. */
    valueNames: z.array(z.string()),
    device: DeviceDescriptionSchema,
    ...ActValueSchema.shape,
    createdAt: IsoDate,
    previous: ActValueSchema.optional(),
    rejected: z.array(RejectionSchema).optional(),
  })
  .superRefine((record, ctx) => {
    // A stored point is acted on without a model: an edited or corrupted one must never be (docs/guarantees.md).
    const { width, height } = record.device.screen;
    record.steps.forEach((step, i) => {
      const c = step.control;
      if (!c) return;
      if (!rectFits(c.crop, width, height)) {
        ctx.addIssue({ code: "custom", path: ["steps", i, "control", "crop"], message: "does not lie on the screen" });
      }
      if (c.sheetY + c.crop.height > record.sheet.height || c.crop.width > record.sheet.width) {
        const message = `does not lie on the ${sizeText(record.sheet)} sheet`;
        ctx.addIssue({ code: "custom", path: ["steps", i, "control", "sheetY"], message });
      }
      if (step.value !== undefined && !record.valueNames.includes(step.value)) {
        const message = `names "${step.value}", which is not among the value names`;
        ctx.addIssue({ code: "custom", path: ["steps", i, "value"], message });
      }
    });
  });
/** A stored act: `_ai_/acts/<platform>/<goal-slug>-<hash>/<device>.json`. */
export type ActRecord = z.infer<typeof ActRecordSchema>;
