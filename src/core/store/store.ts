/*
 * The storage seam. Keys are `/`-separated paths relative to `<storageDir>/_ai_/`,
 * e.g. `taps/android/google-pixel-7_14/the-checkout-button-1a2b3c4d5e.json`.
 * The filesystem implementation is {@link FileStore}; an object-storage backend for
 * device farms implements the same interface.
 */

/** Releases a lock taken with {@link Store.lock}. */
export type Release = () => Promise<void>;

/** Options for {@link Store.write}. */
export interface WriteOptions {
  /**
   * Only create: when the key already exists, write nothing and return `false`.
   * The check and the write are one atomic step, so two writers never both win.
   */
  ifAbsent?: boolean;
}

/** Options for {@link Store.read}. */
export interface ReadOptions {
  /** The call's deadline or abort: a store that reads over the network stops the request when it aborts. */
  signal?: AbortSignal;
}

/** Options for {@link Store.lock}. */
export interface LockOptions {
  /** Give up waiting at this time (ms since epoch). */
  deadline: number;
  signal?: AbortSignal;
}

/** Team storage for stored taps and baselines. */
export interface Store {
  /** A human-readable location, for messages (a directory, a bucket URL). */
  readonly location: string;
  /** The bytes at `key`, or `null` when nothing is stored there. */
  read(key: string, options?: ReadOptions): Promise<Buffer | null>;
  /**
   * Write `data` at `key` atomically: a reader sees the old bytes or the new, never
   * a mix, even when the writer dies half-way. Returns whether it wrote.
   */
  write(key: string, data: Buffer, options?: WriteOptions): Promise<boolean>;
  /** Remove `key`; removing a missing key is not an error. */
  remove(key: string): Promise<void>;
  /**
   * Note that `key` was used now (a replay), without rewriting it. The filesystem
   * store sets the file's modification time: one syscall, no content change, so
   * git sees nothing. Best effort: a failure to set the time is ignored (a key the store
   * refuses, e.g. one behind a symbolic link, still throws).
   */
  touch(key: string): Promise<void>;
  /** When `key` was last written or touched; `null` when missing. */
  modifiedAt(key: string): Promise<Date | null>;
  /** All keys under `prefix` (a folder path, no trailing slash), sorted. */
  list(prefix: string): Promise<string[]>;
  /**
   * Take an exclusive lock named `key`, across processes and machines sharing the
   * store. Waits until the lock is free, the deadline passes, or the signal aborts.
   */
  lock(key: string, options: LockOptions): Promise<Release>;
}
