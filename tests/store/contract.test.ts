/**
 * The Store contract: what the lifecycle relies on (docs/design.md sections 6 and 7), run with the same
 * code against the file store and the S3 store on two services: s3rver behind the precondition replica of
 * tests/support/s3-replica.ts, and Ceph's RADOS Gateway (tests/support/ceph-rgw.ts), a real S3
 * implementation with the SDK's default client settings. Multi-process cases run real worker processes on one store.
 */
import { randomUUID } from "node:crypto";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { AbortedError, StoreError, TimeoutError } from "../../src/core/ground/errors.js";
import { readRecord, replaceRecord, createRecord } from "../../src/core/store/record-io.js";
import type { Store } from "../../src/core/store/store.js";
import { scopedStore } from "../../src/core/store/scoped-store.js";
import { BlobRecord, blobRecord, greyPng } from "../support/blob-records.js";
import { cephSkipped, startCephRgw, type CephRgw } from "../support/ceph-rgw.js";
import { startTestS3, type TestS3 } from "../support/s3-replica.js";
import { openStore, s3Spec } from "../support/store-workers/open-store.js";
import { startTogether, startWorker } from "../support/store-workers/spawn.js";
import { identify } from "../support/store-workers/values.js";

/** Makes a fresh, empty store per test; `spec` opens the same store in a worker process. */
interface Harness {
  name: string;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  fresh(): Promise<string>;
  cleanup(): Promise<void>;
}

function fileHarness(): Harness {
  const dirs: string[] = [];
  return {
    name: "FileStore",
    setup: async () => undefined,
    teardown: async () => undefined,
    async fresh() {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-contract-"));
      dirs.push(dir);
      return dir;
    },
    async cleanup() {
      for (const dir of dirs.splice(0)) await fs.rm(dir, { recursive: true, force: true });
    },
  };
}

function s3Harness(): Harness {
  let s3: TestS3 | undefined;
  return {
    name: "S3Store",
    async setup() {
      s3 = await startTestS3("s3");
    },
    async teardown() {
      await s3?.stop();
    },
    fresh: async () => s3Spec(s3!.endpoint, s3!.bucket, `runs/${randomUUID()}`),
    cleanup: async () => undefined,
  };
}

function cephHarness(): Harness {
  let ceph: CephRgw | undefined;
  return {
    name: "S3Store on Ceph RGW",
    async setup() {
      ceph = await startCephRgw();
    },
    async teardown() {
      await ceph?.stop();
    },
    fresh: async () => s3Spec(ceph!.endpoint, ceph!.bucket, `runs/${randomUUID()}`, "ceph"),
    cleanup: async () => undefined,
  };
}

const harnesses = [fileHarness(), s3Harness(), ...(cephSkipped ? [] : [cephHarness()])];

