/**
 * A call that ended leaves nothing running (docs/device-farms.md, "Locks"), tested on the sequence a farm
 * meets, in one process: earlier calls end at their deadline while their own lease writes are stalled and
 * other requests are refused, and a learn then waiting on a lease that a dead run left still takes it over
 * once it has been stale for 10 s, within its timeout. The bucket is s3rver behind the replica of AWS's
 * precondition rules (tests/support/s3-replica.ts), with the fault proxy in front (tests/support/s3-faults.ts).
 */
import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { LEASE_STALE_MS } from "../../src/core/store/s3-lease.js";
import { s3Store } from "../../src/core/store/s3-store.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { checkoutScene, FakeDevice, fakeAdapter, fakeDriver } from "../support/fake-device.js";
import { useFaultyBucket, type FaultRequest } from "../support/s3-faults.js";
import { testClientConfig } from "../support/s3-replica.js";
import { locateOnDevice, ScriptedChannel } from "../support/scripted-channel.js";

const api = createPlatformApi(fakeAdapter());
const bucket = useFaultyBucket();
/** How long the earlier calls' lease writes stall before the service acts on them. */
const STALL_MS = 20_000;

/** S3's error answers (https://docs.aws.amazon.com/AmazonS3/latest/API/ErrorResponses.html). */
const s3Error = (code: string, message: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message>` +
  `<RequestId>faults</RequestId></Error>`;

/** One request the proxy saw. */
interface Seen {
  method: string;
  path: string;
  condition: "if-none-match" | "if-match" | "none";
  at: number;
}

const isLease = ({ url }: FaultRequest) => url.pathname.includes("/.locks/") && !url.pathname.includes(".probe-");
const isLeaseCreate = (request: FaultRequest) =>
  request.method === "PUT" && isLease(request) && request.headers["if-none-match"] !== undefined;

async function until(condition: () => boolean, ms: number): Promise<void> {
  const end = performance.now() + ms;
  while (!condition() && performance.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
}

afterEach(() => {
  resetAi();
  bucket.proxy.rule = () => undefined;
});

test("a learn takes over a dead lease within its timeout after earlier calls ended with stalled lease writes and refused requests", async () => {
  const device = new FakeDevice(checkoutScene());
  const logs: LogEntry[] = [];
  const client = new S3Client(testClientConfig(bucket.proxy.endpoint));
  const use = (prefix: string) =>
    configureAi({
      channel: new ScriptedChannel({ locate: locateOnDevice(device) }),
      store: s3Store({ bucket: bucket.s3.bucket, prefix, client }),
      resultsDir: false,
      log: (entry) => logs.push(entry),
    });

  // The lease object a learn of "the checkout button" takes, read off a learn under another prefix.
  let leaseOfLearn = "";
  bucket.proxy.rule = (request) => {
    if (isLeaseCreate(request)) leaseOfLearn = request.url.pathname.split("/_ai_/")[1]!;
    return undefined;
  };
  use(`runs/${randomUUID()}`);
  await api.tap(fakeDriver(device), "the checkout button", { timeout: 10_000 });
  expect(leaseOfLearn).toMatch(/^(.+\/)?\.locks\/.+\.lock$/);

  const prefix = `runs/${randomUUID()}`;
  use(prefix);
  // A dead run's lease: one plain PutObject, never refreshed.
  await new S3Client(testClientConfig(bucket.s3.endpoint)).send(
    new PutObjectCommand({ Bucket: bucket.s3.bucket, Key: `${prefix}/_ai_/${leaseOfLearn}`, Body: "a dead run\n" }),
  );

  const seen: Seen[] = [];
  const record = (request: FaultRequest) => {
    const condition = request.headers["if-none-match"]
      ? "if-none-match"
      : request.headers["if-match"]
        ? "if-match"
        : "none";
    seen.push({ method: request.method, path: request.url.pathname, condition, at: performance.now() });
  };
  const stalledLeases = new Set<string>();
  let clientsGone = 0;
  let stalledAnswered = 0;
  // Earlier calls: their record reads are refused (503 SlowDown, then 403 AccessDenied), ...
  bucket.proxy.rule = (request) => {
    record(request);
    if (request.method !== "GET" || isLease(request)) return undefined;
    return { kind: "answer", status: 503, body: s3Error("SlowDown", "Please reduce your request rate.") };
  };
  await expect(api.tap(fakeDriver(device), "the header bar", { timeout: 2000 })).rejects.toThrow();
  bucket.proxy.rule = (request) => {
    record(request);
    if (request.method !== "GET" || isLease(request)) return undefined;
    return { kind: "answer", status: 403, body: s3Error("AccessDenied", "Access Denied") };
  };
  await expect(api.tap(fakeDriver(device), "the header", { timeout: 2000 })).rejects.toThrow(/HTTP 403/);
  // ... and then four calls end at their deadline while their own lease writes stall; the service acts on them later.
  bucket.proxy.rule = (request) => {
    record(request);
    if (!isLeaseCreate(request) || request.url.pathname.endsWith(leaseOfLearn)) return undefined;
    stalledLeases.add(request.url.pathname);
    return {
      kind: "delay",
      ms: STALL_MS,
      onClientGone: () => clientsGone++,
      onAnswer: () => stalledAnswered++,
    };
  };
  const earlier = ["the header", "the top header", "the header strip", "the blue header"].map((prompt) =>
    api.tap(fakeDriver(device), prompt, { timeout: 2000 }),
  );
  for (const call of earlier) await expect(call).rejects.toMatchObject({ code: "timeout" });
  const earlierEnded = performance.now();
  // Each stalled request was aborted through the SDK when its call ended, not left waiting for an answer
  // (the proxy hears of the closed connections a moment later).
  await until(() => clientsGone === 4, 2000);
  expect(clientsGone).toBe(4);
  expect(stalledLeases.size).toBe(4);

  // The learn waits on the dead lease and takes it over once it stayed the same for the stale time.
  const started = performance.now();
  const learned = await api.tap(fakeDriver(device), "the checkout button", { timeout: 25_000 });
  const took = performance.now() - started;
  expect(learned.outcome).toBe("learned");
  expect(took).toBeGreaterThanOrEqual(LEASE_STALE_MS);
  expect(took).toBeLessThan(LEASE_STALE_MS + 5000);
  expect(seen.some((s) => s.method === "PUT" && s.condition === "if-match" && s.path.endsWith(leaseOfLearn))).toBe(
    true,
  );

  // Past the stalled writes' late landing and a refresh period after it, nothing of the earlier calls was sent
  // again: no refresh, takeover or retry of their leases.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, earlierEnded + STALL_MS + 3000 - performance.now())));
  expect(stalledAnswered).toBe(4);
  const later = seen.filter((s) => stalledLeases.has(s.path) && s.at > earlierEnded);
  expect(later).toEqual([]);
}, 60_000);
