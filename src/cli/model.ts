/**
 * The store as the CLI sees it: every tap and baseline record with its image files,
 * previous value, modification time and last use. Invalid records are collected, not thrown.
 */
import path from "node:path";
import type { Platform } from "../core/device/description.js";
import { PlatformSchema } from "../core/device/description.js";
import { FileStore } from "../core/store/file-store.js";
import type { Store } from "../core/store/store.js";
import { BaselineRecordSchema, type BaselineRecord } from "../core/store/baseline-record.js";
import { JudgmentRecordSchema, type JudgmentRecord } from "../core/store/judgment-record.js";
import { readRecord } from "../core/store/record-io.js";
import { parseScopedKey } from "../core/store/keys.js";
import { TapRecordSchema, type TapRecord } from "../core/store/tap-record.js";
import { ActRecordSchema, type ActRecord } from "../core/store/act-record.js";
import { indexCalls, lastUsed } from "./usage.js";
import type { Run } from "./runs.js";

/** Files of one record: absolute paths, or `s3://` URLs in a bucket. */
export interface RecordFiles {
  json: string;
  image: string;
  /** The image before the last heal; only when the record has a previous value. */
  previousImage?: string;
}

interface EntryBase {
  /** Store key without extension, e.g. `taps/android/google-pixel-7_14/the-checkout-button-1a2b3c4d5e`. */
  key: string;
  platform: Platform;
  /** Device slug, e.g. `google-pixel-7_14`. */
  device: string;
  /** The project it belongs to (`_ai_/projects/<project>/`); none for a value stored without one. */
  project?: string;
  /** The app under test's slug (`apps/<app>/`); none for a value of the older layout (docs/storage.md). */
  app?: string;
  files: RecordFiles;
  /** The record file's modification time (written, or touched by a replay). */
  modifiedAt: Date;
  /** The later of `modifiedAt` and the last recorded call that used it. */
  lastUsed: Date;
  /** When the current value replaced a previous one (a heal), if it did. */
  healedAt?: string;
  /**
   * A `.previous.png` beside a record that has no previous value: a revert killed after its JSON was
   * written and before that image was removed (record-io.ts restorePrevious). `tapshot revert` finishes it.
   */
  unfinishedRevert?: true;
}

/** A stored tap. */
export interface TapEntry extends EntryBase {
  kind: "tap";
  /** The prompt, for display and matching. */
  subject: string;
  record: TapRecord;
}

/** A stored baseline. */
export interface BaselineEntry extends EntryBase {
  kind: "baseline";
  /** The baseline name. */
  subject: string;
  record: BaselineRecord;
}

/** A stored judgment of `toSatisfy` (docs/storage.md, "Judgments"). */
export interface JudgmentEntry extends EntryBase {
  kind: "judgment";
  /** The statement judged. */
  subject: string;
  record: JudgmentRecord;
}

/** A stored act of `ai.act` (docs/storage.md, "Acts"). */
export interface ActEntry extends EntryBase {
  kind: "act";
  /** The goal. */
  subject: string;
  record: ActRecord;
}

/** A stored record of any kind. */
export type StoreEntry = TapEntry | BaselineEntry | JudgmentEntry | ActEntry;

/** A file under `_ai_/` that is not a readable record. */
export interface InvalidEntry {
  /** Store key of the file (with extension). */
  key: string;
  file: string;
  problem: string;
}

/** Everything under `<storage>/_ai_/`. */
export interface StoreModel {
  /** The store the records were read from. */
  store: Store;
  /** The `_ai_` folder (or its URL in a bucket). */
  root: string;
  taps: TapEntry[];
  baselines: BaselineEntry[];
  judgments: JudgmentEntry[];
  acts: ActEntry[];
  invalid: InvalidEntry[];
}

const IMAGE_SUFFIXES = [".previous.png", ".png"];

/**
 * Where each kind's records lie in a scope's folder (`<folder>/<platform>/…`, four parts), the schema
 * they are read with and which part of the key names the device. A locator (`find`) is a tap record of
 * its own kind and folder: listed, shown and reviewed as taps are.
 */
const RECORD_FOLDERS = {
  taps: { schema: TapRecordSchema, devicePart: 2 },
  locators: { schema: TapRecordSchema, devicePart: 2 },
  screenshots: { schema: BaselineRecordSchema, devicePart: 3 },
  judgments: { schema: JudgmentRecordSchema, devicePart: 2 },
  acts: { schema: ActRecordSchema, devicePart: 3 },
} as const;

const MISPLACED =
  "not where a record belongs: use taps/<platform>/<device>/<prompt>.json, " +
  "locators/<platform>/<device>/<description>.json, screenshots/<platform>/<name>/<device>.json, " +
  "judgments/<platform>/<device>/<statement>.json or acts/<platform>/<goal>/<device>.json, " +
  "each optionally under projects/<project>/ and apps/<app>/";

/** What reading the store needs for each record: its keys, the recorded use and where its files are. */
interface ReadContext {
  store: Store;
  keys: string[];
  calls: ReturnType<typeof indexCalls>;
  file: (key: string) => string;
}

/**
 * Read every record under the store's `_ai_/` (a storage folder's path is a FileStore); `runs` supply
 * recorded use beside modification times.
 */
