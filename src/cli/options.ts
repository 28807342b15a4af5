/** Options shared by the subcommands: where the store and the run results are, how to print. */
import { statSync } from "node:fs";
import path from "node:path";
import { InvalidArgumentError } from "commander";
import { PlatformSchema, type Platform } from "../core/device/description.js";
import { UsageError } from "./exit.js";
import { appSlug, PROJECT_FORM, projectProblem } from "../core/store/keys.js";

/** Options every subcommand takes. */
export interface CommonOptions {
  /** Storage root holding `_ai_/`. */
  storage: string;
  /** A bucket holding `_ai_/` (`s3://bucket/prefix`), used instead of `storage`. */
  store?: string;
  /** Results folder holding one folder per run. */
  results: string;
  json?: boolean;
  /** Only this project's values (`--project`). */
  project?: string;
  /** Only this app's values (`--app`: its identity or slug). */
  app?: string;
}

/** `--storage` default: `$TAPSHOT_STORAGE_DIR` or `./storage` (as the SDK). */
export function defaultStorageDir(env = process.env): string {
  return env.TAPSHOT_STORAGE_DIR || "storage";
}

/** `--results` default: `$TAPSHOT_RESULTS_DIR` or `./tapshot-results` (as the SDK). */
export function defaultResultsDir(env = process.env): string {
  return env.TAPSHOT_RESULTS_DIR || "tapshot-results";
}

/** The storage directory, which must exist (a typo must not look like an empty store). */
export function existingStorageDir(dir: string): string {
  const resolved = path.resolve(dir);
  let isDir = false;
  try {
    isDir = statSync(resolved).isDirectory();
  } catch {
    // reported below
  }
  if (!isDir) {
    throw new UsageError(
      `The storage directory ${resolved} does not exist. Pass --storage <dir> (the folder holding _ai_/) ` +
        `or set TAPSHOT_STORAGE_DIR.`,
    );
  }
  return resolved;
}

/** commander parser for `--platform`. */
export function parsePlatform(value: string): Platform {
  const parsed = PlatformSchema.safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError(`use "android" or "ios".`);
  return parsed.data;
}

const DURATION = /^(\d+)\s*(d|w|h)$/;
const UNIT_MS = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 } as const;

/**
 * commander parser for a point in time: an ISO date (`2026-01-31`, `2026-01-31T12:00Z`)
 * or an age before now (`30d`, `6w`, `12h`).
 */
export function parseSince(value: string, now = Date.now()): Date {
  const duration = DURATION.exec(value.trim());
  if (duration) return new Date(now - Number(duration[1]) * UNIT_MS[duration[2] as keyof typeof UNIT_MS]);
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) {
    const date = new Date(value);
    if (!Number.isNaN(date.getTime())) return date;
  }
  throw new InvalidArgumentError(`use a date like 2026-01-31 (or 2026-01-31T12:00:00Z) or an age like 30d, 6w, 12h.`);
}

/** commander collector for repeatable options. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** commander parser for `--project`: a project name as sessions take it (docs/storage.md). */
export function parseProject(value: string): string {
  const problem = projectProblem(value);
  if (problem)
    throw new InvalidArgumentError(`${JSON.stringify(value)} is not a project name: ${problem}. Use ${PROJECT_FORM}.`);
  return value;
}

/** commander parser for `--app`: an app identity (`com.example.shop`) or its slug in keys. */
export function parseApp(value: string): string {
  if (!appSlug(value)) throw new InvalidArgumentError(`use an app identity such as com.example.shop.`);
  return value;
}
