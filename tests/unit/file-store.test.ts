import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { FileStore } from "../../src/core/store/file-store.js";
import { AbortedError, StoreError, TimeoutError } from "../../src/core/errors.js";
import { identify, makeValue } from "../support/store-workers/values.js";
import { startTogether, startWorker } from "../support/store-workers/spawn.js";

let dir: string;
let store: FileStore;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-store-"));
  store = new FileStore(dir);
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

async function filesUnder(folder: string): Promise<string[]> {
  return ((await fs.readdir(folder, { recursive: true })) as string[]).sort();
}

describe("FileStore in one process", () => {
  test("keys are paths under <storageDir>/_ai_/", async () => {
    expect(store.root).toBe(path.join(dir, "_ai_"));
    await store.write("taps/android/google-pixel-7_14/the-button-0123456789.json", Buffer.from("{}"));
    const onDisk = await fs.readFile(path.join(dir, "_ai_/taps/android/google-pixel-7_14/the-button-0123456789.json"));
    expect(onDisk.toString()).toBe("{}");
  });

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
    expect(await filesUnder(store.root)).toEqual(["k.json"]);
  });

  test("remove deletes a key; removing a missing key is fine", async () => {
    await store.write("x/y.png", Buffer.from([1, 2, 3]));
    await store.remove("x/y.png");
    expect(await store.read("x/y.png")).toBeNull();
    await expect(store.remove("x/y.png")).resolves.toBeUndefined();
  });

  test("touch moves the modification time without changing the bytes", async () => {
    await store.write("t.json", Buffer.from("same"));
    const file = path.join(store.root, "t.json");
    const old = new Date("2020-01-01T00:00:00Z");
    await fs.utimes(file, old, old);
    expect((await store.modifiedAt("t.json"))?.getTime()).toBe(old.getTime());
    await store.touch("t.json");
    expect((await store.modifiedAt("t.json"))!.getTime()).toBeGreaterThan(old.getTime());
    expect((await store.read("t.json"))?.toString()).toBe("same");
    await expect(store.touch("missing.json")).resolves.toBeUndefined();
    expect(await store.modifiedAt("missing.json")).toBeNull();
  });

  test("list returns the keys under a prefix, sorted, without temp files or locks", async () => {
    await store.write("taps/android/dev/b.json", Buffer.from("1"));
    await store.write("taps/android/dev/a.json", Buffer.from("1"));
    await store.write("taps/ios/dev/c.json", Buffer.from("1"));
    await store.write("screenshots/android/cart/dev.json", Buffer.from("1"));
    await fs.writeFile(path.join(store.root, "taps/android/dev/a.json.123.abcd.tmp"), "half");
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
    } finally {
      await release();
    }
  });

  test("a fresh store lists nothing", async () => {
    expect(await store.list("")).toEqual([]);
  });

  test.each(["", "../outside.json", "a/../../b.json", "a//b.json", "./a.json", "a/"])(
    "key %p is refused with a StoreError",
    async (key) => {
      await expect(store.write(key, Buffer.from("x"))).rejects.toThrow(StoreError);
      await expect(store.read(key)).rejects.toThrow(/Invalid store key/);
    },
  );

  test("a second lock on a key waits for the release", async () => {
    const release = await store.lock("k", { deadline: Date.now() + 5000 });
    const order: string[] = [];
    const second = store.lock("k", { deadline: Date.now() + 10_000 }).then((r) => {
      order.push("second locked");
      return r;
    });
    await new Promise((r) => setTimeout(r, 200));
    order.push("first releasing");
    await release();
    const releaseSecond = await second;
    await releaseSecond();
    expect(order).toEqual(["first releasing", "second locked"]);
  });

  test("locks on different keys do not wait for each other", async () => {
    const a = await store.lock("taps/a", { deadline: Date.now() + 1000 });
    const b = await store.lock("taps/b", { deadline: Date.now() + 1000 });
    await a();
    await b();
  });

  test("a waiter past its deadline gets a TimeoutError naming the key and the stale time", async () => {
    const release = await store.lock("taps/android/dev/k", { deadline: Date.now() + 5000 });
    try {
      const error = await store.lock("taps/android/dev/k", { deadline: Date.now() + 300 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TimeoutError);
      expect((error as TimeoutError).code).toBe("timeout");
      expect((error as Error).message).toMatch(/taps\/android\/dev\/k/);
      expect((error as Error).message).toMatch(/stale and is reclaimed after 10 s/);
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
    const again = await store.lock("k", { deadline: Date.now() + 1000 });
    await again();
  });
});

