/*
 * The file store's temp files (a write goes to one beside its target, then is renamed into place), and
 * when one is stale. A temp file's name says which process on which machine wrote it, so a later
 * write can tell one a killed process left behind (removed at once: a dead process never renames it)
 * from one a live writer is filling (kept). A writer of another machine, or one whose name predates
 * this, is judged by age alone: no live writer leaves its temp file unrenamed for an hour.
 */
import { createHash, randomBytes } from "node:crypto";
import { readFileSync, readlinkSync } from "node:fs";
import os from "node:os";

/**
 * A temp file this old was left by a writer that died or failed: a live writer renames its temp file within
 * moments of creating it. An age works for stores shared by several machines, where a pid says nothing.
 */
export const STALE_TEMP_MS = 60 * 60 * 1000;

let machine: string | undefined;

/**
 * This machine as its processes see it: host name, boot and pid namespace (Linux), hashed to 8 hex digits.
 * Two containers may share a host name and a storage volume but not a pid namespace, and a pid of
 * another namespace or an earlier boot says nothing here.
 */
function machineTag(): string {
  machine ??= createHash("sha256")
    .update(
      [
        os.hostname(),
        readOr(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim()),
        readOr(() => readlinkSync("/proc/self/ns/pid")),
      ].join("\n"),
    )
    .digest("hex")
    .slice(0, 8);
  return machine;
}

function readOr(read: () => string): string {
  try {
    return read();
  } catch {
    return "";
  }
}

/** The temp file a write of `target` fills first: `<target>.<pid>-<machine>.<random>.tmp`. */
export function tempPathFor(target: string): string {
  return `${target}.${process.pid}-${machineTag()}.${randomBytes(4).toString("hex")}.tmp`;
}

const WRITER = /\.(\d+)-([0-9a-f]{8})\.[0-9a-f]{8}\.tmp$/;

/**
 * Whether the temp file `name` was written by a process of this machine that no longer runs. `false`
 * when that cannot be known: another machine's file, an older name, this process, or a pid that runs
 * (perhaps reused by another process: then the age rule removes it later).
 */
export function leftByDeadWriter(name: string): boolean {
  const match = WRITER.exec(name);
  if (!match || match[2] !== machineTag()) return false;
  const pid = Number(match[1]);
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** The record key a temp file belongs to, the key its writer locks: `taps/a/b.json.1-ab.cd.tmp` -> `taps/a/b`. */
export function recordKeyOfTemp(tempKey: string): string {
  return tempKey.replace(/\.[^./]+\.[^./]+\.tmp$/, "").replace(/(\.previous)?\.(png|json)$/, "");
}
