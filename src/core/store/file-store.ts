import { promises as fs, type Dirent } from "node:fs";
import path from "node:path";
import lockfile from "proper-lockfile";
import { AbortedError, StoreError, TimeoutError } from "../ground/errors.js";
import { sleep } from "../ground/deadline.js";
import { lockKey, storeKeyParts } from "./keys.js";
import { leftByDeadWriter, recordKeyOfTemp, STALE_TEMP_MS, tempPathFor } from "./temp-files.js";
import type { LockOptions, Release, Store, WriteOptions } from "./store.js";

const LOCK_POLL_MS = 50;
/** A lock whose holder stopped refreshing it for this long is considered abandoned. */
const LOCK_STALE_MS = 10_000;
export { STALE_TEMP_MS };

/** A file or folder that {@link FileStore.scan} did not enter or return, and why. */
export interface Skipped {
  /** Its path relative to the `_ai_` folder. */
  key: string;
  file: string;
  problem: string;
}

/** Everything under a prefix: keys, temp files (never keys) and what was skipped. */
export interface Scan {
  keys: string[];
  /** Temp files of writes that are under way or were interrupted. */
  temp: string[];
  skipped: Skipped[];
}

/** What an errno means for a storage user. */
const CAUSES: Record<string, string> = {
  ENOSPC: "the disk is full",
  EDQUOT: "the disk quota is used up",
  EROFS: "the storage is read-only",
  EACCES: "permission denied",
  EPERM: "permission denied",
};
const NOT_WRITABLE = new Set(["EROFS", "EACCES", "EPERM"]);
const REPLAY_HINT =
  'Learning stores new values there; to run on storage that cannot be written, use mode "replay", which needs no writes.';

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

/** A StoreError naming the file and, in plain words, the cause. */
function failure(action: string, file: string, error: unknown): StoreError {
  if (error instanceof StoreError) return error;
  const code = codeOf(error);
  const cause = code && CAUSES[code];
  let message = cause
    ? `Could not ${action} ${file}: ${cause} (${code}).`
    : `Could not ${action} ${file}: ${(error as Error).message}`;
  if (action === "write" && code && (code === "ENOSPC" || code === "EDQUOT")) {
    message += " The stored value is unchanged; free some space and run again.";
  } else if (action === "write" && code && NOT_WRITABLE.has(code)) {
    message += ` ${REPLAY_HINT}`;
  }
  return new StoreError(message, { cause: error });
}

/** The signal's own reason when it is tapshot's (a deadline is a timeout, not an abort), else an abort. */
function lockAborted(signal: AbortSignal, key: string): Error {
  if (signal.reason instanceof TimeoutError || signal.reason instanceof AbortedError) return signal.reason;
  return new AbortedError(`Aborted while waiting for the lock on ${key}.`, { cause: signal.reason });
}

/** {@link Store} over a directory: `<storageDir>/_ai_/<key>`. */
export class FileStore implements Store {
  /** The `_ai_` directory every key lives under. */
  readonly root: string;
  readonly location: string;
  private resolvedRoot: string | undefined;
  /** The whole store was swept of stale temp files by this instance's first write. */
  private sweptAll = false;

  constructor(storageDir: string) {
    this.root = path.resolve(storageDir, "_ai_");
    this.location = this.root;
  }

  private pathOf(key: string): string {
    return path.join(this.root, ...storeKeyParts(key));
  }

  /**
   * The path of `key`, after checking that no existing part of it below the root is a symbolic link.
   * The root itself (or a folder above it) may be a link, e.g. a storage folder on a mounted disk. Links
   * below the root are refused even when they point inside it: one key is then always one file, listing
   * needs no cycle checks, and prune never removes anything it reached through a link (docs/storage.md).
   */
  private async checkedPath(key: string): Promise<string> {
    const target = this.pathOf(key);
    let current = this.root;
    for (const part of key.split("/")) {
      current = path.join(current, part);
      const stat = await fs.lstat(current).catch((error: unknown) => {
        if (codeOf(error) === "ENOENT" || codeOf(error) === "ENOTDIR") return null;
        throw failure("read", current, error);
      });
      if (!stat) break; // the rest does not exist yet
      if (stat.isSymbolicLink()) throw await this.linkError(current);
    }
    return target;
  }

  /** The root with every link resolved; resolved once it exists. */
  private async realRoot(): Promise<string> {
    if (this.resolvedRoot) return this.resolvedRoot;
    try {
      this.resolvedRoot = await fs.realpath(this.root);
      return this.resolvedRoot;
    } catch {
      return this.root;
    }
  }

