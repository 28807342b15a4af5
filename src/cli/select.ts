/** Filters shared by list, show and prune. */
import type { Platform } from "../core/device/description.js";
import type { StoreEntry } from "./model.js";

/** Narrowing filters; each given one must match. */
export interface EntryFilter {
  platform?: Platform;
  /** Device slugs (any of them). */
  device?: string[];
  kind?: "tap" | "baseline" | "judgment" | "act";
}

export function matchesFilter(entry: StoreEntry, filter: EntryFilter): boolean {
  if (filter.platform && entry.platform !== filter.platform) return false;
  if (filter.device?.length && !filter.device.includes(entry.device)) return false;
  if (filter.kind && entry.kind !== filter.kind) return false;
  return true;
}

/** The JSON form of an entry (`--json`): dates as ISO strings, paths absolute. */
export function entryJson(entry: StoreEntry) {
  return {
    kind: entry.kind,
    key: entry.key,
    platform: entry.platform,
    device: entry.device,
    ...(entry.kind === "tap"
      ? { prompt: entry.subject }
      : entry.kind === "judgment"
        ? { statement: entry.subject }
        : entry.kind === "act"
          ? { goal: entry.subject }
          : { name: entry.subject }),
    files: entry.files,
    modifiedAt: entry.modifiedAt.toISOString(),
    lastUsed: entry.lastUsed.toISOString(),
    healedAt: entry.healedAt ?? null,
    record: entry.record,
  };
}
