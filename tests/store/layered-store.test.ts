/**
 * Layered storage (src/core/store/layered-store.ts): the committed folder first, a shared store second,
 * new values and locks in the shared store. The shared store here is an S3 store on the test service,
 * so a replay of what the folder holds is shown to make no request to the bucket.
 */
import { randomUUID } from "node:crypto";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { FileStore } from "../../src/core/store/file-store.js";
import { layeredStore } from "../../src/core/store/layered-store.js";
import { createRecord, readRecord, replaceRecord } from "../../src/core/store/record-io.js";
import { BlobRecord, blobRecord, greyPng } from "../support/blob-records.js";
import { startTestS3, type TestS3 } from "../support/s3-replica.js";
import { openStore, s3Spec } from "../support/store-workers/open-store.js";

let s3: TestS3;
let dir: string;
beforeAll(async () => {
  s3 = await startTestS3("s3");
});
afterAll(() => s3.stop());
beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-layered-"));
});
afterEach(() => fs.rm(dir, { recursive: true, force: true }));

function stores() {
  const shared = openStore(s3Spec(s3.endpoint, s3.bucket, `runs/${randomUUID()}`));
  return { shared, folder: new FileStore(dir), layered: layeredStore({ storageDir: dir, shared }) };
}

test("a value the folder holds is read from it, with no request to the bucket", async () => {
  const { folder, layered } = stores();
  await createRecord(folder, "taps/a", blobRecord(greyPng(1)), greyPng(1));
  const before = { ...s3.requests };
  expect((await readRecord(layered, "taps/a", BlobRecord))?.image.equals(greyPng(1))).toBe(true);
  expect(s3.requests).toEqual(before);
});

test("a value only the bucket holds is read from it; a new value goes to the bucket, not the folder", async () => {
  const { shared, folder, layered } = stores();
  await createRecord(shared, "taps/b", blobRecord(greyPng(2)), greyPng(2));
  expect((await readRecord(layered, "taps/b", BlobRecord))?.image.equals(greyPng(2))).toBe(true);
  expect(await createRecord(layered, "taps/c", blobRecord(greyPng(3)), greyPng(3))).toBe(true);
  expect(await shared.list("taps")).toEqual(["taps/b.json", "taps/b.png", "taps/c.json", "taps/c.png"]);
  expect(await folder.list("")).toEqual([]);
  expect(await layered.list("taps")).toEqual(["taps/b.json", "taps/b.png", "taps/c.json", "taps/c.png"]);
});

test("creating a value the folder already holds writes nothing", async () => {
  const { shared, folder, layered } = stores();
  await createRecord(folder, "taps/a", blobRecord(greyPng(1)), greyPng(1));
  expect(await createRecord(layered, "taps/a", blobRecord(greyPng(4)), greyPng(4))).toBe(false);
  expect(await shared.list("")).toEqual([]);
});

test("a pair never mixes layers: the folder's record is read with the folder's image", async () => {
  const { shared, folder, layered } = stores();
  await createRecord(folder, "taps/a", blobRecord(greyPng(1)), greyPng(1));
  await createRecord(shared, "taps/a", blobRecord(greyPng(5)), greyPng(5));
  expect((await readRecord(layered, "taps/a", BlobRecord))?.image.equals(greyPng(1))).toBe(true);
});

test("healing a committed value writes it to the bucket and the folder", async () => {
  const { shared, folder, layered } = stores();
  await createRecord(folder, "taps/a", blobRecord(greyPng(1)), greyPng(1));
  await readRecord(layered, "taps/a", BlobRecord);
  await replaceRecord(layered, "taps/a", blobRecord(greyPng(6)), greyPng(6), greyPng(1));
  for (const store of [shared, folder, layered]) {
    expect((await readRecord(store, "taps/a", BlobRecord))?.image.equals(greyPng(6))).toBe(true);
  }
});

test("locks are the bucket's, so machines without a shared folder exclude each other", async () => {
  const { shared, layered } = stores();
  const release = await layered.lock("taps/a", { deadline: Date.now() + 2000 });
  try {
    await expect(shared.lock("taps/a", { deadline: Date.now() + 300 })).rejects.toThrow(/waiting for another run/);
  } finally {
    await release();
  }
});
