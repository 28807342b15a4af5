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
 * Read every record under the store's `_ai_/` (a storage folder's path is a FileStore); `runs` supply
 * recorded use beside modification times.
 */
export async function readStoreModel(source: Store | string, runs: Run[] = []): Promise<StoreModel> {
  const store = typeof source === "string" ? new FileStore(source) : source;
  const scan = store instanceof FileStore ? await store.scan("") : { keys: await store.list(""), skipped: [] };
  const keys = scan.keys;
  const calls = indexCalls(runs);
  const root = store instanceof FileStore ? store.root : store.location;
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
  const file = (key: string) => (store instanceof FileStore ? path.join(root, ...key.split("/")) : `${root}/${key}`);
  const recordKeys = new Set(keys.filter((k) => k.endsWith(".json")).map((k) => k.slice(0, -".json".length)));

  for (const key of recordKeys) {
    const scoped = parseScopedKey(key);
    const parts = scoped.inner.split("/");
    const invalid = (problem: string) => model.invalid.push({ key: `${key}.json`, file: file(`${key}.json`), problem });
    const platform = PlatformSchema.safeParse(parts[1]);
    // A locator (`find`) is a tap record of its own kind and folder: listed, shown and reviewed as taps are.
    const isTap = (parts[0] === "taps" || parts[0] === "locators") && parts.length === 4;
    const isBaseline = parts[0] === "screenshots" && parts.length === 4;
    const isJudgment = parts[0] === "judgments" && parts.length === 4;
    const isAct = parts[0] === "acts" && parts.length === 4;
    if ((!isTap && !isBaseline && !isJudgment && !isAct) || !platform.success) {
      invalid(
        "not where a record belongs: use taps/<platform>/<device>/<prompt>.json, " +
          "locators/<platform>/<device>/<description>.json, screenshots/<platform>/<name>/<device>.json, " +
          "judgments/<platform>/<device>/<statement>.json or acts/<platform>/<goal>/<device>.json, " +
          "each optionally under projects/<project>/ and apps/<app>/",
      );
      continue;
    }
    let stored;
    try {
      stored = isTap
        ? await readRecord(store, key, TapRecordSchema)
        : isAct
          ? await readRecord(store, key, ActRecordSchema)
          : isJudgment
            ? await readRecord(store, key, JudgmentRecordSchema)
            : await readRecord(store, key, BaselineRecordSchema);
    } catch (error) {
      invalid((error as Error).message);
      continue;
    }
    if (!stored) continue; // removed while listing
    const record = stored.record;
    const device = isBaseline || isAct ? parts[3]! : parts[2]!;
    const subject =
      "crop" in record
        ? record.prompt
        : record.kind === "judgment"
          ? record.statement
          : record.kind === "act"
            ? record.goal
            : record.name;
    const modifiedAt = (await store.modifiedAt(`${key}.json`)) ?? new Date(record.storedAt);
    const hasPrevious = record.previous !== undefined && keys.includes(`${key}.previous.png`);
    const base = {
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
      lastUsed: lastUsed(calls, { key, kind: "crop" in record ? "tap" : record.kind, device, subject, modifiedAt }),
      ...(record.previous ? { healedAt: record.storedAt } : {}),
    };
    if ("crop" in record) model.taps.push({ ...base, kind: "tap", record });
    else if (record.kind === "judgment") model.judgments.push({ ...base, kind: "judgment", record });
    else if (record.kind === "act") model.acts.push({ ...base, kind: "act", record });
    else model.baselines.push({ ...base, kind: "baseline", record });
  }

  for (const key of keys) {
    if (key.endsWith(".json")) continue;
    const suffix = IMAGE_SUFFIXES.find((s) => key.endsWith(s));
    if (suffix && recordKeys.has(key.slice(0, -suffix.length))) continue;
    model.invalid.push({
      key,
      file: file(key),
      problem: suffix ? "an image without its .json record (left by an interrupted write?)" : "not a tapshot file",
    });
  }
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
  return model;
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
