import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import lockfile from "proper-lockfile";
import { AbortedError, StoreError, TimeoutError } from "../errors.js";
import { sleep } from "../deadline.js";
import type { LockOptions, Release, Store, WriteOptions } from "./store.js";

const LOCK_POLL_MS = 50;
/** A lock whose holder stopped refreshing it for this long is considered abandoned. */
const LOCK_STALE_MS = 10_000;

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

  constructor(storageDir: string) {
    this.root = path.resolve(storageDir, "_ai_");
    this.location = this.root;
  }

  private pathOf(key: string): string {
    const parts = key.split("/");
    if (!key || parts.some((p) => p === "" || p === "." || p === "..")) {
      throw new StoreError(`Invalid store key "${key}": use a relative path without "." or ".." segments.`);
    }
    return path.join(this.root, ...parts);
  }

  async read(key: string): Promise<Buffer | null> {
    try {
      return await fs.readFile(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw new StoreError(`Could not read ${this.pathOf(key)}: ${(error as Error).message}`, { cause: error });
    }
  }

  async write(key: string, data: Buffer, options: WriteOptions = {}): Promise<boolean> {
    const target = this.pathOf(key);
    await fs.mkdir(path.dirname(target), { recursive: true });
    // The temp file lives beside the target so that rename/link stay on one filesystem.
    const temp = `${target}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
    const handle = await fs.open(temp, "wx");
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    try {
      if (options.ifAbsent) {
        // link() fails with EEXIST when the target exists: an atomic create-if-absent.
        try {
          await fs.link(temp, target);
          return true;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
          throw error;
        }
      }
      await fs.rename(temp, target);
      return true;
    } finally {
      await fs.rm(temp, { force: true });
    }
  }

  async remove(key: string): Promise<void> {
    await fs.rm(this.pathOf(key), { force: true });
  }

  async touch(key: string): Promise<void> {
    const now = new Date();
    await fs.utimes(this.pathOf(key), now, now).catch(() => undefined);
  }

  async modifiedAt(key: string): Promise<Date | null> {
    try {
      return (await fs.stat(this.pathOf(key))).mtime;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
      throw error;
    }
  }

  async list(prefix: string): Promise<string[]> {
    const base = prefix ? this.pathOf(prefix) : this.root;
    let entries: string[];
    try {
      entries = await fs.readdir(base, { recursive: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw error;
    }
    const keys: string[] = [];
    for (const entry of entries) {
      if (entry.endsWith(".tmp") || entry.split(path.sep).includes(".locks")) continue;
      const full = path.join(base, entry);
      // Another process may remove a file between readdir and stat.
      const stat = await fs.stat(full).catch((error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return null;
        throw error;
      });
      if (stat?.isFile()) keys.push(path.relative(this.root, full).split(path.sep).join("/"));
    }
    return keys.sort();
  }

  async lock(key: string, { deadline, signal }: LockOptions): Promise<Release> {
    const lockPath = path.join(this.root, ".locks", `${key.replace(/\//g, "~")}.lock`);
    await fs.mkdir(path.dirname(lockPath), { recursive: true });
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
        if ((error as NodeJS.ErrnoException).code !== "ELOCKED") throw error;
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
}
