/**
 * Storage hardening: symbolic links under `_ai_/` and failed writes (disk full, read-only storage).
 * Faults are injected into the fs promises API, so these tests also hold when run as root.
 */
import { jest } from "@jest/globals";
import { promises as fs } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { FileStore } from "../../src/core/store/file-store.js";
import { StoreError } from "../../src/core/ground/errors.js";
import { createRecord, replaceRecord, sha256 } from "../../src/core/store/record-io.js";
import { FORMAT } from "../../src/core/store/record-format.js";
import type { BaselineRecord } from "../../src/core/store/baseline-record.js";
import { readStoreModel } from "../../src/cli/model.js";
import { revertValue } from "../../src/cli/review/actions.js";
import { runPrune } from "../../src/cli/prune.js";
import { EXIT } from "../../src/cli/exit.js";
import { runSync } from "../../src/cli/sync.js";
import { randomUUID } from "node:crypto";
import { S3Client } from "@aws-sdk/client-s3";
import { s3Store } from "../../src/core/store/s3-store.js";
import { useFaultyBucket } from "../support/s3-faults.js";
import { S3RVER_CREDENTIALS, testClientConfig } from "../support/s3-replica.js";
import { MAX_PAGES_WITHOUT_KEYS } from "../../src/core/store/s3-objects.js";
import { REPO, runCli } from "../cli/run-cli.js";
import { spawn } from "node:child_process";
import { startWorker } from "../support/store-workers/spawn.js";

const DAY = 86_400_000;

let dir: string;
let storageDir: string;
let outside: string;
let store: FileStore;
let fileHandle: FileHandle;

beforeAll(async () => {
  // FileHandle is not exported as a class; its prototype is reached through a real handle.
  const handle = await fs.open(import.meta.filename, "r");
  await handle.close();
  fileHandle = Object.getPrototypeOf(handle) as FileHandle;
});

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-hardening-"));
  storageDir = path.join(dir, "storage");
  outside = path.join(dir, "outside");
  await fs.mkdir(outside);
  store = new FileStore(storageDir);
});