export async function readStoreModel(source: Store | string, runs: Run[] = []): Promise<StoreModel> {
  const store = typeof source === "string" ? new FileStore(source) : source;
  const scan = store instanceof FileStore ? await store.scan("") : { keys: await store.list(""), skipped: [] };
  const root = store instanceof FileStore ? store.root : store.location;
  const file = (key: string) => (store instanceof FileStore ? path.join(root, ...key.split("/")) : `${root}/${key}`);
  const model: StoreModel = {
    store,
    root,
    taps: [],
    baselines: [],
    judgments: [],
    acts: [],
    // Links below _ai_/ are never followed: they are shown as invalid, so prune never reaches through them.
    invalid: [...scan.skipped],
  };
  const context: ReadContext = { store, keys: scan.keys, calls: indexCalls(runs), file };
  const recordKeys = new Set(scan.keys.filter((k) => k.endsWith(".json")).map((k) => k.slice(0, -".json".length)));
  for (const key of recordKeys) {
    const read = await readEntry(key, context);
    if (read === undefined) continue; // removed while listing
    if ("problem" in read) model.invalid.push({ key: `${key}.json`, file: file(`${key}.json`), problem: read.problem });
    else addEntry(model, read);
  }
  model.invalid.push(...strayFiles(scan.keys, recordKeys, file));
  sortModel(model);
  return model;
}

/** The entry of the record at `key` (without `.json`), why it is invalid, or `undefined` when it is gone. */
async function readEntry(key: string, context: ReadContext): Promise<StoreEntry | { problem: string } | undefined> {
  const { store, keys, calls, file } = context;
  const scoped = parseScopedKey(key);
  const parts = scoped.inner.split("/");
  const place = parts.length === 4 ? RECORD_FOLDERS[parts[0] as keyof typeof RECORD_FOLDERS] : undefined;
  const platform = PlatformSchema.safeParse(parts[1]);
  if (!place || !platform.success) return { problem: MISPLACED };
  let stored;
  try {
    stored = await readRecord(store, key, place.schema as typeof TapRecordSchema | typeof BaselineRecordSchema);
  } catch (error) {
    return { problem: (error as Error).message };
  }
  if (!stored) return undefined;
  const record = stored.record as TapRecord | BaselineRecord | JudgmentRecord | ActRecord;
  const device = parts[place.devicePart]!;
  const subject = subjectOf(record);
  const modifiedAt = (await store.modifiedAt(`${key}.json`)) ?? new Date(record.storedAt);
  const hasPrevious = record.previous !== undefined && keys.includes(`${key}.previous.png`);
  const unfinishedRevert = record.previous === undefined && keys.includes(`${key}.previous.png`);
  const kind = "crop" in record ? "tap" : record.kind;
  return {
    key,
    platform: platform.data,
    device,
    ...(scoped.project ? { project: scoped.project } : {}),
    ...(scoped.app ? { app: scoped.app } : {}),
    subject,
    files: {
      json: file(`${key}.json`),
      image: file(`${key}.png`),
      ...(hasPrevious ? { previousImage: file(`${key}.previous.png`) } : {}),
    },
    modifiedAt,
    lastUsed: lastUsed(calls, { key, kind, device, subject, modifiedAt }),
    ...(record.previous ? { healedAt: record.storedAt } : {}),
    ...(unfinishedRevert ? { unfinishedRevert: true } : {}),
    kind,
    record,
  } as StoreEntry;
}

/** What a record is about: a tap's prompt, a judgment's statement, an act's goal, a baseline's name. */
function subjectOf(record: TapRecord | BaselineRecord | JudgmentRecord | ActRecord): string {
  if ("crop" in record) return record.prompt;
  if (record.kind === "judgment") return record.statement;
  return record.kind === "act" ? record.goal : record.name;
}

function addEntry(model: StoreModel, entry: StoreEntry): void {
  if (entry.kind === "tap") model.taps.push(entry);
  else if (entry.kind === "judgment") model.judgments.push(entry);
  else if (entry.kind === "act") model.acts.push(entry);
  else model.baselines.push(entry);
}

/** Files that are no record's: an image whose `.json` is missing, or anything tapshot does not write. */
function strayFiles(keys: string[], recordKeys: Set<string>, file: (key: string) => string): InvalidEntry[] {
  const stray: InvalidEntry[] = [];
  for (const key of keys) {
    if (key.endsWith(".json")) continue;
    const suffix = IMAGE_SUFFIXES.find((s) => key.endsWith(s));
    if (suffix && recordKeys.has(key.slice(0, -suffix.length))) continue;
    stray.push({
      key,
      file: file(key),
      problem: suffix ? "an image without its .json record (left by an interrupted write?)" : "not a tapshot file",
    });
  }
  return stray;
}

function sortModel(model: StoreModel): void {
  const order = (a: StoreEntry, b: StoreEntry) =>
    whereOf(a).localeCompare(whereOf(b)) ||
    a.platform.localeCompare(b.platform) ||
    a.device.localeCompare(b.device) ||
    a.subject.localeCompare(b.subject);
  model.taps.sort(order);
  model.baselines.sort(order);
  model.judgments.sort(order);
  model.acts.sort(order);
  model.invalid.sort((a, b) => a.key.localeCompare(b.key));
}

/** All records: taps, baselines, judgments, then acts. */
export function allEntries(model: StoreModel): StoreEntry[] {
  return [...model.taps, ...model.baselines, ...model.judgments, ...model.acts];
}

/** Whose value an entry is, for display: `project shop-team, app com.example.shop`; `""` for the older layout. */
export function whereOf(entry: Pick<StoreEntry, "project" | "app">): string {
  return [entry.project ? `project ${entry.project}` : "", entry.app ? `app ${entry.app}` : ""]
    .filter(Boolean)
    .join(", ");
}

/** An entry's device with whose value it is, for display: `google-pixel-7_14 (project shop-team, app com.example.shop)`. */
export function deviceOf(entry: Pick<StoreEntry, "project" | "app" | "device">): string {
  const where = whereOf(entry);
  return where ? `${entry.device} (${where})` : entry.device;
}
