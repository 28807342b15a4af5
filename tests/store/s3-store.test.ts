/**
 * What only the S3 store does: its layout in the bucket, the SDK wiring (real HTTP to s3rver), refusing
 * services without conditional writes, the weaker lease release, conditional replace, the requests a
 * replay costs, and single-flight learning across processes. The common contract is in contract.test.ts.
 */
import { randomUUID } from "node:crypto";
import { ListObjectsV2Command, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { ConfigError, StoreError } from "../../src/core/ground/errors.js";
import { redact } from "../../src/core/ground/secrets.js";
import { createRecord, readRecord, replaceRecord } from "../../src/core/store/record-io.js";
import { scopedStore } from "../../src/core/store/scoped-store.js";
import { BlobRecord, blobRecord, greyPng } from "../support/blob-records.js";
import { TapRecordSchema } from "../../src/core/store/tap-record.js";
import { s3Store } from "../../src/core/store/s3-store.js";
import { tapKey } from "../../src/core/store/keys.js";
import { S3RVER_CREDENTIALS, startTestS3, testClientConfig, type TestS3 } from "../support/s3-replica.js";
import { openStore, s3Spec } from "../support/store-workers/open-store.js";
import { startTogether } from "../support/store-workers/spawn.js";

let s3: TestS3;
let bare: TestS3;
let noDelete: TestS3;

beforeAll(async () => {
  [s3, bare, noDelete] = await Promise.all([
    startTestS3("s3"),
    startTestS3("none"),
    startTestS3("s3-without-conditional-delete"),
  ]);
});
afterAll(async () => {
  await Promise.all([s3.stop(), bare.stop(), noDelete.stop()]);
});

const client = (service: TestS3) => new S3Client(testClientConfig(service.endpoint));
const fresh = (service: TestS3, prefix = `runs/${randomUUID()}`) =>
  s3Store({ bucket: service.bucket, prefix, client: client(service) });

test("values live at <prefix>/_ai_/<key>, the layout of a storage folder", async () => {
  const prefix = `team/${randomUUID()}`;
  const store = fresh(s3, prefix);
  expect(store.location).toBe(`s3://${s3.bucket}/${prefix}/_ai_`);
  await store.write("taps/android/dev/a.json", Buffer.from("{}"));
  const listed = await client(s3).send(new ListObjectsV2Command({ Bucket: s3.bucket, Prefix: `${prefix}/` }));
  expect(listed.Contents?.map((o) => o.Key)).toEqual([`${prefix}/_ai_/taps/android/dev/a.json`]);
});

test("options built from region, endpoint, path style and credentials reach the service", async () => {
  const store = s3Store({
    bucket: s3.bucket,
    prefix: `runs/${randomUUID()}`,
    region: "us-east-1",
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: S3RVER_CREDENTIALS,
  });
  expect(await store.write("k.json", Buffer.from("x"), { ifAbsent: true })).toBe(true);
  expect((await store.read("k.json"))?.toString()).toBe("x");
});

test("a secret access key passed as an option is redacted everywhere tapshot prints", async () => {
  const secretAccessKey = `wrong-secret-${randomUUID()}`;
  const store = s3Store({
    bucket: s3.bucket,
    endpoint: s3.endpoint,
    forcePathStyle: true,
    region: "us-east-1",
    credentials: { accessKeyId: "NOT-AN-ACCOUNT", secretAccessKey },
  });
  const error = await store.read("k.json").catch((e: unknown) => e);
  expect(error).toBeInstanceOf(StoreError);
  expect((error as Error).message).toMatch(
    /Could not read s3:\/\/tapshot-test\/_ai_\/k\.json: .*HTTP 403.*Check that the credentials/,
  );
  expect((error as Error).message).not.toContain(secretAccessKey);
  expect(redact(`key ${secretAccessKey}`)).toBe("key [redacted]");
});

test.each([
  [{ bucket: "Team_Bucket" }, /bucket "Team_Bucket" is not a bucket name/],
  [{ bucket: "team", prefix: "/storage/" }, /prefix "\/storage\/" is not a folder path/],
  [{ bucket: "team", prefix: "a/../b" }, /prefix "a\/..\/b" is not a folder path/],
])("bad options %p are a ConfigError at construction", (options, message) => {
  expect(() => s3Store(options)).toThrow(ConfigError);
  expect(() => s3Store(options)).toThrow(message);
});

test("a service that ignores If-None-Match is refused before the first write or lock, and reads still work", async () => {
  const store = fresh(bare);
  await expect(store.write("k.json", Buffer.from("x"), { ifAbsent: true })).rejects.toThrow(
    /the service ignores If-None-Match: \*.*mode "replay"/,
  );
  await expect(store.lock("k", { deadline: Date.now() + 1000 })).rejects.toThrow(StoreError);
  expect(await store.read("k.json")).toBeNull();
  expect(await store.list("")).toEqual([]);
});

test("a service matching If-Match only on the unquoted ETag (Ceph RGW 16) gets it unquoted after the probe", async () => {
  const service = await startTestS3("unquoted-if-match");
  try {
    const store = fresh(service);
    await store.write("r.json", Buffer.from("v1"), { ifAbsent: true });
    await store.read("r.json");
    expect(await store.write("r.json", Buffer.from("v2"))).toBe(true);
    await (
      await store.lock("k", { deadline: Date.now() + 2000 })
    )();
    expect(await store.list("")).toEqual(["r.json"]);
  } finally {
    await service.stop();
  }
});

test("a service refusing If-Match even on its own ETag is refused before the first write", async () => {
  const service = await startTestS3("if-match-never");
  try {
    const store = fresh(service);
    await expect(store.write("k.json", Buffer.from("x"), { ifAbsent: true })).rejects.toThrow(
      /refuses If-Match even on the ETag it just gave .*quoted or not.*mode "replay"/,
    );
    expect(await store.list("")).toEqual([]);
  } finally {
    await service.stop();
  }
});

test("without conditional deletes, a lease is released only while it is still this run's", async () => {
  const store = fresh(noDelete);
  const release = await store.lock("k", { deadline: Date.now() + 2000 });
  await release();
  const again = await store.lock("k", { deadline: Date.now() + 2000 });
  await again();
  expect(await store.list("")).toEqual([]);
});

test("a lease a dead run left (one plain PutObject, never refreshed) is taken by each waiter in turn, on a service that answers 409 to overlapping conditional writes", async () => {
  // AWS's rules, 409 ConditionalRequestConflict included (tests/support/s3-replica.ts, "s3-conflicts").
  const aws = await startTestS3("s3-conflicts");
  try {
    const prefix = `runs/${randomUUID()}`;
    await client(aws).send(
      new PutObjectCommand({ Bucket: aws.bucket, Key: `${prefix}/_ai_/.locks/taps~a~k.lock`, Body: "a dead run\n" }),
    );
    const order: number[] = [];
    // Six waiters poll the same lease and try to take it at about the same time, so their writes overlap.
    const waiters = [0, 1, 2, 3, 4, 5].map(async (i) => {
      const release = await fresh(aws, prefix).lock("taps/a/k", { deadline: Date.now() + 25_000 });
      order.push(i);
      await new Promise((r) => setTimeout(r, 100));
      await release();
    });
    const results = await Promise.allSettled(waiters);
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    expect([...order].sort()).toEqual([0, 1, 2, 3, 4, 5]);
  } finally {
    await aws.stop();
  }
}, 40_000);

test("a record replaced by another run after this run read it is not overwritten", async () => {
  const prefix = `runs/${randomUUID()}`;
  const mine = fresh(s3, prefix);
  const theirs = fresh(s3, prefix);
  await mine.write("r.json", Buffer.from("v1"), { ifAbsent: true });
  expect((await mine.read("r.json"))?.toString()).toBe("v1");
  await theirs.read("r.json");
  await theirs.write("r.json", Buffer.from("their heal"));
  await expect(mine.write("r.json", Buffer.from("my heal"))).rejects.toThrow(
    /replaced by another run after this run read it/,
  );
  expect((await mine.read("r.json"))?.toString()).toBe("their heal");
  // Having read the current one, it may replace it.
  expect(await mine.write("r.json", Buffer.from("my heal"))).toBe(true);
});

test("a project's replay of a value of the older layout costs two more GETs, until its next write moves it", async () => {
  const store = fresh(s3);
  const key = "taps/android/dev/pair";
  const old = greyPng(30);
  await createRecord(store, key, blobRecord(old), old);
  const view = scopedStore(store, { project: "shop-team", app: "com.example.shop" });
  const gets = async (read: () => Promise<unknown>) => {
    const before = s3.requests.GET ?? 0;
    await read();
    return (s3.requests.GET ?? 0) - before;
  };
  // The project's own JSON and the app's without a project (both missing), then the older layout's JSON and image.
  expect(await gets(() => readRecord(view, key, BlobRecord))).toBe(4);
  const healed = greyPng(50);
  await replaceRecord(view, key, blobRecord(healed), healed, old);
  expect(await store.list("taps")).toEqual([]);
  // Moved: the project's record and image, as any replay.
  expect(await gets(() => readRecord(view, key, BlobRecord))).toBe(2);
});

describe("four processes learning one tap of a new device through one bucket", () => {
  test("make one model call; the others replay what it stored", async () => {
    const spec = s3Spec(s3.endpoint, s3.bucket, `runs/${randomUUID()}`);
    const workers = await startTogether("tap-learner.ts", () => [spec, "1500"], 4);
    const results = await Promise.all(
      workers.map((w) => w.result<{ outcome: string; aiCalls: number; modelRequests: number }>()),
    );
    expect(results.reduce((sum, r) => sum + r.modelRequests, 0)).toBe(1);
    expect(results.map((r) => r.outcome).sort()).toEqual(["learned", "replayed", "replayed", "replayed"]);

    // What a replay costs: the record and its image, two GETs, nothing written.
    const store = openStore(spec);
    const key = tapKey(
      "android",
      (await store.list("taps/android"))[0]!.split("/")[2]!,
      "the checkout button",
      undefined,
    );
    const before = { ...s3.requests };
    const stored = await readRecord(store, key, TapRecordSchema);
    expect(stored?.record.prompt).toBe("the checkout button");
    const delta = (kind: string) => (s3.requests[kind] ?? 0) - (before[kind] ?? 0);
    expect([delta("GET"), delta("PUT"), delta("HEAD"), delta("DELETE")]).toEqual([2, 0, 0, 0]);

    // A heal through the same store replaces the record conditionally on what it read.
    await replaceRecord(store, key, { ...stored!.record, reason: "healed" }, stored!.image, stored!.image);
    expect((await readRecord(store, key, TapRecordSchema))?.record.reason).toBe("healed");
  });
});