afterEach(async () => {
  jest.restoreAllMocks();
  await fs.rm(dir, { recursive: true, force: true });
});

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: simulated failure`), { code });
}

/** A link at `<root>/<key>` to `target`, with the folders above it real. */
async function link(key: string, target: string): Promise<string> {
  const at = path.join(store.root, ...key.split("/"));
  await fs.mkdir(path.dirname(at), { recursive: true });
  await fs.symlink(target, at);
  return at;
}

async function filesUnder(folder: string): Promise<string[]> {
  return ((await fs.readdir(folder, { recursive: true })) as string[]).sort();
}

async function isLink(file: string): Promise<boolean> {
  return (await fs.lstat(file)).isSymbolicLink();
}

function baseline(name: string, image: Buffer): BaselineRecord {
  const at = new Date(Date.now() - 30 * DAY).toISOString();
  return {
    format: FORMAT,
    kind: "baseline",
    name,
    device: {
      platform: "android",
      model: "Fake Pixel",
      osVersion: "14",
      screen: { width: 10, height: 20 },
      scale: 1,
      insets: { top: 0, bottom: 0, left: 0, right: 0 },
      orientation: "portrait",
    },
    prompt: "a screen",
    varying: [],
    model: "test",
    reason: "stored by the test",
    imageSha256: sha256(image),
    storedAt: at,
    createdAt: at,
  };
}

async function storeBaseline(key: string): Promise<void> {
  const image = await sharp({ create: { width: 10, height: 20, channels: 4, background: "#ffffff" } })
    .png()
    .toBuffer();
  expect(await createRecord(store, key, baseline(key.split("/")[2]!, image), image)).toBe(true);
}

async function prune(options: Parameters<typeof runPrune>[1]): Promise<{ code: number; stdout: string }> {
  let stdout = "";
  jest.spyOn(process.stdout, "write").mockImplementation((chunk) => {
    stdout += String(chunk);
    return true;
  });
  jest.spyOn(process.stderr, "write").mockImplementation(() => true);
  const code = await runPrune(await readStoreModel(storageDir), options);
  jest.mocked(process.stdout.write).mockRestore();
  jest.mocked(process.stderr.write).mockRestore();
  return { code, stdout };
}

describe("symbolic links under _ai_/", () => {
  test("never writes through a symlink out of the storage root, and says which link and how to fix it", async () => {
    // The root itself may be a link, e.g. a storage folder on a mounted disk.
    const disk = path.join(dir, "disk", "_ai_");
    await fs.mkdir(disk, { recursive: true });
    await fs.mkdir(storageDir);
    await fs.symlink(disk, store.root);
    const device = await link("taps/android/x", outside);

    const error = await store.write("taps/android/x/a.json", Buffer.from("{}")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreError);
    const message = (error as Error).message;
    expect(message).toContain(`${device} is a symbolic link to ${outside} (outside the storage folder`);
    expect(message).toMatch(/Replace the link with a real folder/);
    expect(await filesUnder(outside)).toEqual([]);

    expect(await store.write("taps/android/real/a.json", Buffer.from("{}"))).toBe(true);
    expect(await filesUnder(path.join(disk, "taps/android/real"))).toEqual(["a.json"]);
    expect(await store.list("")).toEqual(["taps/android/real/a.json"]);
  });

  test("never reads, touches, dates or removes a file through a symlink out of the storage root", async () => {
    const secret = path.join(outside, "a.json");
    await fs.writeFile(secret, "not for tapshot");
    const old = new Date("2020-01-01T00:00:00Z");
    await fs.utimes(secret, old, old);
    await link("taps/android/x", outside);

    const key = "taps/android/x/a.json";
    for (const attempt of [store.read(key), store.touch(key), store.modifiedAt(key), store.remove(key)]) {
      await expect(attempt).rejects.toThrow(StoreError);
    }
    await expect(store.read(key)).rejects.toThrow(/taps\/android\/x is a symbolic link/);
    expect(await fs.readFile(secret, "utf8")).toBe("not for tapshot");
    expect((await fs.stat(secret)).mtime.getTime()).toBe(old.getTime());
  });

  test("refuses a symlink below the root even when it points inside the root", async () => {
    await store.write("taps/android/real/a.json", Buffer.from("one"));
    await link("taps/android/alias", path.join(store.root, "taps/android/real"));
    await link("taps/android/real/b.json", path.join(store.root, "taps/android/real/a.json"));

    await expect(store.read("taps/android/alias/a.json")).rejects.toThrow(/inside the storage folder/);
    await expect(store.read("taps/android/real/b.json")).rejects.toThrow(/b\.json is a symbolic link/);
    await expect(store.write("taps/android/alias/c.json", Buffer.from("x"))).rejects.toThrow(StoreError);
    expect(await filesUnder(path.join(store.root, "taps/android/real"))).toEqual(["a.json", "b.json"]);
  });

  test("never lists or descends into a symlink out of the storage root, and reports each link it skipped", async () => {
    await fs.mkdir(path.join(outside, "sub"));
    await fs.writeFile(path.join(outside, "a.json"), "{}");
    await fs.writeFile(path.join(outside, "sub", "b.json"), "{}");
    await store.write("taps/android/real/a.json", Buffer.from("{}"));
    await link("taps/android/x", outside);
    await link("taps/android/real/f.json", path.join(outside, "a.json"));

    expect(await store.list("")).toEqual(["taps/android/real/a.json"]);
    expect(await store.list("taps/android/real")).toEqual(["taps/android/real/a.json"]);
    await expect(store.list("taps/android/x")).rejects.toThrow(StoreError);
    await expect(store.list("taps/android/x/sub")).rejects.toThrow(/taps\/android\/x is a symbolic link/);
    const { skipped } = await store.scan("");
    expect(skipped.map((s) => s.key)).toEqual(["taps/android/real/f.json", "taps/android/x"]);
    for (const s of skipped) expect(s.problem).toMatch(/outside the storage folder/);
  });

  test("prune never deletes files outside the storage root and shows the links as invalid", async () => {
    await storeBaseline("screenshots/android/cart/dev");
    // A device folder moved out of the store and linked back.
    await storeBaseline("screenshots/android/moved/dev");
    await fs.rename(path.join(store.root, "screenshots/android/moved"), path.join(outside, "moved"));
    await link("screenshots/android/moved", path.join(outside, "moved"));
    // A record whose two files are links to files outside.
    await storeBaseline("screenshots/android/linked/dev");
    for (const name of ["dev.json", "dev.png"]) {
      const at = path.join(store.root, "screenshots/android/linked", name);
      await fs.rename(at, path.join(outside, name));
      await fs.symlink(path.join(outside, name), at);
    }
    const outsideBefore = await filesUnder(outside);

    const model = await readStoreModel(storageDir);
    expect(model.baselines.map((b) => b.key)).toEqual(["screenshots/android/cart/dev"]);
    expect(model.invalid.map((i) => i.key)).toEqual([
      "screenshots/android/linked/dev.json",
      "screenshots/android/linked/dev.png",
      "screenshots/android/moved",
    ]);
    for (const i of model.invalid) expect(i.problem).toMatch(/is a symbolic link to .*outside the storage folder/);

    const { code, stdout } = await prune({ unusedSince: new Date(Date.now() + DAY) });
    expect(code).toBe(EXIT.ok);
    expect(stdout).toMatch(/Removed 1 record /);
    expect(await store.read("screenshots/android/cart/dev.json")).toBeNull();
    expect(await filesUnder(outside)).toEqual(outsideBefore);
    expect(await isLink(path.join(store.root, "screenshots/android/moved"))).toBe(true);
    expect(await isLink(path.join(store.root, "screenshots/android/linked/dev.json"))).toBe(true);
    expect(await isLink(path.join(store.root, "screenshots/android/linked/dev.png"))).toBe(true);
  });
});

describe("failed writes", () => {
  const key = "taps/android/dev/a.json";

  test.each([
    ["creating the temp file", () => jest.spyOn(fs, "open").mockRejectedValueOnce(errno("ENOSPC")), false],
    ["writing the temp file", () => jest.spyOn(fileHandle, "writeFile").mockRejectedValueOnce(errno("ENOSPC")), false],
    ["flushing the temp file", () => jest.spyOn(fileHandle, "sync").mockRejectedValueOnce(errno("ENOSPC")), false],
    ["renaming it into place", () => jest.spyOn(fs, "rename").mockRejectedValueOnce(errno("ENOSPC")), false],
    ["linking it into place (ifAbsent)", () => jest.spyOn(fs, "link").mockRejectedValueOnce(errno("ENOSPC")), true],
  ])(
    "leaves no temp file and names the path and the full disk when ENOSPC hits %s",
    async (_when, inject, ifAbsent) => {
      const target = ifAbsent ? "taps/android/dev/new.json" : key;
      await store.write(key, Buffer.from("old"));
      inject();
      const error = await store.write(target, Buffer.from("new"), { ifAbsent }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreError);
      const file = path.join(store.root, ...target.split("/"));
      expect((error as Error).message).toContain(`Could not write ${file}: the disk is full (ENOSPC).`);
      expect((error as Error).message).toMatch(/free some space/);
      expect(await filesUnder(path.join(store.root, "taps/android/dev"))).toEqual(["a.json"]);
      expect((await store.read(key))?.toString()).toBe("old");
    },
  );

  test("tapshot prune sweeps temp files older than an hour and keeps fresh ones", async () => {
    await store.write(key, Buffer.from("{}"));
    const folder = path.join(store.root, "taps/android/dev");
    const stale = path.join(folder, "a.json.4242.0badcafe.tmp");
    const fresh = path.join(folder, "a.json.4243.00c0ffee.tmp");
    await fs.writeFile(stale, "half");
    await fs.writeFile(fresh, "half");
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    await fs.utimes(stale, twoHoursAgo, twoHoursAgo);

    const dry = await prune({ unusedSince: new Date(0), dryRun: true });
    expect(dry.stdout).toMatch(/Would remove 1 temp file left by interrupted writes/);
    expect(await filesUnder(folder)).toEqual(["a.json", "a.json.4242.0badcafe.tmp", "a.json.4243.00c0ffee.tmp"]);

    const real = await prune({ unusedSince: new Date(0) });
    expect(real.code).toBe(EXIT.ok);
    expect(real.stdout).toMatch(/Removed 1 temp file left by interrupted writes/);
    expect(await filesUnder(folder)).toEqual(["a.json", "a.json.4243.00c0ffee.tmp"]);
  });

  test("says the storage is read-only and that mode replay needs no writes, when learning on read-only storage", async () => {
    jest.spyOn(fs, "mkdir").mockRejectedValue(errno("EROFS"));
    const lockError = await store.lock("taps/android/dev/a", { deadline: Date.now() + 1000 }).catch((e: unknown) => e);
    expect(lockError).toBeInstanceOf(StoreError);
    expect((lockError as Error).message).toContain(
      `Could not take the lock on taps/android/dev/a: the storage ${store.root} is read-only (EROFS).`,
    );
    expect((lockError as Error).message).toMatch(/mode "replay", which needs no writes/);

    const writeError = await store.write(key, Buffer.from("{}")).catch((e: unknown) => e);
    expect(writeError).toBeInstanceOf(StoreError);
    expect((writeError as Error).message).toMatch(/the storage is read-only \(EROFS\)\. .*mode "replay"/);
  });

  test("says the storage is not writable when the lock folder cannot be created for lack of permission", async () => {
    jest.spyOn(fs, "mkdir").mockRejectedValueOnce(errno("EACCES"));
    await expect(store.lock("k", { deadline: Date.now() + 1000 })).rejects.toThrow(
      /the storage .* is not writable by this user \(EACCES\)\. .*mode "replay", which needs no writes/,
    );
  });
});

describe("a bucket's faults", () => {
  const faulty = useFaultyBucket();
  afterEach(() => {
    faulty.proxy.rule = () => undefined;
  });
  const bucketStore = (prefix = `runs/${randomUUID()}`, endpoint = faulty.proxy.endpoint) =>
    s3Store({ bucket: faulty.s3.bucket, prefix, client: new S3Client(testClientConfig(endpoint)) });

  test("a record replace the bucket stored but whose answer was lost is a success, not a lost race", async () => {
    const bucket = bucketStore();
    await bucket.write("taps/k.json", Buffer.from('{"v":1}'), { ifAbsent: true });
    await bucket.read("taps/k.json");
    let lost = 0;
    // The first PUT is stored and answered 500; the SDK sends it again with the same If-Match and meets 412.
    faulty.proxy.rule = ({ method, url }) =>
      method === "PUT" && url.pathname.endsWith("/taps/k.json") && lost++ === 0 ? { kind: "lose-answer" } : undefined;
    expect(await bucket.write("taps/k.json", Buffer.from('{"v":2}'))).toBe(true);
    expect(lost).toBe(2);
    expect((await bucket.read("taps/k.json"))?.toString()).toBe('{"v":2}');
    // The ETag it keeps is the stored one: the next replace is not refused as a lost race.
    expect(await bucket.write("taps/k.json", Buffer.from('{"v":3}'))).toBe(true);
  });

  test("a replace that met another run's value is still refused after reading it back", async () => {
    const bucket = bucketStore();
    const other = s3Store({
      bucket: faulty.s3.bucket,
      prefix: bucket.location.split("/").slice(3, 5).join("/"),
      client: new S3Client(testClientConfig(faulty.s3.endpoint)),
    });
    await bucket.write("taps/k.json", Buffer.from('{"v":1}'), { ifAbsent: true });
    await bucket.read("taps/k.json");
    await other.read("taps/k.json");
    await other.write("taps/k.json", Buffer.from('{"v":"other"}'));
    await expect(bucket.write("taps/k.json", Buffer.from('{"v":2}'))).rejects.toThrow(/was replaced by another run/);
  });

  test("tapshot pull skips a key with .. that the bucket lists, reports it, and copies the other records", async () => {
    const prefix = `runs/${randomUUID()}`;
    const bucket = bucketStore(prefix);
    const good = ["taps/android/dev/a", "taps/android/dev/b", "taps/android/dev/c"];
    for (const key of good) {
      await bucket.write(
        `${key}.png`,
        await sharp({ create: { width: 2, height: 2, channels: 3, background: "#000" } })
          .png()
          .toBuffer(),
      );
      await bucket.write(`${key}.json`, Buffer.from(`{"key":"${key}"}`), { ifAbsent: true });
    }
    const evil = "taps/../../x/evil";
    // The bucket lists an object whose key climbs out of _ai_/ (S3 keys are any UTF-8 text).
    faulty.proxy.rule = ({ method, url }) => {
      if (method !== "GET" || url.searchParams.get("list-type") !== "2") return undefined;
      const from = url.searchParams.get("prefix") ?? "";
      const keys = from.endsWith("/_ai_/taps/") ? [...good, evil].map((k) => `${prefix}/_ai_/${k}.json`) : [];
      return {
        kind: "answer",
        status: 200,
        body:
          '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://faulty.s3.amazonaws.com/doc/2006-03-01/">' +
          `<Name>${faulty.s3.bucket}</Name><Prefix>${from}</Prefix><KeyCount>${keys.length}</KeyCount><MaxKeys>1000</MaxKeys>` +
          `<IsTruncated>false</IsTruncated>${keys.map((k) => `<Contents><Key>${k}</Key></Contents>`).join("")}</ListBucketResult>`,
      };
    };
    const out = jest.spyOn(process.stdout, "write").mockImplementation(() => true);
    const code = await runSync(bucket, store, { json: true });
    const printed = JSON.parse(out.mock.calls.map((c) => String(c[0])).join("")) as {
      copied: string[];
      skipped: { key: string; reason: string }[];
    };
    out.mockRestore();
    expect(code).toBe(EXIT.failure);
    expect(printed.copied).toEqual(good);
    expect(printed.skipped).toEqual([
      { key: evil, reason: expect.stringContaining('Invalid store key "taps/../../x/evil.json"') },
    ]);
    expect(await fs.readdir(dir)).toEqual(["outside", "storage"]);
  });

  test("a listing that repeats its continuation token stops with a StoreError instead of looping", async () => {
    const bucket = bucketStore();
    let pages = 0;
    faulty.proxy.rule = ({ method, url }) => {
      if (method !== "GET" || url.searchParams.get("list-type") !== "2") return undefined;
      pages++;
      return {
        kind: "answer",
        status: 200,
        body:
          '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://faulty.s3.amazonaws.com/doc/2006-03-01/">' +
          `<Name>${faulty.s3.bucket}</Name><KeyCount>1</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>true</IsTruncated>` +
          `<Contents><Key>runs/x/_ai_/taps/a.json</Key></Contents>` +
          "<NextContinuationToken>same-token</NextContinuationToken></ListBucketResult>",
      };
    };
    const listing = bucket.list("taps");
    await expect(listing).rejects.toBeInstanceOf(StoreError);
    await expect(listing).rejects.toThrow(
      /page 2 gave the continuation token "same-token" again, so the listing would never end/,
    );
    expect(pages).toBe(2);
  });

  /** Answer every ListObjectsV2 request with a truncated page `page(n)` (n from 1); other requests go through. */
  function endlessListing(page: (n: number) => { keys: string[]; token: string }): { pages: number } {
    const seen = { pages: 0 };
    faulty.proxy.rule = ({ method, url }) => {
      if (method !== "GET" || url.searchParams.get("list-type") !== "2") return undefined;
      const { keys, token } = page(++seen.pages);
      return {
        kind: "answer",
        status: 200,
        body:
          '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
          `<Name>${faulty.s3.bucket}</Name><KeyCount>${keys.length}</KeyCount><MaxKeys>1000</MaxKeys>` +
          `<IsTruncated>true</IsTruncated>${keys.map((k) => `<Contents><Key>${k}</Key></Contents>`).join("")}` +
          `<NextContinuationToken>${token}</NextContinuationToken></ListBucketResult>`,
      };
    };
    return seen;
  }

  test("a listing with a new continuation token on every page but no keys stops after a bounded number of pages", async () => {
    const seen = endlessListing((n) => ({ keys: [], token: `token-${n}` }));
    const listing = bucketStore().list("taps");
    await expect(listing).rejects.toBeInstanceOf(StoreError);
    await expect(listing).rejects.toThrow(
      `${MAX_PAGES_WITHOUT_KEYS} truncated pages in a row listed no new key, so the listing would never end`,
    );
    expect(seen.pages).toBe(MAX_PAGES_WITHOUT_KEYS);
  });

  test("a listing with a new continuation token on every page that lists the same key again stops at once", async () => {
    const seen = endlessListing((n) => ({ keys: ["runs/x/_ai_/taps/a.json"], token: `token-${n}` }));
    await expect(bucketStore().list("taps")).rejects.toThrow(
      /page 2 listed "runs\/x\/_ai_\/taps\/a.json" again, so the listing would never end \(stopped after 1 keys\)/,
    );
    expect(seen.pages).toBe(2);
  });

  test("tapshot list --store on a service whose listing never ends exits with the StoreError", async () => {
    const seen = endlessListing((n) => ({ keys: [], token: `token-${n}` }));
    const { code, stdout, stderr } = await runCli(["list", "--store", `s3://${faulty.s3.bucket}/runs/endless`], {
      AWS_ENDPOINT_URL_S3: faulty.proxy.endpoint,
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      TAPSHOT_S3_PATH_STYLE: "1",
      AWS_REQUEST_CHECKSUM_CALCULATION: "WHEN_REQUIRED",
      AWS_RESPONSE_CHECKSUM_VALIDATION: "WHEN_REQUIRED",
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    });
    expect({ code, stdout }).toEqual({ code: EXIT.failure, stdout: "" });
    expect(stderr).toMatch(
      new RegExp(
        `^tapshot: error: Could not list s3://${faulty.s3.bucket}/runs/endless/_ai_/: ${MAX_PAGES_WITHOUT_KEYS} truncated pages`,
      ),
    );
    expect(seen.pages).toBe(MAX_PAGES_WITHOUT_KEYS);
  });
});

