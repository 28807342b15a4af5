/*
 * A store as one project and app see it (docs/storage.md, "Projects and apps"): every key a flow
 * passes, of any kind (`taps/`, `screenshots/`, `judgments/` and whatever comes next), lives under
 * the scope's folder `projects/<project>/apps/<app>/`, and so do its locks. Reads fall back to the
 * folders of older layouts (the same app without a project, then `_ai_/` itself); a record read
 * there is moved by its next write: its images are copied first when the write does not bring
 * them, the JSON (the commit point) is written, then the old copy is removed, JSON first.
 */
import { recordKeyOf, scopeFolders, type StoreScope } from "./keys.js";
import type { LockOptions, ReadOptions, Release, Store, WriteOptions } from "./store.js";

/** Options of {@link scopedStore}. */
export interface ScopedStoreOptions extends StoreScope {
  /**
   * Read values stored under the older layouts when the scope has none (default true): see
   * docs/storage.md for when a shared store should not.
   */
  readOldLayout?: boolean;
}

const RECORD_FILES = [".json", ".png", ".previous.png"];

/** {@link Store} scoped to a project and app; build it with {@link scopedStore}. */
export class ScopedStore implements Store {
  readonly location: string;
  /** The scope's own folder: every write and lock goes here. */
  private readonly own: string;
  /** Records (key without extension) whose JSON was read from an older layout's folder, by that folder. */
  private readonly movable = new Map<string, string>();

  constructor(
    readonly inner: Store,
    /** The folders read, the scope's own first. */
    private readonly folders: readonly string[],
  ) {
    this.own = folders[0]!;
    this.location = `${inner.location}/${this.own}`;
  }

  private at(folder: string, key: string): string {
    return folder ? `${folder}/${key}` : key;
  }

  /** The folder a key's record was read from; the scope's own when it was not read from an older one. */
  private folderOf(key: string): string {
    return this.movable.get(recordKeyOf(key)) ?? this.own;
  }

  /** Where `key` is in the inner store: in the folder its record was read from, else in the scope's own. */
  keyOf(key: string): string {
    return this.at(this.folderOf(key), key);
  }

  async read(key: string, options: ReadOptions = {}): Promise<Buffer | null> {
    const record = recordKeyOf(key);
    // A record's images come from the folder its JSON came from, so a pair never mixes layouts.
    if (!key.endsWith(".json") && this.movable.has(record))
      return this.inner.read(this.at(this.folderOf(key), key), options);
    for (const folder of this.folders) {
      const data = await this.inner.read(this.at(folder, key), options);
      if (!data) continue;
      if (key.endsWith(".json")) {
        if (folder === this.own) this.movable.delete(record);
        else this.movable.set(record, folder);
      }
      return data;
    }
    if (key.endsWith(".json")) this.movable.delete(record);
    return null;
  }

  async write(key: string, data: Buffer, options: WriteOptions = {}): Promise<boolean> {
    // A create must not shadow a value an older layout holds.
    if (options.ifAbsent && (await this.modifiedAt(key)) !== null) return false;
    const record = recordKeyOf(key);
    const old = this.movable.get(record);
    if (old !== undefined && key.endsWith(".json")) await this.copyImages(record, old);
    const wrote = await this.inner.write(this.at(this.own, key), data, options);
    if (wrote && old !== undefined && key.endsWith(".json")) {
      for (const suffix of RECORD_FILES) await this.inner.remove(this.at(old, `${record}${suffix}`));
      this.movable.delete(record);
    }
    return wrote;
  }

  /** Copy the images of `record` from folder `old` that the scope's folder lacks (a JSON-only rewrite). */
  private async copyImages(record: string, old: string): Promise<void> {
    for (const suffix of RECORD_FILES.slice(1)) {
      const file = `${record}${suffix}`;
      if ((await this.inner.modifiedAt(this.at(this.own, file))) !== null) continue;
      const data = await this.inner.read(this.at(old, file));
      if (data) await this.inner.write(this.at(this.own, file), data);
    }
  }

  async remove(key: string): Promise<void> {
    for (const folder of this.folders) await this.inner.remove(this.at(folder, key));
  }

  async touch(key: string): Promise<void> {
    await this.inner.touch(this.at(this.folderOf(key), key));
  }

  async modifiedAt(key: string): Promise<Date | null> {
    for (const folder of this.folders) {
      const at = await this.inner.modifiedAt(this.at(folder, key));
      if (at) return at;
    }
    return null;
  }

  async list(prefix: string): Promise<string[]> {
    const lists = await Promise.all(
      this.folders.map(async (folder) => {
        const keys = await this.inner.list(this.at(folder, prefix));
        return folder ? keys.map((key) => key.slice(folder.length + 1)) : keys;
      }),
    );
    return [...new Set(lists.flat())].sort();
  }

  lock(key: string, options: LockOptions): Promise<Release> {
    return this.inner.lock(this.at(this.own, key), options);
  }
}

/**
 * `store` as the given project and app see it; `store` itself when neither is known (the layout of
 * older versions).
 */
export function scopedStore(store: Store, options: ScopedStoreOptions): Store {
  const folders = scopeFolders(options, { readOldLayout: options.readOldLayout ?? true });
  return folders[0] ? new ScopedStore(store, folders) : store;
}
