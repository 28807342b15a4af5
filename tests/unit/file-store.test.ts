/** FileStore specifics; what every store does is in tests/store/contract.test.ts. */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { FileStore } from "../../src/core/store/file-store.js";
import { tempPathFor } from "../../src/core/store/temp-files.js";
import { TimeoutError } from "../../src/core/ground/errors.js";
import { identify, makeValue } from "../support/store-workers/values.js";
import { startWorker } from "../support/store-workers/spawn.js";

let dir: string;
let store: FileStore;

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-store-"));
  store = new FileStore(dir);
});
afterEach(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe("FileStore in one process", () => {
  test("keys are paths under <storageDir>/_ai_/", async () => {
    expect(store.root).toBe(path.join(dir, "_ai_"));
    await store.write("taps/android/google-pixel-7_14/the-button-0123456789.json", Buffer.from("{}"));
    const onDisk = await fs.readFile(path.join(dir, "_ai_/taps/android/google-pixel-7_14/the-button-0123456789.json"));
    expect(onDisk.toString()).toBe("{}");
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
    // The next write removed the temp files of the killed writers: their processes are gone.
    expect(await fs.readdir(keyDir)).toEqual(["big.png"]);
  });

  test("a write keeps the temp files of a live writer, another machine's and a locked record's old one", async () => {
    const folder = path.join(store.root, "taps/android/dev");
    await store.write("taps/android/dev/a.json", Buffer.from("1"));
    // This machine's tag, as a write of this process names its temp file.
    const tag = /\.\d+-([0-9a-f]{8})\.[0-9a-f]{8}\.tmp$/.exec(tempPathFor("x"))![1];
    const sleeper = startWorker("lock-holder.ts", [path.join(dir, "elsewhere"), "k", "60000"]);
    await sleeper.waitForLine(/^locked$/);
    const live = `a.json.${sleeper.child.pid}-${tag}.0000aaaa.tmp`;
    const otherMachine = "a.json.4242-00000000.0000bbbb.tmp";
    const oldUnlocked = "b.json.4243-00000000.0000cccc.tmp";
    const oldLocked = "c.json.4244-00000000.0000dddd.tmp";
    for (const name of [live, otherMachine, oldUnlocked, oldLocked])
      await fs.writeFile(path.join(folder, name), "half");
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    for (const name of [oldUnlocked, oldLocked]) await fs.utimes(path.join(folder, name), twoHoursAgo, twoHoursAgo);
    const release = await store.lock("taps/android/dev/c", { deadline: Date.now() + 5000 });
    try {
      await store.write("taps/android/dev/a.json", Buffer.from("2"));
      expect((await fs.readdir(folder)).sort()).toEqual(["a.json", live, otherMachine, oldLocked].sort());
    } finally {
      await release();
      sleeper.child.kill("SIGKILL");
      await sleeper.exited;
    }
    // Its writer is gone now, and the lock is released: the next write removes both.
    await store.write("taps/android/dev/a.json", Buffer.from("3"));
    expect((await fs.readdir(folder)).sort()).toEqual(["a.json", otherMachine]);
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