describe("temp files a killed run left behind", () => {
  /** Every temp file under the storage folder. */
  async function tempFiles(): Promise<string[]> {
    const all = await fs.readdir(store.root, { recursive: true }).catch(() => [] as string[]);
    return all.filter((file) => file.endsWith(".tmp"));
  }

  /** `count` baselines healed by a run and pending review, each with its previous image; ~1 MB images, so writes take a while. */
  async function storeHeals(count: number): Promise<void> {
    const [width, height] = [400, 800];
    const noise = (seed: number) => {
      const raw = Buffer.alloc(width * height * 3);
      for (let i = 0; i < raw.length; i++) raw[i] = (i * 2654435761 + seed * 97) >>> 24;
      return sharp(raw, { raw: { width, height, channels: 3 } })
        .png()
        .toBuffer();
    };
    const [first, healed] = await Promise.all([noise(1), noise(2)]);
    for (let i = 0; i < count; i++) {
      const key = `screenshots/android/screen-${i}/fake-pixel_14`;
      const learned = baseline(`screen-${i}`, first);
      learned.device = { ...learned.device, screen: { width, height } };
      await createRecord(store, key, learned, first);
      const { format: _f, kind: _k, name: _n, device: _d, createdAt: _c, ...previous } = learned;
      const storedAt = new Date().toISOString();
      const heal = {
        ...learned,
        imageSha256: sha256(healed),
        storedAt,
        previous,
        review: { state: "pending" as const },
      };
      await replaceRecord(store, key, heal, healed, first);
    }
  }

  test.each([
    ["after its JSON and image were written", `.previous.png`],
    ["after its JSON alone was written", `.png`],
  ])("a revert killed %s is finished by the next revert --all", async (_when, killedAt) => {
    await storeHeals(1);
    const key = "screenshots/android/screen-0/fake-pixel_14";
    // The real revert, stopped where a kill would stop it: at its write or removal of `killedAt`.
    const killed = new Error("killed");
    const dying = Object.assign(Object.create(store) as FileStore, {
      write: (k: string, data: Buffer) => (k === `${key}${killedAt}` ? Promise.reject(killed) : store.write(k, data)),
      remove: (k: string) => (k === `${key}${killedAt}` ? Promise.reject(killed) : store.remove(k)),
    });
    const by = { name: "test", at: new Date().toISOString() };
    await expect(revertValue(dying, key, by)).rejects.toBe(killed);
    expect(await store.read(`${key}.previous.png`)).not.toBeNull();

    const rerun = await runCli(["revert", "--all", "--storage", storageDir]);
    expect(rerun).toMatchObject({ code: EXIT.ok, stderr: "" });
    expect(rerun.stdout).toMatch(/^Reverted 1 value:\n {2}screenshots\/android\/screen-0\/fake-pixel_14 \(reverted\)/);
    expect(await store.read(`${key}.previous.png`)).toBeNull();
    const record = JSON.parse((await store.read(`${key}.json`))!.toString("utf8"));
    expect(sha256((await store.read(`${key}.png`))!)).toBe(record.imageSha256);
  });

  test("revert --all over 40 heals killed with SIGKILL, rerun: every heal reverted and no temp file left", async () => {
    await storeHeals(40);
    // tapshot revert --all, killed once it has reverted a first heal (its .previous.png is removed last). It
    // cannot finish before that: one heal's lock is held here until then, and the command waits for it.
    const held = await store.lock("screenshots/android/screen-20/fake-pixel_14", { deadline: Date.now() + 5000 });
    const revert = spawn(
      process.execPath,
      ["--import", "tsx", path.join(REPO, "src/cli/main.ts"), "revert", "--all", "--storage", storageDir],
      {
        cwd: REPO,
        env: { ...process.env, NODE_OPTIONS: "", TAPSHOT_STORAGE_DIR: "", TAPSHOT_RESULTS_DIR: "" },
        stdio: "ignore",
      },
    );
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      revert.on("exit", (_code, signal) => resolve(signal)),
    );
    // The running revert removes lock and record folders while the scan walks them: a folder gone between
    // listing and reading it (ENOENT) is a scan to do again, not a failure.
    const previousImages = async (): Promise<number> => {
      for (;;) {
        try {
          return (await fs.readdir(store.root, { recursive: true })).filter((f) => f.endsWith(".previous.png")).length;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        }
      }
    };
    while ((await previousImages()) === 40) await new Promise((r) => setTimeout(r, 1));
    revert.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    await held();
    expect(await previousImages()).toBeGreaterThan(0);
    // And writers killed while their temp file exists (the revert may have been killed between two writes, and
    // the first write of each writer sweeps what the one before left), until one is surely left behind.
    for (let round = 0; round < 5 && !(await tempFiles()).length; round++) {
      const writer = startWorker("big-writer.ts", [
        storageDir,
        "screenshots/android/big/fake-pixel_14.png",
        "16777216",
      ]);
      await writer.waitForLine(/^writing 0$/);
      while (!(await tempFiles()).length) await new Promise((r) => setTimeout(r, 1));
      writer.child.kill("SIGKILL");
      expect((await writer.exited).signal).toBe("SIGKILL");
    }
    expect(await tempFiles()).not.toEqual([]);

    const rerun = await runCli(["revert", "--all", "--storage", storageDir]);
    expect(rerun).toMatchObject({ code: EXIT.ok, stderr: "" });
    expect(await tempFiles()).toEqual([]);
    expect(rerun.stdout).toMatch(/^Reverted \d+ values?:/);
    expect(rerun.stdout).not.toMatch(/\(deleted\)/);
    expect(await previousImages()).toBe(0);
    const pending = await runCli(["pending", "--json", "--storage", storageDir]);
    expect(JSON.parse(pending.stdout)).toMatchObject({ pending: [] });
  }, 120_000);
});