  private async linkError(link: string): Promise<StoreError> {
    const target = await fs.readlink(link).catch(() => "");
    const resolved = path.resolve(path.dirname(link), target);
    const real = await fs.realpath(resolved).catch(() => resolved);
    const root = await this.realRoot();
    const where = real === root || real.startsWith(root + path.sep) ? "inside" : "outside";
    return new StoreError(
      `${link} is a symbolic link to ${resolved} (${where} the storage folder ${this.root}). tapshot does not ` +
        `follow links below ${this.root}, so it neither writes, reads nor deletes through it. Replace the link ` +
        `with a real folder: remove the link and move what it points to into a folder of that name.`,
    );
  }

  async read(key: string): Promise<Buffer | null> {
    const file = await this.checkedPath(key);
    try {
      return await fs.readFile(file);
    } catch (error) {
      if (codeOf(error) === "ENOENT") return null;
      throw failure("read", file, error);
    }
  }

  async write(key: string, data: Buffer, options: WriteOptions = {}): Promise<boolean> {
    const target = await this.checkedPath(key);
    await fs.mkdir(path.dirname(target), { recursive: true }).catch((error: unknown) => {
      throw failure("write", target, error);
    });
    await this.sweepBefore(key);
    // The temp file lives beside the target so that rename/link stay on one filesystem.
    const temp = tempPathFor(target);
    try {
      await writeTemp(temp, data);
      return await commit(temp, target, options.ifAbsent ?? false);
    } catch (error) {
      throw failure("write", target, error);
    } finally {
      // After a rename nothing is left; after a link or a failure the temp file goes. If even this fails
      // (the storage went read-only), `tapshot prune` sweeps it later.
      await fs.rm(temp, { force: true }).catch(() => undefined);
    }
  }

  async remove(key: string): Promise<void> {
    const file = await this.checkedPath(key);
    await this.sweepBefore(key);
    await fs.rm(file, { force: true }).catch((error: unknown) => {
      throw failure("remove", file, error);
    });
  }

  async touch(key: string): Promise<void> {
    const file = await this.checkedPath(key);
    const now = new Date();
    await fs.utimes(file, now, now).catch(() => undefined);
  }

  async modifiedAt(key: string): Promise<Date | null> {
    const file = await this.checkedPath(key);
    try {
      return (await fs.stat(file)).mtime;
    } catch (error) {
      if (codeOf(error) === "ENOENT") return null;
      throw failure("read", file, error);
    }
  }

  async list(prefix: string): Promise<string[]> {
    return (await this.scan(prefix)).keys;
  }

  /** Keys under `prefix` like {@link list}, with the temp files and the links it did not follow. */
  async scan(prefix: string): Promise<Scan> {
    const base = prefix ? await this.checkedPath(prefix) : this.root;
    const scan: Scan = { keys: [], temp: [], skipped: [] };
    await this.walk(base, scan);
    scan.keys.sort();
    scan.temp.sort();
    scan.skipped.sort((a, b) => a.key.localeCompare(b.key));
    return scan;
  }

  private keyOf(file: string): string {
    return path.relative(this.root, file).split(path.sep).join("/");
  }

