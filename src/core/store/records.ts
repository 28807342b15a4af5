/**
 * Stored records: a JSON file (the commit point) beside a PNG. The JSON carries the
 * PNG's SHA-256 so a reader never pairs a record with another version's image.
 */
import { describeZodError } from "../ground/zod-errors.js";
import { createHash } from "node:crypto";
import { z } from "zod";
import { BoxSchema } from "../model/contract.js";
import { DeviceDescriptionSchema, type DeviceDescription } from "../device/description.js";
import { StoreError } from "../ground/errors.js";
import { contains, type Size } from "../ground/geometry.js";
import { imageSize } from "../pixels/image-decode.js";
import { rectFits } from "../pixels/pixel-rects.js";
import { redactDeep } from "../ground/secrets.js";
import type { ReadOptions, Store } from "./store.js";

/**
 * Version of the record format written; bumped when a change needs migration. Format 2 added
 * `review` and `rejected`; a format 1 record has neither and reads as accepted, with no rejections.
 */
export const FORMAT = 2;
/** Every format version a reader accepts. */
const FormatSchema = z.union([z.literal(1), z.literal(FORMAT)]);

const PointSchema = z.object({ x: z.number(), y: z.number() });
const IsoDate = z.string().datetime();

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
    kind: z.literal("tap"),
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
/** A stored tap: `_ai_/taps/<platform>/<device>/<slug>-<hash>.json`. */
export type TapRecord = z.infer<typeof TapRecordSchema>;

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

function sizeText(size: Size): string {
  return `${size.width}x${size.height}`;
}

/**
 * The size a record's image must have: a tap's crop, a judgment's shot, a baseline's screen, or a
 * whole-page baseline's page.
 */
export function imageSizeOf(record: {
  kind: string;
  device: DeviceDescription;
  crop?: Size;
  shot?: Size;
  fullPage?: { height: number } | undefined;
}): Size {
  if (record.kind === "tap" && record.crop) return record.crop;
  if (record.kind === "judgment" && record.shot) return record.shot;
  const { screen } = record.device;
  return record.fullPage ? { width: screen.width, height: record.fullPage.height } : screen;
}

/** What every stored record has, whatever its kind. */
export interface StoredRecordBase {
  device: DeviceDescription;
  imageSha256: string;
  storedAt: string;
  createdAt: string;
  review?: Review | undefined;
  rejected?: Rejection[] | undefined;
}

/** A record with the image stored beside it. */
export interface Stored<R> {
  record: R;
  image: Buffer;
}

export function sha256(data: Buffer): string {
  return createHash("sha256").update(data).digest("hex");
}

const TORN_READ_RETRIES = 5;

/** A stored file's JSON, or `undefined` when it is missing or not JSON (for a quick look before `readRecord`). */
export function parseStoredJson(data: Buffer | null): unknown {
  try {
    return data ? JSON.parse(data.toString("utf8")) : undefined;
  } catch {
    return undefined;
  }
}

/** Read `<key>.json` and `<key>.png`, validated; `null` when nothing is stored. */
export async function readRecord<S extends z.ZodType<{ imageSha256: string }>>(
  store: Store,
  key: string,
  schema: S,
  options: ReadOptions = {},
): Promise<Stored<z.infer<S>> | null> {
  for (let attempt = 0; ; attempt++) {
    const json = await store.read(`${key}.json`, options);
    if (!json) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(json.toString("utf8"));
    } catch (error) {
      throw new StoreError(`${store.location}/${key}.json is not valid JSON: ${(error as Error).message}`, {
        cause: error,
      });
    }
    const result = schema.safeParse(parsed);
    if (!result.success) {
      throw new StoreError(
        `${store.location}/${key}.json is not a valid record: ${describeZodError(result.error)}. ` +
          `Restore it from git or delete it to learn it again.`,
        { cause: result.error },
      );
    }
    const image = await store.read(`${key}.png`, options);
    if (image && sha256(image) === result.data.imageSha256) {
      return { record: result.data, image: await checkImage(store, `${key}.png`, result.data, image) };
    }
    // replaceRecord writes <key>.previous.png (this record's image) before <key>.png, so when a heal is
    // under way, or its writer died before the JSON, the record's own image is still there.
    const previous = await store.read(`${key}.previous.png`, options);
    if (previous && sha256(previous) === result.data.imageSha256) {
      return { record: result.data, image: await checkImage(store, `${key}.previous.png`, result.data, previous) };
    }
    // A heal may be replacing the pair right now: read again before calling it torn.
    if (attempt >= TORN_READ_RETRIES) {
      throw new StoreError(
        `${store.location}/${key}.png ${image ? "does not match its record (SHA-256 differs)" : "is missing"}. ` +
          `Restore both files from git, or delete ${key}.json to learn it again.`,
      );
    }
    await new Promise((r) => setTimeout(r, 20 * (attempt + 1)));
  }
}

