/**
 * The committed storage folder over a shared store (docs/device-farms.md): a farm run replays what git
 * holds and learns only what is new. Reads try the folder first and the shared store second; a record's
 * images are read from the layer its JSON came from, so a pair never mixes layers. New values go to the
 * shared store, and so do its locks. A record read from the folder and then healed is written to both, so
 * the rest of the run uses the healed value and the checkout shows the change.
 */
import { FileStore } from "./file-store.js";
import { recordKeyOf } from "./keys.js";
import type { LockOptions, ReadOptions, Release, Store, WriteOptions } from "./store.js";

/** Options of {@link layeredStore}. */
export interface LayeredStoreOptions {
  /** The storage folder holding the committed `_ai_/` (read first); default `./storage`. */
  storageDir?: string;
  /** Where new values, heals and locks go: a bucket (`s3Store`) or a shared folder. */
  shared: Store;
}

/** {@link Store} reading a folder before a shared store; build it with {@link layeredStore}. */
export class LayeredStore implements Store {
  readonly location: string;
  /** Records whose JSON was read from the folder: their images and heals stay there too. */
  private readonly local = new Set<string>();

  constructor(
    readonly folder: Store,
    readonly shared: Store,
  ) {
    this.location = `${folder.location} over ${shared.location}`;
  }

  async read(key: string, options: ReadOptions = {}): Promise<Buffer | null> {
    const record = recordKeyOf(key);
    if (key.endsWith(".json")) {
      const committed = await this.folder.read(key, options);
      if (committed) {
        this.local.add(record);
        return committed;
      }
      this.local.delete(record);
      return this.shared.read(key, options);
    }
    if (this.local.has(record)) return this.folder.read(key, options);
    return (await this.shared.read(key, options)) ?? this.folder.read(key, options);
  }

  async write(key: string, data: Buffer, options: WriteOptions = {}): Promise<boolean> {
    // A create must not shadow a committed value: the folder is asked first.
    if (options.ifAbsent && (await this.folder.modifiedAt(key)) !== null) return false;
    const wrote = await this.shared.write(key, data, options);
    if (wrote && this.local.has(recordKeyOf(key))) await this.folder.write(key, data);
    return wrote;
  }

  async remove(key: string): Promise<void> {
    await this.shared.remove(key);
  }

  async touch(key: string): Promise<void> {
    await (this.local.has(recordKeyOf(key)) ? this.folder : this.shared).touch(key);
  }

  async modifiedAt(key: string): Promise<Date | null> {
    return (await this.folder.modifiedAt(key)) ?? this.shared.modifiedAt(key);
  }

  async list(prefix: string): Promise<string[]> {
    const [committed, shared] = await Promise.all([this.folder.list(prefix), this.shared.list(prefix)]);
    return [...new Set([...committed, ...shared])].sort();
  }

  lock(key: string, options: LockOptions): Promise<Release> {
    return this.shared.lock(key, options);
  }
}

/**
 * A {@link Store} for device farms and CI shards: the committed storage folder first, a shared store
 * (a bucket) second; new values go to the shared store. Review them with `tapshot pull`.
 *
 * ```ts
 * import { configureAi, layeredStore } from "tapshot/runner";
 * import { s3Store } from "tapshot/s3";
 * configureAi({ store: layeredStore({ storageDir: "storage", shared: s3Store({ bucket: "team-tapshot" }) }) });
 * ```
 */
export function layeredStore(options: LayeredStoreOptions): LayeredStore {
  return new LayeredStore(new FileStore(options.storageDir ?? "storage"), options.shared);
}