describe("FileStore across processes", () => {
  test("a writer killed in the middle of a write leaves the old value or the new, never a mix", async () => {
    const key = "taps/android/dev/big.png";
    const size = 48 * 1024 * 1024;
    const keyDir = path.join(store.root, "taps/android/dev");
    await store.write(key, makeValue(0, 0, size));
    let killedMidWrite = 0;
    for (let round = 0; round < 4 && killedMidWrite < 2; round++) {
      const worker = startWorker("big-writer.ts", [dir, key, String(size)]);
      await worker.waitForLine(/^writing 0$/);
      // Kill while a temp file exists: the write has started and not yet been renamed into place.
      for (;;) {
        if ((await fs.readdir(keyDir)).some((f) => f.endsWith(".tmp"))) break;
        await new Promise((r) => setTimeout(r, 1));
      }
      worker.child.kill("SIGKILL");
      const { signal } = await worker.exited;
      expect(signal).toBe("SIGKILL");

      const value = await store.read(key);
      expect(value).not.toBeNull();
      const who = identify(value!);
      expect(who).not.toBeNull();
      expect([0, 1]).toContain(who!.writer);
      expect(await store.list("taps")).toEqual([key]);
      if ((await fs.readdir(keyDir)).some((f) => f.endsWith(".tmp"))) killedMidWrite++;
    }
    // The test really killed writers half-way (their temp files were left behind).
    expect(killedMidWrite).toBeGreaterThan(0);

    const later = makeValue(7, 0, 1024);
    expect(await store.write(key, later)).toBe(true);
    expect((await store.read(key))?.equals(later)).toBe(true);
    expect(await store.list("")).toEqual([key]);
  });

  test("processes writing one key concurrently: every read and the final value are one writer's whole value", async () => {
    const key = "screenshots/android/cart/dev.png";
    const writers = 3;
    const count = 40;
    const size = 256 * 1024;
    const workers = await startTogether(
      "writer.ts",
      (i) => [dir, key, String(i + 1), String(count), String(size)],
      writers,
    );
    let reads = 0;
    let running = true;
    const done = Promise.all(workers.map((w) => w.result<{ writes: number }>())).finally(() => (running = false));
    while (running) {
      const value = await store.read(key);
      if (value) {
        expect(identify(value)).not.toBeNull();
        reads++;
      }
      await new Promise((r) => setImmediate(r));
    }
    const results = await done;
    expect(results.map((r) => r.writes)).toEqual([count, count, count]);
    const final = identify((await store.read(key))!);
    expect(final).not.toBeNull();
    expect([1, 2, 3]).toContain(final!.writer);
    // The value renamed into place last is its writer's last write.
    expect(final!.n).toBe(count - 1);
    expect(reads).toBeGreaterThan(0);
    expect(await store.list("")).toEqual([key]);
  });

  test("ifAbsent create by several processes: exactly one wins each key, and its value is stored", async () => {
    const creators = 4;
    const keys = 25;
    const workers = await startTogether("creator.ts", (i) => [dir, String(i + 1), String(keys)], creators);
    const results = await Promise.all(workers.map((w) => w.result<{ writer: number; won: number[] }>()));
    for (let k = 0; k < keys; k++) {
      const winners = results.filter((r) => r.won.includes(k));
      expect(winners).toHaveLength(1);
      const stored = identify((await store.read(`create/${k}`))!);
      expect(stored).toEqual({ writer: winners[0]!.writer, n: k });
    }
    expect(await store.list("create")).toHaveLength(keys);
  });

  test("the lock excludes other processes: an exact count and no overlapping critical sections", async () => {
    const processes = 4;
    const iterations = 15;
    const workers = await startTogether("lock-counter.ts", (i) => [dir, String(i), String(iterations)], processes);
    const results = await Promise.all(
      workers.map((w) => w.result<{ sections: [string, string][]; violations: string[] }>()),
    );
    expect(results.flatMap((r) => r.violations)).toEqual([]);
    expect((await store.read("counter"))?.toString()).toBe(String(processes * iterations));
    const sections = results
      .flatMap((r) => r.sections)
      .map(([enter, exit]) => [BigInt(enter), BigInt(exit)] as const)
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    expect(sections).toHaveLength(processes * iterations);
    for (let i = 1; i < sections.length; i++) {
      expect(sections[i]![0] >= sections[i - 1]![1]).toBe(true);
    }
  });

  test("a process waiting for a lock another process holds times out with a TimeoutError", async () => {
    const holder = startWorker("lock-holder.ts", [dir, "taps/android/dev/k", "60000"]);
    try {
      await holder.waitForLine(/^locked$/);
      const error = await store.lock("taps/android/dev/k", { deadline: Date.now() + 500 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(TimeoutError);
      expect((error as Error).message).toMatch(
        /Timed out waiting for another run to finish learning taps\/android\/dev\/k/,
      );
    } finally {
      holder.child.kill("SIGKILL");
      await holder.exited;
    }
  });

  test("a lock released by another process is taken by the waiter", async () => {
    const holder = startWorker("lock-holder.ts", [dir, "k", "500"]);
    await holder.waitForLine(/^locked$/);
    const release = await store.lock("k", { deadline: Date.now() + 20_000 });
    await release();
    expect((await holder.exited).code).toBe(0);
    expect(holder.lines).toContain("released");
  });

  test("a stale lock left by a killed holder is reclaimed", async () => {
    const holder = startWorker("lock-holder.ts", [dir, "taps/android/dev/k", "600000"]);
    await holder.waitForLine(/^locked$/);
    holder.child.kill("SIGKILL");
    await holder.exited;
    // Still held right after the kill: the lock directory is fresh.
    await expect(store.lock("taps/android/dev/k", { deadline: Date.now() + 200 })).rejects.toThrow(TimeoutError);
    // Reclaimed once it is older than the stale time (10 s), well within this deadline.
    const release = await store.lock("taps/android/dev/k", { deadline: Date.now() + 30_000 });
    await release();
  });

  test("a holder whose lock was removed under it keeps running and releases cleanly", async () => {
    const holder = startWorker("lock-holder.ts", [dir, "k", "4000"]);
    await holder.waitForLine(/^locked$/);
    // Someone cleans the storage folder while the lock is held; the holder's refresh (every 2.5 s) finds it gone.
    await fs.rm(path.join(store.root, ".locks"), { recursive: true, force: true });
    const { code, stderr } = await holder.exited;
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(holder.lines).toContain("released");
  });
});
