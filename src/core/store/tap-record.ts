/*
 * The schema of a stored tap: where to tap, the crop it was found by, how a scroll tap reached it,
 * the accessibility element and the coarse screen it was learned on.
 */
import { z } from "zod";
import { BoxSchema } from "../model/contract.js";
import { DeviceDescriptionSchema } from "../device/description.js";
import { contains } from "../ground/geometry.js";
import { rectFits } from "../pixels/pixel-rects.js";
import { FormatSchema, IsoDate, PointSchema, sizeText } from "./record-format.js";
import { RejectionSchema, ReviewSchema } from "./review-state.js";

/**
 * How a scroll tap reached its element (docs/storage.md): the swipe, in screenshot pixels, and
 * how many swipes it took from the start of the list. Optional: plain taps have none.
 */
export const ScrollRecordSchema = z.object({
  direction: z.enum(["down", "up", "left", "right"]),
  /** The region swiped in, when the caller named one. */
  within: BoxSchema.optional(),
  swipe: z.object({ from: PointSchema, to: PointSchema, durationMs: z.number().int().positive() }),
  swipes: z.number().int().nonnegative(),
});
/** A scroll tap's swipes, as stored. */
export type ScrollRecord = z.infer<typeof ScrollRecordSchema>;

/**
 * What the accessibility tree had at a tap's point when it was learned or healed (docs/heal.md):
 * the innermost element with an id or a text, its stable attributes as the driver names them
 * (`resource-id`, `text`, `content-desc`, `class` on Android; `name`, `label`, `value`, `type` on
 * iOS) and its bounds in screenshot pixels.
 */
export const A11yElementSchema = z.object({
  attributes: z.record(z.string(), z.string()),
  bounds: z.object({
    x: z.number().finite(),
    y: z.number().finite(),
    width: z.number().finite().positive(),
    height: z.number().finite().positive(),
  }),
});

/** The most cells along one side of a stored screen thumbnail. */
const MAX_THUMB_CELLS = 64;

/**
 * A coarse thumbnail of the screen a plain tap was learned or healed on, outside its system bars
 * (src/core/pixels/screen-thumb.ts): per cell of a `cols` x `rows` grid, row by row, its mean grey
 * and its texture, one byte each, base64. A replay tells from it whether a settled screen without
 * the crop is the stored screen changed (final) or another one still loading (docs/api.md "When a
 * call fails"). Records stored before it have none.
 */
export const ScreenThumbSchema = z
  .object({
    cols: z.number().int().min(1).max(MAX_THUMB_CELLS),
    rows: z.number().int().min(1).max(MAX_THUMB_CELLS),
    grey: z.base64(),
    texture: z.base64(),
  })
  .refine((t) => [t.grey, t.texture].every((cells) => Buffer.from(cells, "base64").length === t.cols * t.rows), {
    message: "grey and texture must hold one byte per cell (cols x rows)",
  });
/** A stored screen thumbnail, as in the record. */
export type StoredScreenThumb = z.infer<typeof ScreenThumbSchema>;

/** The fields of a tap value (kept as `previous` when it is healed). */
export const TapValueSchema = z.object({
  /** Where to tap, in screenshot pixels. */
  point: PointSchema,
  /** The element's box the model gave, in screenshot pixels. */
  box: BoxSchema,
  /** The stored crop's rectangle in screenshot pixels (the box, padded, clamped to the screen). */
  crop: BoxSchema,
  model: z.string(),
  reason: z.string(),
  imageSha256: z.string(),
  storedAt: IsoDate,
  /** Kept with the value, so a revert restores the review state the previous value had. */
  review: ReviewSchema.optional(),
  /** Set for a tap with `scroll`: the swipes that brought the element into view. */
  scroll: ScrollRecordSchema.optional(),
  /** The accessibility element at the point, when the session serves a page source (format 2 readers ignore it). */
  element: A11yElementSchema.optional(),
  /** The screen the tap was learned or healed on, coarsely (plain taps; older readers ignore it). */
  screenThumb: ScreenThumbSchema.optional(),
});

export const TapRecordSchema = z
  .object({
    format: FormatSchema,
    /** `tap`, or `locator` for `find`'s records under `locators/` (src/core/flows/find/find.ts). */
    kind: z.enum(["tap", "locator"]),
    prompt: z.string(),
    verify: z.string().nullable(),
    device: DeviceDescriptionSchema,
    ...TapValueSchema.shape,
    createdAt: IsoDate,
    /** The value this one replaced when it was healed; its image is `<key>.previous.png`. */
    previous: TapValueSchema.optional(),
    /** Heals a person reverted (format 2). */
    rejected: z.array(RejectionSchema).optional(),
  })
  .superRefine((record, ctx) => {
    // A stored point is tapped without a model: an edited or corrupted one must never be (docs/guarantees.md).
    const { point, box, crop } = record;
    const screen = { x: 0, y: 0, ...record.device.screen };
    const at = `(${point.x}, ${point.y})`;
    // The point is its box's rounded centre, which may land on the far edge of a 1-pixel box or of the screen.
    if (!contains(box, point, { farEdge: true }))
      ctx.addIssue({ code: "custom", path: ["point"], message: `${at} is outside the box` });
    if (!contains(screen, point, { farEdge: true })) {
      ctx.addIssue({ code: "custom", path: ["point"], message: `${at} is outside the ${sizeText(screen)} screen` });
    }
    if (!rectFits(crop, screen.width, screen.height)) {
      ctx.addIssue({ code: "custom", path: ["crop"], message: `does not lie on the ${sizeText(screen)} screen` });
    }
  });
/**
 * A stored tap: `_ai_/taps/<platform>/<device>/<slug>-<hash>.json`; a stored locator (kind
 * `locator`): `_ai_/locators/<platform>/<device>/<slug>-<hash>.json`.
 */
export type TapRecord = z.infer<typeof TapRecordSchema>;
