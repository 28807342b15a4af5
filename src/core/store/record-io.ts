/*
 * Reading and writing stored records: a JSON file (the commit point) beside a PNG. The JSON
 * carries the PNG's SHA-256 so a reader never pairs a record with another version's image.
 */
import { createHash } from "node:crypto";
import type { z } from "zod";
import { describeZodError } from "../ground/zod-errors.js";
import type { DeviceDescription } from "../device/description.js";
import { StoreError } from "../ground/errors.js";
import type { Size } from "../ground/geometry.js";
import { imageSize } from "../pixels/image-decode.js";
import { redactDeep } from "../ground/secrets.js";
import { sizeText } from "./record-format.js";
import type { Rejection, Review } from "./review-state.js";
import type { ReadOptions, Store } from "./store.js";

/**
 * The size a record's image must have: a tap's crop, a judgment's shot, an act's sheet of crops, a
 * baseline's screen, or a whole-page baseline's page.
 */
export function imageSizeOf(record: {
  kind: string;
  device: DeviceDescription;
  crop?: Size;
  shot?: Size;
  fullPage?: { height: number } | undefined;
  sheet?: Size;
}): Size {
  if (record.kind === "tap" && record.crop) return record.crop;
  if (record.kind === "act" && record.sheet) return record.sheet;
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
