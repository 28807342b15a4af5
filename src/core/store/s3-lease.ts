/**
 * Locks in a bucket as lease objects (docs/device-farms.md): created with `If-None-Match: *`,
 * refreshed with `If-Match` on the holder's ETag, taken over with `If-Match` on the ETag a
 * waiter saw unchanged for the stale time, released with a conditional DeleteObject.
 * Staleness is judged on the waiter's own clock (how long one ETag stayed the same), so the
 * machines' clocks need not agree with each other or with the service.
 */
import { randomUUID } from "node:crypto";
import os from "node:os";
import { performance } from "node:perf_hooks";
import { AbortedError, TimeoutError } from "../ground/errors.js";
import { sleep } from "../ground/deadline.js";
import { isConflict, PRECONDITION_FAILED, type PutCondition, type S3Objects } from "./s3-objects.js";
import type { LockOptions, Release } from "./store.js";

/** A lease whose ETag stayed the same this long was abandoned by its holder (as the file store's 10 s). */
export const LEASE_STALE_MS = 10_000;
/** The holder rewrites its lease this often, well inside the stale time. */
const LEASE_REFRESH_MS = LEASE_STALE_MS / 4;
/** How often a waiter looks at the lease again: one HEAD request each time. */
const LEASE_POLL_MS = 200;

/** How a lease is released: `conditional` deletes only the holder's own ETag (the services that support it). */
export type LeaseRelease = "conditional" | "compare-then-delete";

/** The signal's own reason when it is tapshot's (a deadline is a timeout, not an abort), else an abort. */
function aborted(signal: AbortSignal, key: string): Error {
  if (signal.reason instanceof TimeoutError || signal.reason instanceof AbortedError) return signal.reason;
  return new AbortedError(`Aborted while waiting for the lock on ${key}.`, { cause: signal.reason });
}

/**
 * The lease body. Every write of it differs (the refresh count and time), because an unchanged body
 * would get an unchanged ETag (S3's ETag of a single-part upload is its MD5), and waiters would take a
 * lease that is being refreshed for an abandoned one.
 */
function leaseBody(owner: string, refresh: number): Buffer {
  return Buffer.from(
    JSON.stringify({ owner, host: os.hostname(), pid: process.pid, refresh, at: new Date().toISOString() }) + "\n",
  );
}

