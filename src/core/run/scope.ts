/*
 * The store a call's flows see: the configured store scoped to the call's project and the app under
 * test (src/core/store/scoped-store.ts), so every kind of stored value, and its lock, is kept per
 * project and app without its flow knowing.
 */
import type { ResolvedConfig } from "../config/config.js";
import type { AdapterNote } from "../device/description.js";
import { untilAborted, type Deadline } from "../ground/deadline.js";
import { appSlug } from "../store/keys.js";
import { ScopedStore, scopedStore } from "../store/scoped-store.js";
import type { OpenedDevice } from "./opened-device.js";

/** `config` with its store scoped to the call's project and the session's app (read once per session). */
export async function scopeConfig(
  config: ResolvedConfig,
  opened: OpenedDevice,
  { deadline, note }: { deadline: Deadline; note: AdapterNote },
): Promise<ResolvedConfig> {
  const identity = await untilAborted(opened.appIdentity(note), deadline.signal);
  const app = identity === undefined ? undefined : appSlug(identity);
  const store = scopedStore(config.store, { project: config.project, app, readOldLayout: config.readOldLayout });
  return { ...config, store };
}

/** Where a call's `key` is in the configured store, for its log entry (what `tapshot accept --failed` reads). */
export function storedKeyOf(config: ResolvedConfig, key: string): string {
  return config.store instanceof ScopedStore ? config.store.keyOf(key) : key;
}
