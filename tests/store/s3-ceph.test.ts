/**
 * What Ceph's RADOS Gateway 16 (a real S3 implementation, started here by tests/support/ceph-rgw.ts) does
 * differently from AWS S3 for what the S3 store uses, each raw difference checked on the wire, and that the
 * store works on it anyway: races on create and on compare-and-swap have exactly one winner, leases are
 * released without conditional deletes, and listings page. docs/device-farms.md lists the differences.
 */
import { randomUUID } from "node:crypto";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { StoreError } from "../../src/core/ground/errors.js";
import { s3Store, type S3Store } from "../../src/core/store/s3-store.js";
import { cephClientConfig, cephSkipped, startCephRgw, type CephRgw } from "../support/ceph-rgw.js";

let ceph: CephRgw;
let client: S3Client;

beforeAll(async () => {
  if (cephSkipped) return;
  ceph = await startCephRgw();
  client = new S3Client(cephClientConfig(ceph.endpoint));
}, 120_000);
afterAll(async () => {
  client?.destroy();
  await ceph?.stop();
});

const statusOf = (error: unknown) => (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
const put = (Key: string, body: string, extra: { IfMatch?: string; IfNoneMatch?: string } = {}) =>
  client.send(new PutObjectCommand({ Bucket: ceph.bucket, Key, Body: Buffer.from(body), ...extra }));
/** A store on its own client, whose listings ask for `pageSize` keys a page so that they follow the service's tokens. */
function store(prefix: string, pageSize?: number): S3Store {
  const own = new S3Client(cephClientConfig(ceph.endpoint));
  if (pageSize) {
    own.middlewareStack.add(
      (next) => (args) => {
        const input = args.input as { MaxKeys?: number; ContinuationToken?: string; ListType?: unknown };
        if ("ContinuationToken" in input || "Prefix" in input) input.MaxKeys ??= pageSize;
        return next(args);
      },
      { step: "initialize" },
    );
  }
  return s3Store({ bucket: ceph.bucket, prefix, client: own });
}

const maybe = cephSkipped ? describe.skip : describe;

maybe("Ceph RGW 16 on the wire", () => {
  test("If-Match on PutObject matches only the unquoted ETag, though the ETag is sent quoted", async () => {
    const key = `wire/${randomUUID()}`;
    const { ETag } = await put(key, "1");
    expect(ETag).toMatch(/^"[0-9a-f]{32}"$/);
    const quoted = await put(key, "2", { IfMatch: ETag }).catch((e: unknown) => e);
    expect(statusOf(quoted)).toBe(412);
    await expect(put(key, "3", { IfMatch: ETag!.replace(/"/g, "") })).resolves.toBeDefined();
  });

  test("If-Match on a missing key is 412 (AWS: 404 NoSuchKey); If-None-Match: * on an existing key is 412", async () => {
    const missing = await put(`wire/${randomUUID()}`, "1", { IfMatch: "0" }).catch((e: unknown) => e);
    expect(statusOf(missing)).toBe(412);
    const key = `wire/${randomUUID()}`;
    await put(key, "1", { IfNoneMatch: "*" });
    expect(statusOf(await put(key, "2", { IfNoneMatch: "*" }).catch((e: unknown) => e))).toBe(412);
  });

  test("DeleteObject ignores If-Match: a wrong ETag still deletes", async () => {
    const key = `wire/${randomUUID()}`;
    await put(key, "1");
    await client.send(new DeleteObjectCommand({ Bucket: ceph.bucket, Key: key, IfMatch: '"0"' }));
    const head = await client.send(new HeadObjectCommand({ Bucket: ceph.bucket, Key: key })).catch((e: unknown) => e);
    expect(statusOf(head)).toBe(404);
  });

  test("x-amz-checksum-crc32, which the SDK sends by default, is not checked, and no checksum comes back", async () => {
    const key = `wire/${randomUUID()}`;
    await client.send(
      new PutObjectCommand({ Bucket: ceph.bucket, Key: key, Body: Buffer.from("hello"), ChecksumCRC32: "AAAAAA==" }),
    );
    const got = await client.send(new GetObjectCommand({ Bucket: ceph.bucket, Key: key, ChecksumMode: "ENABLED" }));
    expect(await got.Body!.transformToString()).toBe("hello");
    expect(got.ChecksumCRC32).toBeUndefined();
  });

  test("ListObjectsV2 continuation tokens are the page's last key (AWS: opaque)", async () => {
    const prefix = `list/${randomUUID()}/`;
    for (let i = 0; i < 5; i++) await put(`${prefix}${i}`, "x");
    const first = await client.send(new ListObjectsV2Command({ Bucket: ceph.bucket, Prefix: prefix, MaxKeys: 2 }));
    expect(first.IsTruncated).toBe(true);
    expect(first.NextContinuationToken).toBe(first.Contents!.at(-1)!.Key);
  });
});

maybe("the S3 store on Ceph RGW 16", () => {
  test("replaces a record it read (If-Match goes unquoted after the probe) and lists across pages", async () => {
    const s = store(`runs/${randomUUID()}`, 3);
    expect(await s.write("r.json", Buffer.from("v1"), { ifAbsent: true })).toBe(true);
    expect((await s.read("r.json"))?.toString()).toBe("v1");
    expect(await s.write("r.json", Buffer.from("v2"))).toBe(true);
    expect(await s.write("r.json", Buffer.from("v3"))).toBe(true);
    expect((await s.read("r.json"))?.toString()).toBe("v3");
    for (let i = 0; i < 7; i++) await s.write(`taps/k${i}.json`, Buffer.from("x"));
    expect(await s.list("taps")).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => `taps/k${i}.json`));
  });

  test("a create race on one key has exactly one winner", async () => {
    const prefix = `runs/${randomUUID()}`;
    const stores = Array.from({ length: 8 }, () => store(prefix));
    // The probe first, so that the writes below meet at the service at once.
    await Promise.all(stores.map((s, i) => s.write(`probe-${i}.json`, Buffer.from("p"))));
    const won = await Promise.all(
      stores.map((s, i) => s.write("race.json", Buffer.from(`writer ${i}`), { ifAbsent: true })),
    );
    expect(won.filter(Boolean)).toHaveLength(1);
    expect((await stores[0]!.read("race.json"))?.toString()).toBe(`writer ${won.indexOf(true)}`);
  });

  test("a compare-and-swap race on one record has exactly one winner; the others are told to run again", async () => {
    const prefix = `runs/${randomUUID()}`;
    const stores = Array.from({ length: 8 }, () => store(prefix));
    await stores[0]!.write("cas.json", Buffer.from("v0"), { ifAbsent: true });
    for (const s of stores) expect((await s.read("cas.json"))?.toString()).toBe("v0");
    const outcomes = await Promise.all(
      stores.map((s, i) => s.write("cas.json", Buffer.from(`writer ${i}`)).catch((e: unknown) => e)),
    );
    const winners = outcomes.flatMap((outcome, i) => (outcome === true ? [i] : []));
    expect(winners).toHaveLength(1);
    for (const outcome of outcomes.filter((o) => o !== true)) {
      expect(outcome).toBeInstanceOf(StoreError);
      expect((outcome as Error).message).toMatch(/replaced by another run after this run read it/);
    }
    expect((await stores[0]!.read("cas.json"))?.toString()).toBe(`writer ${winners[0]}`);
  });

  test("a lease is released without conditional deletes and taken again; no lease object is left", async () => {
    const prefix = `runs/${randomUUID()}`;
    const s = store(prefix);
    await (
      await s.lock("k", { deadline: Date.now() + 5000 })
    )();
    await (
      await s.lock("k", { deadline: Date.now() + 5000 })
    )();
    const left = await client.send(new ListObjectsV2Command({ Bucket: ceph.bucket, Prefix: `${prefix}/` }));
    expect(left.KeyCount ?? 0).toBe(0);
  });
});