describe.each(harnesses)("the Store contract: $name", (harness) => {
  let spec: string;
  let store: Store;

  beforeAll(() => harness.setup(), 120_000);
  afterAll(() => harness.teardown());
  beforeEach(async () => {
    spec = await harness.fresh();
    store = openStore(spec);
  });
  afterEach(() => harness.cleanup());

  describe("in one process", () => {
    test("read returns null for a missing key and the bytes written otherwise", async () => {
      expect(await store.read("a/b.json")).toBeNull();
      expect(await store.write("a/b.json", Buffer.from("one"))).toBe(true);
      expect((await store.read("a/b.json"))?.toString()).toBe("one");
      await store.write("a/b.json", Buffer.from("two"));
      expect((await store.read("a/b.json"))?.toString()).toBe("two");
    });

    test("ifAbsent writes only when the key is missing", async () => {
      expect(await store.write("k.json", Buffer.from("first"), { ifAbsent: true })).toBe(true);
      expect(await store.write("k.json", Buffer.from("second"), { ifAbsent: true })).toBe(false);
      expect((await store.read("k.json"))?.toString()).toBe("first");
      expect(await store.list("")).toEqual(["k.json"]);
    });

    test("remove deletes a key; removing a missing key is fine", async () => {
      await store.write("x/y.png", Buffer.from([1, 2, 3]));
      await store.remove("x/y.png");
      expect(await store.read("x/y.png")).toBeNull();
      await expect(store.remove("x/y.png")).resolves.toBeUndefined();
    });

    test("modifiedAt is set by a write and null for a missing key; touch never fails on one", async () => {
      await store.write("t.json", Buffer.from("same"));
      const written = await store.modifiedAt("t.json");
      expect(Number.isFinite(written?.getTime())).toBe(true);
      await store.touch("t.json");
      expect((await store.read("t.json"))?.toString()).toBe("same");
      await expect(store.touch("missing.json")).resolves.toBeUndefined();
      expect(await store.modifiedAt("missing.json")).toBeNull();
    });

    test("list returns the keys under a prefix, sorted, without locks", async () => {
      await store.write("taps/android/dev/b.json", Buffer.from("1"));
      await store.write("taps/android/dev/a.json", Buffer.from("1"));
      await store.write("taps/ios/dev/c.json", Buffer.from("1"));
      await store.write("screenshots/android/cart/dev.json", Buffer.from("1"));
      const release = await store.lock("taps/android/dev/a", { deadline: Date.now() + 5000 });
      try {
        expect(await store.list("taps/android")).toEqual(["taps/android/dev/a.json", "taps/android/dev/b.json"]);
        expect(await store.list("")).toEqual([
          "screenshots/android/cart/dev.json",
          "taps/android/dev/a.json",
          "taps/android/dev/b.json",
          "taps/ios/dev/c.json",
        ]);
        expect(await store.list("nothing/here")).toEqual([]);
        // A prefix is a folder: "taps/android/de" is not "taps/android/dev".
        expect(await store.list("taps/android/de")).toEqual([]);
      } finally {
        await release();
      }
    });

    test.each(["", "../outside.json", "a/../../b.json", "a//b.json", "./a.json", "a/"])(
      "key %p is refused with a StoreError",
      async (key) => {
        await expect(store.write(key, Buffer.from("x"))).rejects.toThrow(StoreError);
        await expect(store.read(key)).rejects.toThrow(/Invalid store key/);
      },
    );

    test("a second lock on a key waits for the release; locks on other keys do not", async () => {
      const release = await store.lock("k", { deadline: Date.now() + 5000 });
      const other = await store.lock("other", { deadline: Date.now() + 5000 });
      await other();
      const order: string[] = [];
      const second = store.lock("k", { deadline: Date.now() + 20_000 }).then((r) => {
        order.push("second locked");
        return r;
      });
      await new Promise((r) => setTimeout(r, 300));
      order.push("first releasing");
      await release();
      await (
        await second
      )();
      expect(order).toEqual(["first releasing", "second locked"]);
    });

    test("a waiter past its deadline gets a TimeoutError naming the key", async () => {
      const release = await store.lock("taps/android/dev/k", { deadline: Date.now() + 5000 });
      try {
        const error = await store.lock("taps/android/dev/k", { deadline: Date.now() + 300 }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(TimeoutError);
        expect((error as Error).message).toMatch(/waiting for another run to finish learning taps\/android\/dev\/k/);
        expect((error as Error).message).toMatch(/stale/);
      } finally {
        await release();
      }
    });

    test("a waiter whose signal aborts gets an AbortedError", async () => {
      const release = await store.lock("k", { deadline: Date.now() + 5000 });
      try {
        const controller = new AbortController();
        const waiting = store.lock("k", { deadline: Date.now() + 10_000, signal: controller.signal });
        setTimeout(() => controller.abort(), 100);
        await expect(waiting).rejects.toThrow(AbortedError);
      } finally {
        await release();
      }
    });

    test("releasing twice is harmless and the lock can be taken again", async () => {
      const release = await store.lock("k", { deadline: Date.now() + 1000 });
      await release();
      await release();
      await (
        await store.lock("k", { deadline: Date.now() + 1000 })
      )();
    });
  });

  describe("record and image pairs", () => {
    const key = "taps/android/dev/pair";

    test("a record is read with its own image; createRecord never overwrites one", async () => {
      const image = greyPng(10);
      expect(await createRecord(store, key, blobRecord(image), image)).toBe(true);
      expect(await createRecord(store, key, blobRecord(greyPng(20)), greyPng(20))).toBe(false);
      const stored = await readRecord(store, key, BlobRecord);
      expect(stored?.image.equals(image)).toBe(true);
    });

    test("a heal cut off after its new image still reads the record with its previous image", async () => {
      const old = greyPng(30);
      await createRecord(store, key, blobRecord(old), old);
      // replaceRecord's first two writes, without the JSON (its writer died): the JSON still names `old`.
      await store.write(`${key}.previous.png`, old);
      await store.write(`${key}.png`, greyPng(40));
      const stored = await readRecord(store, key, BlobRecord);
      expect(stored?.image.equals(old)).toBe(true);
    });

    test("a completed heal reads the new pair", async () => {
      const old = greyPng(30);
      const healed = greyPng(50);
      await createRecord(store, key, blobRecord(old), old);
      await readRecord(store, key, BlobRecord);
      await replaceRecord(store, key, blobRecord(healed), healed, old);
      expect((await readRecord(store, key, BlobRecord))?.image.equals(healed)).toBe(true);
      expect((await store.read(`${key}.previous.png`))?.equals(old)).toBe(true);
    });

    test("a torn pair (no image matches the record) is a StoreError saying how to fix it", async () => {
      await store.write(`${key}.png`, greyPng(60));
      await store.write(`${key}.json`, Buffer.from(JSON.stringify(blobRecord(greyPng(70)))));
      await expect(readRecord(store, key, BlobRecord)).rejects.toThrow(
        /pair\.png does not match its record \(SHA-256 differs\).*delete taps\/android\/dev\/pair\.json/,
      );
    });
  });

  describe("a view scoped to a project and app (docs/storage.md)", () => {
    const key = "taps/android/dev/pair";

    test("values land under projects/<project>/apps/<app>/; an older-layout record is read, then moved by a heal", async () => {
      const old = greyPng(30);
      const healed = greyPng(50);
      expect(await createRecord(store, key, blobRecord(old), old)).toBe(true);
      const view = scopedStore(store, { project: "shop-team", app: "com.example.shop" });
      const stored = await readRecord(view, key, BlobRecord);
      expect(stored?.image.equals(old)).toBe(true);
      await replaceRecord(view, key, blobRecord(healed), healed, stored!.image);

      const own = `projects/shop-team/apps/com.example.shop/${key}`;
      expect(await store.list("")).toEqual([`${own}.json`, `${own}.png`, `${own}.previous.png`]);
      expect((await readRecord(store, own, BlobRecord))?.image.equals(healed)).toBe(true);
      // The view reads and replaces its own record now, with the store's conditions on what it read.
      const again = scopedStore(store, { project: "shop-team", app: "com.example.shop" });
      expect((await readRecord(again, key, BlobRecord))?.image.equals(healed)).toBe(true);
      await replaceRecord(again, key, blobRecord(old), old, healed);
      expect((await readRecord(store, own, BlobRecord))?.image.equals(old)).toBe(true);
    });

    test("another project neither sees that project's value nor waits on its lock", async () => {
      const image = greyPng(10);
      const shop = scopedStore(store, { project: "shop-team", app: "com.example.shop" });
      const other = scopedStore(store, { project: "merchant-team", app: "com.example.shop", readOldLayout: false });
      expect(await createRecord(shop, key, blobRecord(image), image)).toBe(true);
      expect(await readRecord(other, key, BlobRecord)).toBeNull();
      const held = await shop.lock(key, { deadline: Date.now() + 10_000 });
      try {
        await (
          await other.lock(key, { deadline: Date.now() + 2000 })
        )();
      } finally {
        await held();
      }
    });
  });

  describe("across processes", () => {
    test("processes writing one key concurrently: every read and the final value are one writer's whole value", async () => {
      const key = "screenshots/android/cart/dev.png";
      const count = 15;
      const workers = await startTogether("writer.ts", (i) => [spec, key, String(i + 1), String(count), "65536"], 3);
      let reads = 0;
      let running = true;
      const done = Promise.all(workers.map((w) => w.result<{ writes: number }>())).finally(() => (running = false));
      while (running) {
        const value = await store.read(key);
        if (value) {
          expect(identify(value)).not.toBeNull();
          reads++;
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      expect((await done).map((r) => r.writes)).toEqual([count, count, count]);
      const final = identify((await store.read(key))!);
      expect(final?.n).toBe(count - 1);
      expect(reads).toBeGreaterThan(0);
      expect(await store.list("")).toEqual([key]);
    });

    test("ifAbsent create by several processes: exactly one wins each key, and its value is stored", async () => {
      const keys = 10;
      const workers = await startTogether("creator.ts", (i) => [spec, String(i + 1), String(keys)], 4);
      const results = await Promise.all(workers.map((w) => w.result<{ writer: number; won: number[] }>()));
      for (let k = 0; k < keys; k++) {
        const winners = results.filter((r) => r.won.includes(k));
        expect(winners).toHaveLength(1);
        expect(identify((await store.read(`create/${k}`))!)).toEqual({ writer: winners[0]!.writer, n: k });
      }
      expect(await store.list("create")).toHaveLength(keys);
    });

    test("the lock excludes other processes: an exact count and no overlapping critical sections", async () => {
      const processes = 4;
      const iterations = 6;
      const workers = await startTogether("lock-counter.ts", (i) => [spec, String(i), String(iterations)], processes);
      const results = await Promise.all(
        workers.map((w) => w.result<{ sections: [string, string][]; violations: string[] }>()),
      );
      expect(results.flatMap((r) => r.violations)).toEqual([]);
      expect((await store.read("counter"))?.toString()).toBe(String(processes * iterations));
      const sections = results
        .flatMap((r) => r.sections)
        .map(([enter, exit]) => [BigInt(enter), BigInt(exit)] as const)
        .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      for (let i = 1; i < sections.length; i++) expect(sections[i]![0] >= sections[i - 1]![1]).toBe(true);
    });

    test("a lock released by another process is taken by the waiter", async () => {
      const holder = startWorker("lock-holder.ts", [spec, "k", "500"]);
      await holder.waitForLine(/^locked$/);
      await (
        await store.lock("k", { deadline: Date.now() + 20_000 })
      )();
      expect((await holder.exited).code).toBe(0);
      expect(holder.lines).toContain("released");
    });

    test("a live holder keeps its lock past the stale time; a killed holder's lock is taken over", async () => {
      const holder = startWorker("lock-holder.ts", [spec, "taps/android/dev/k", "600000"]);
      await holder.waitForLine(/^locked$/);
      // The holder refreshes its lock, so a waiter longer than the stale time (10 s) still does not get it.
      await expect(store.lock("taps/android/dev/k", { deadline: Date.now() + 12_000 })).rejects.toThrow(TimeoutError);
      holder.child.kill("SIGKILL");
      await holder.exited;
      // Nobody refreshes it now: taken over once it is stale, well within this deadline.
      await (
        await store.lock("taps/android/dev/k", { deadline: Date.now() + 30_000 })
      )();
    });
  });
});