/** The image when it is an image of the size its record says, else a StoreError naming both. */
async function checkImage(store: Store, file: string, record: unknown, image: Buffer): Promise<Buffer> {
  const expected = imageSizeOf(record as Parameters<typeof imageSizeOf>[0]);
  let actual: Size;
  try {
    actual = await imageSize(image);
  } catch (error) {
    throw new StoreError(
      `${store.location}/${file} is not an image its record can use (${(error as Error).message}). ` +
        `Restore it from git, or delete its .json to learn it again.`,
      { cause: error },
    );
  }
  if (actual.width !== expected.width || actual.height !== expected.height) {
    throw new StoreError(
      `${store.location}/${file} is ${sizeText(actual)} but its record says ${sizeText(expected)}. ` +
        `Restore both files from git, or delete its .json to learn it again.`,
    );
  }
  return image;
}

/**
 * Store a new record and image. Returns `false`, writing no record, when one exists:
 * stored data is never silently overwritten. Call with the key's lock held.
 */
export async function createRecord(store: Store, key: string, record: object, image: Buffer): Promise<boolean> {
  // Without this check the PNG write below would replace the image of the record that already exists.
  if ((await store.modifiedAt(`${key}.json`)) !== null) return false;
  // Image first: the JSON is the commit point, so a crash in between leaves only an orphan PNG.
  await store.write(`${key}.png`, image);
  return store.write(`${key}.json`, recordJson(record), { ifAbsent: true });
}

/**
 * Replace a record (a heal), keeping the previous image as `<key>.previous.png`; the
 * record itself carries the previous value. Call with the key's lock held.
 */
export async function replaceRecord(
  store: Store,
  key: string,
  record: object,
  image: Buffer,
  previousImage: Buffer,
): Promise<void> {
  await store.write(`${key}.previous.png`, previousImage);
  await store.write(`${key}.png`, image);
  await store.write(`${key}.json`, recordJson(record));
}

/**
 * Rewrite a record's JSON only (its image stays): accepting a value. Call with the key's lock held.
 * Returns the keys written.
 */
export async function rewriteRecord(store: Store, key: string, record: object): Promise<string[]> {
  await store.write(`${key}.json`, recordJson(record));
  return [`${key}.json`];
}

/**
 * Put the previous value back (reverting a heal): `record` is that value and `previousImage` its
 * image. The JSON goes first: until `<key>.png` is replaced, readers find the record's image in
 * `<key>.previous.png`, so no moment is torn. Call with the key's lock held. Returns the keys changed.
 */
export async function restorePrevious(
  store: Store,
  key: string,
  record: object,
  previousImage: Buffer,
): Promise<string[]> {
  await store.write(`${key}.json`, recordJson(record));
  await store.write(`${key}.png`, previousImage);
  await store.remove(`${key}.previous.png`);
  return [`${key}.json`, `${key}.png`, `${key}.previous.png`];
}

/**
 * Remove a record and its images, JSON first (the commit point: a reader then finds nothing,
 * never a record without its image). Call with the key's lock held. Returns the keys removed.
 */
export async function deleteRecord(store: Store, key: string): Promise<string[]> {
  const removed: string[] = [];
  for (const file of [`${key}.json`, `${key}.png`, `${key}.previous.png`]) {
    if ((await store.modifiedAt(file)) === null) continue;
    await store.remove(file);
    removed.push(file);
  }
  return removed;
}

/** A record as stored: pretty JSON with no secret in it (src/core/ground/secrets.ts). */
function recordJson(record: object): Buffer {
  return Buffer.from(JSON.stringify(redactDeep(record), null, 2) + "\n");
}
