/** Filters shared by list, show and prune. */
import type { Platform } from "../core/device/description.js";
import type { StoreEntry, StoreModel } from "./model.js";
import { appSlug, parseScopedKey } from "../core/store/keys.js";

/** Narrowing filters; each given one must match. */
export interface EntryFilter {
  platform?: Platform;
  /** Device slugs (any of them). */
  device?: string[];
  kind?: "tap" | "baseline" | "judgment" | "act";
  /** Only this project's values (`_ai_/projects/<project>/`). */
  project?: string;
  /** Only values of this app (its identity, e.g. `com.example.shop`, or its slug in keys). */
  app?: string;
}

/** Whose values a command works on: `--project` and `--app`. */
export type ScopeFilter = Pick<EntryFilter, "project" | "app">;

/** Whether a value of `project` and `app` (from its key) is in the scope the command works on. */
export function inScope(
  entry: { project?: string | undefined; app?: string | undefined },
  filter: ScopeFilter,
): boolean {
  if (filter.project !== undefined && entry.project !== filter.project) return false;
  return filter.app === undefined || entry.app === appSlug(filter.app);
}

/** The model with only the values (and invalid files) in scope. */
export function scopeModel(model: StoreModel, filter: ScopeFilter): StoreModel {
  if (filter.project === undefined && filter.app === undefined) return model;
  const keep = <E extends StoreEntry>(entries: E[]) => entries.filter((e) => inScope(e, filter));
  return {
    ...model,
    taps: keep(model.taps),
    baselines: keep(model.baselines),
    judgments: keep(model.judgments),
    acts: keep(model.acts),
    invalid: model.invalid.filter((bad) => inScope(parseScopedKey(bad.key), filter)),
  };
}

export function matchesFilter(entry: StoreEntry, filter: EntryFilter): boolean {
  if (!inScope(entry, filter)) return false;
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
    project: entry.project ?? null,
    app: entry.app ?? null,
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
