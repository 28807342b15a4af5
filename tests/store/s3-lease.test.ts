/**
 * A lease call that ended leaves nothing behind (docs/device-farms.md, "Locks"): a lease write whose
 * answer arrives after its call's deadline or abort is deleted at once and never refreshed, so the next
 * run's waiter is not kept waiting on a lease nobody holds; a refresh that stalls does not hold up the
 * release. The bucket here is tapshot's own seam to S3 (S3Objects) recording each request; the real
 * service's side of leases is tested in s3-store.test.ts and s3-ceph.test.ts.
 */
import { TimeoutError } from "../../src/core/ground/errors.js";
import { PRECONDITION_FAILED, type S3Objects } from "../../src/core/store/s3-objects.js";
import { takeLease } from "../../src/core/store/s3-lease.js";

/** A bucket of one lease object that records requests; `answerAfterAbort` makes a create answer once its signal aborted. */
function leaseBucket(options: { answerAfterAbort?: boolean; stallRefresh?: boolean } = {}) {
  const requests: string[] = [];
  let etag: string | null = null;
  let n = 0;
  const objects = {
    url: (key: string) => `s3://bucket/${key}`,
    async put(
      _key: string,
      _body: Buffer,
      condition: { ifNoneMatch?: string; ifMatch?: string },
      signal?: AbortSignal,
    ) {
      requests.push(condition.ifNoneMatch ? "create" : `put if-match ${condition.ifMatch}`);
      if (condition.ifNoneMatch && options.answerAfterAbort) {
        // The service created the lease; its answer reaches the client only after the call ended.
        await new Promise((resolve) => signal?.addEventListener("abort", resolve, { once: true }));
        return (etag = `e${++n}`);
      }
      if (condition.ifMatch && options.stallRefresh) {
        // A stalled request ends only when its signal aborts it; one sent without a signal never does.
        await new Promise((_resolve, reject) => signal?.addEventListener("abort", () => reject(signal.reason)));
      }
      if (condition.ifNoneMatch && etag) return PRECONDITION_FAILED;
      if (condition.ifMatch && condition.ifMatch !== etag) return PRECONDITION_FAILED;
      return (etag = `e${++n}`);
    },
    async head() {
      requests.push("head");
      return etag ? { etag, lastModified: new Date() } : null;
    },
    async delete(_key: string, condition: { ifMatch?: string } = {}) {
      requests.push(`delete if-match ${condition.ifMatch}`);
      if (condition.ifMatch && condition.ifMatch !== etag) return PRECONDITION_FAILED;
      etag = null;
      return "deleted" as const;
    },
  };
  return { objects: objects as unknown as S3Objects, requests, lease: () => etag };
}

test("a lease written after its call's deadline is deleted at once, never refreshed", async () => {
  const bucket = leaseBucket({ answerAfterAbort: true });
  const deadline = new AbortController();
  setTimeout(() => deadline.abort(new TimeoutError("the call's deadline passed")), 50);
  const taking = takeLease(bucket.objects, ".locks/k.lock", "taps/k", "conditional", {
    deadline: Date.now() + 50,
    signal: deadline.signal,
  });
  await expect(taking).rejects.toThrow(TimeoutError);
  expect(bucket.requests).toEqual(["create", "delete if-match e1"]);
  expect(bucket.lease()).toBeNull();
  // Past a refresh period nothing more is sent: no timer holds a lease for a call that ended.
  await new Promise((resolve) => setTimeout(resolve, 2_700));
  expect(bucket.requests).toEqual(["create", "delete if-match e1"]);
});

test("a refresh that stalls is given up, and the release still deletes the lease", async () => {
  const bucket = leaseBucket({ stallRefresh: true });
  const release = await takeLease(bucket.objects, ".locks/k.lock", "taps/k", "conditional", {
    deadline: Date.now() + 30_000,
  });
  await new Promise((resolve) => setTimeout(resolve, 2_600)); // the first refresh is sent and stalls
  await release();
  expect(bucket.requests).toEqual(["create", "put if-match e1", "delete if-match e1"]);
  expect(bucket.lease()).toBeNull();
}, 15_000);