  private async walk(dir: string, scan: Scan): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (error) {
      // Another process may remove a folder while it is listed.
      if (codeOf(error) === "ENOENT" || codeOf(error) === "ENOTDIR") return;
      throw failure("list", dir, error);
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isSymbolicLink()) {
        const { message } = await this.linkError(full);
        scan.skipped.push({ key: this.keyOf(full), file: full, problem: message });
      } else if (entry.isDirectory()) {
        if (entry.name !== ".locks") await this.walk(full, scan);
      } else if (entry.isFile()) {
        (entry.name.endsWith(".tmp") ? scan.temp : scan.keys).push(this.keyOf(full));
      }
    }
  }

  /**
   * Remove stale temp files, left by writers that died or could not clean up: one whose writer was a
   * process of this machine that no longer runs, and one older than `olderThanMs` (see {@link STALE_TEMP_MS})
   * whose record is not locked by a live run (the rules of temp-files.ts). Only under `prefix` when
   * given. Returns their keys; with `dryRun`, removes nothing.
   */
  async sweepTemp(options: { olderThanMs?: number; dryRun?: boolean; prefix?: string } = {}): Promise<string[]> {
    const cutoff = Date.now() - (options.olderThanMs ?? STALE_TEMP_MS);
    const stale: string[] = [];
    for (const key of (await this.scan(options.prefix ?? "")).temp) {
      const file = await this.checkedPath(key);
      const stat = await fs.lstat(file).catch(() => null);
      if (!stat?.isFile()) continue;
      const old = stat.mtimeMs < cutoff && !(await this.lockHeld(recordKeyOfTemp(key)));
      if (!old && !leftByDeadWriter(path.basename(file))) continue;
      if (!options.dryRun) {
        await fs.rm(file, { force: true }).catch((error: unknown) => {
          throw failure("remove", file, error);
        });
      }
      stale.push(key);
    }
    return stale;
  }

  /**
   * Before a write or a remove: the first one of this store sweeps the whole store, later ones the folder
   * they change, so a run killed mid-write leaves nothing the next command that changes the store does not remove. A sweep that
   * fails never fails the write; `tapshot prune` reports what it cannot remove.
   */
  private async sweepBefore(key: string): Promise<void> {
    const folder = key.split("/").slice(0, -1).join("/");
    const prefix = this.sweptAll ? folder : "";
    this.sweptAll = true;
    await this.sweepTemp({ prefix }).catch(() => undefined);
  }

  /**
   * Whether a live run holds the lock of `key` (proper-lockfile's check: held and refreshed within the stale
   * time); a lock that cannot be checked counts as held, so its temp files are kept.
   */
  private async lockHeld(key: string): Promise<boolean> {
    const lockPath = this.pathOf(lockKey(key));
    return lockfile
      .check(lockPath, { realpath: false, lockfilePath: lockPath, stale: LOCK_STALE_MS })
      .catch(() => true);
  }

  async lock(key: string, { deadline, signal }: LockOptions): Promise<Release> {
    const lockPath = await this.checkedPath(lockKey(key));
    await fs.mkdir(path.dirname(lockPath), { recursive: true }).catch((error: unknown) => {
      throw this.lockFailure(key, lockPath, error);
    });
    for (;;) {
      if (signal?.aborted) throw lockAborted(signal, key);
      try {
        const release = await lockfile.lock(lockPath, {
          realpath: false,
          lockfilePath: lockPath,
          stale: LOCK_STALE_MS,
          update: LOCK_STALE_MS / 4,
          retries: 0,
          // proper-lockfile's default throws from a timer, which would crash the test process. A compromised
          // lock (its directory removed, or reclaimed after the holder stalled past the stale time) only
          // weakens "learn once": the holder's writes are still atomic, so it carries on.
          onCompromised: () => undefined,
        });
        return async () => {
          await release().catch(() => undefined);
        };
      } catch (error) {
        if (codeOf(error) !== "ELOCKED") throw this.lockFailure(key, lockPath, error);
      }
      if (Date.now() >= deadline) {
        throw new TimeoutError(
          `Timed out waiting for another run to finish learning ${key} (lock ${lockPath}). ` +
            `If no run is active, the lock is stale and is reclaimed after ${LOCK_STALE_MS / 1000} s.`,
        );
      }
      await sleep(LOCK_POLL_MS, signal);
    }
  }

  private lockFailure(key: string, lockPath: string, error: unknown): StoreError {
    const code = codeOf(error);
    if (!code || !NOT_WRITABLE.has(code)) return failure("lock", lockPath, error);
    const what = code === "EROFS" ? "is read-only" : "is not writable by this user";
    return new StoreError(
      `Could not take the lock on ${key}: the storage ${this.root} ${what} (${code}). ${REPLAY_HINT}`,
      { cause: error },
    );
  }
}

/** Write and flush `data` to a new file at `temp`. */
async function writeTemp(temp: string, data: Buffer): Promise<void> {
  const handle = await fs.open(temp, "wx");
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    throw error;
  }
  await handle.close();
}

/** Put the flushed `temp` file in place at `target`; with `ifAbsent`, only when nothing is there. */
async function commit(temp: string, target: string, ifAbsent: boolean): Promise<boolean> {
  if (!ifAbsent) {
    await fs.rename(temp, target);
    return true;
  }
  // link() fails with EEXIST when the target exists: an atomic create-if-absent.
  try {
    await fs.link(temp, target);
    return true;
  } catch (error) {
    if (codeOf(error) === "EEXIST") return false;
    throw error;
  }
}