/** Why a lease was not taken by the deadline: another run holds it, or a dead run left it. */
function leaseTimeout(objects: S3Objects, object: string, key: string, cause?: unknown): TimeoutError {
  return new TimeoutError(
    `Timed out waiting for another run to finish learning ${key} (lease ${objects.url(object)}). ` +
      `If no run is active, the lease is stale and is taken over after ${LEASE_STALE_MS / 1000} s without a refresh.`,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Take the lease `object` for the store key `key`. A deadline that passes while a request or the
 * wait between polls is under way ends in the same TimeoutError as one seen between them.
 */
export async function takeLease(
  objects: S3Objects,
  object: string,
  key: string,
  release: LeaseRelease,
  { deadline, signal }: LockOptions,
): Promise<Release> {
  try {
    return await waitForLease({ objects, object, key, release }, { deadline, signal });
  } catch (error) {
    if (signal?.aborted && signal.reason instanceof TimeoutError) throw leaseTimeout(objects, object, key, error);
    throw error;
  }
}

/** The lease one lock call waits for: its object in the bucket, for which store key, and how it is let go. */
interface LeaseRequest {
  objects: S3Objects;
  object: string;
  key: string;
  release: LeaseRelease;
}

async function waitForLease(
  { objects, object, key, release }: LeaseRequest,
  { deadline, signal }: LockOptions,
): Promise<Release> {
  const owner = randomUUID();
  let seen: { etag: string; since: number } | undefined;
  for (;;) {
    if (signal?.aborted) throw aborted(signal, key);
    const created = await leaseWrite(objects, object, leaseBody(owner, 0), { ifNoneMatch: "*" }, signal);
    if (created !== PRECONDITION_FAILED) return holdIfWanted({ objects, object, key, release }, owner, created, signal);
    const current = await objects.head(object, signal);
    if (current) {
      const now = performance.now();
      if (seen?.etag !== current.etag) {
        seen = { etag: current.etag, since: now };
      } else if (now - seen.since >= LEASE_STALE_MS) {
        // Only one waiter's If-Match on the stale ETag succeeds; the others see the new ETag and wait again.
        // One that met a conflicting write (409) and sees the same stale ETag next time tries again at once.
        const taken = await leaseWrite(objects, object, leaseBody(owner, 0), { ifMatch: current.etag }, signal);
        if (taken !== PRECONDITION_FAILED) return holdIfWanted({ objects, object, key, release }, owner, taken, signal);
      }
    }
    if (Date.now() >= deadline) throw leaseTimeout(objects, object, key);
    if (current) await sleep(LEASE_POLL_MS, signal);
  }
}

/**
 * A create or takeover of the lease. A write that kept meeting another run's write of the lease (AWS's 409
 * ConditionalRequestConflict, which S3 answers while a conflicting operation is under way) did not get it
 * this time, as a 412 would say: the wait goes on, and looks at the lease again (AWS: fetch the ETag and
 * retry, https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html).
 */
async function leaseWrite(
  objects: S3Objects,
  object: string,
  body: Buffer,
  condition: PutCondition,
  signal: AbortSignal | undefined,
): Promise<string | typeof PRECONDITION_FAILED> {
  try {
    return await objects.put(object, body, condition, signal);
  } catch (error) {
    if (isConflict(error)) return PRECONDITION_FAILED;
    throw error;
  }
}

/**
 * Hold a lease just written, unless its call ended while the write was under way (a deadline or an
 * abort the service's answer outran): then nobody would use or release it, and its refreshes would
 * keep every other run waiting. It is deleted at once, and the call ends as it would have.
 */
async function holdIfWanted(
  { objects, object, key, release }: LeaseRequest,
  owner: string,
  etag: string,
  signal: AbortSignal | undefined,
): Promise<Release> {
  const held = hold(objects, object, owner, etag, release);
  if (!signal?.aborted) return held;
  await held();
  throw aborted(signal, key);
}

/** The longest one refresh or release request may take: a stalled one is given up and tried again at the next tick. */
const LEASE_REQUEST_MS = LEASE_REFRESH_MS;

/** Keep the lease fresh until released. A lease lost to a takeover (the holder stalled) is not refreshed again. */
function hold(objects: S3Objects, object: string, owner: string, etag: string, release: LeaseRelease): Release {
  let current: string | null = etag;
  let refreshes = 0;
  let refreshing: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    refreshing = refreshing.then(async () => {
      if (current === null) return;
      const next = await objects
        .put(object, leaseBody(owner, ++refreshes), { ifMatch: current }, AbortSignal.timeout(LEASE_REQUEST_MS))
        .catch(() => current ?? PRECONDITION_FAILED); // a failed or stalled refresh is tried again at the next tick
      // Taken over: only "learn once" weakens, since every write of a value is still conditional or atomic.
      current = next === PRECONDITION_FAILED ? null : next;
    });
  }, LEASE_REFRESH_MS);
  timer.unref();
  let released: Promise<void> | undefined;
  return () => {
    released ??= (async () => {
      clearInterval(timer);
      await refreshing;
      const mine = current;
      current = null;
      if (mine === null) return;
      // A release that cannot reach the service leaves a lease others take over once it is stale.
      const bounded = () => AbortSignal.timeout(LEASE_REQUEST_MS);
      if (release === "conditional") {
        await objects.delete(object, { ifMatch: mine }, bounded()).catch(() => undefined);
        return;
      }
      // Without conditional deletes: a takeover between this HEAD and the DELETE loses the taker's lease.
      const now = await objects.head(object, bounded()).catch(() => null);
      if (now?.etag === mine) await objects.delete(object, {}, bounded()).catch(() => undefined);
    })();
    return released;
  };
}
