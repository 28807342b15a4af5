/**
 * `tapshot accept --failed` (docs/reviewing.md "Accepting a failure") as a real process: a real
 * run of the flow fails on a changed screen and keeps its images; the command turns the failure
 * into the stored baseline, accepted, the old one kept; the next run matches with no model call.
 * On a folder store and on a bucket (s3rver behind the precondition replica, and Ceph's RADOS Gateway).
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { S3Client } from "@aws-sdk/client-s3";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { ACCEPTED_FAILURE_MODEL } from "../../src/cli/review/accept-failed.js";
import { ScreenshotMismatchError } from "../../src/core/ground/errors.js";
import { RUN_ID, type Artifact } from "../../src/core/ground/artifacts.js";
import { BaselineRecordSchema } from "../../src/core/store/baseline-record.js";
import { readRecord } from "../../src/core/store/record-io.js";
import { FileStore } from "../../src/core/store/file-store.js";
import { s3Store } from "../../src/core/store/s3-store.js";
import type { Store } from "../../src/core/store/store.js";
import { configureAi, resetAi, type AiConfig } from "../../src/runner/index.js";
import { FakeDevice, fakeAdapter, fakeDriver, type FakeScene } from "../support/fake-device.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";
import { CEPH_CREDENTIALS, cephClientConfig, cephSkipped, startCephRgw } from "../support/ceph-rgw.js";
import { S3RVER_CREDENTIALS, startTestS3, testClientConfig } from "../support/s3-replica.js";
import { runCli } from "./run-cli.js";

const KEY = "screenshots/android/shop/fake-phone-1_14";
const api = createPlatformApi(fakeAdapter());
let dir: string;
let channel: ScriptedChannel;

function shop(checkout = "#16a34a"): FakeScene {
  return {
    background: "#ffffff",
    elements: [
      { id: "header", x: 0, y: 24, width: 360, height: 56, fill: "#1e40af" },
      { id: "checkout", x: 40, y: 520, width: 280, height: 56, fill: checkout, mark: "#ffffff" },
    ],
  };
}

function configure(store: Store, mode: "auto" | "replay", more: AiConfig = {}) {
  channel = new ScriptedChannel({
    judge: () => ({ accept: true, varying: [], reason: "scripted: accepts the screen", model: SCRIPTED_MODEL }),
  });
  configureAi({ channel, store, mode, resultsDir: path.join(dir, "results"), log: false, ...more });
}

/** Store a baseline, then fail it on a restyled screen: the run keeps expected, actual and diff. */
async function storeThenFail(store: Store, more: AiConfig = {}): Promise<Buffer> {
  configure(store, "auto", more);
  await api.expect(fakeDriver(new FakeDevice(shop()))).toMatchScreenshot("shop", "the shop");
  const before = (await readRecord(store, KEY, BaselineRecordSchema))!.image;
  const failed = await api
    .expect(fakeDriver(new FakeDevice(shop("#dc2626"))))
    .toMatchScreenshot("shop", "the shop")
    .catch((e: unknown) => e);
  expect(failed).toBeInstanceOf(ScreenshotMismatchError);
  expect((failed as Error).message).toContain("npx tapshot accept --failed");
  return before;
}

/** After the accept: the record is the failure's screenshot, accepted, the old image kept; a replay matches. */
async function expectAccepted(store: Store, before: Buffer) {
  const stored = (await readRecord(store, KEY, BaselineRecordSchema))!;
  expect(stored.record).toMatchObject({
    model: ACCEPTED_FAILURE_MODEL,
    review: { state: "accepted", by: "Tess Reviewer" },
    previous: { model: SCRIPTED_MODEL },
  });
  expect((await store.read(`${KEY}.previous.png`))!.equals(before)).toBe(true);

  configure(store, "replay");
  const next = await api.expect(fakeDriver(new FakeDevice(shop("#dc2626")))).toMatchScreenshot("shop", "the shop");
  expect(next).toMatchObject({ outcome: "matched", aiCalls: 0, diffPixels: 0 });
  expect(channel.count()).toBe(0);
}

beforeEach(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-accept-failed-"));
  await fs.mkdir(path.join(dir, "storage"));
});
afterEach(async () => {
  resetAi();
  await fs.rm(dir, { recursive: true, force: true });
});

test("a folder store: the failure becomes the accepted baseline, every changed file printed; a second accept refuses", async () => {
  const store = new FileStore(path.join(dir, "storage"));
  const before = await storeThenFail(store);
  const where = ["--storage", path.join(dir, "storage"), "--results", path.join(dir, "results")];

  const accepted = await runCli(["accept", "--failed", "--by", "Tess Reviewer", ...where]);

  expect(accepted.stderr).toBe("");
  expect(accepted.code).toBe(0);
  expect(accepted.stdout).toContain("Accepted 1 failed baseline of run ");
  for (const file of [".previous.png", ".png", ".json"]) {
    expect(accepted.stdout).toContain(`${path.join(dir, "storage")}/_ai_/${KEY}${file}`);
  }
  await expectAccepted(store, before);

  // The run failed against the baseline that is now previous: accepting it again would overwrite a newer value.
  const again = await runCli(["accept", "--failed", "--by", "Tess Reviewer", ...where]);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain(`did not accept ${KEY}: the stored baseline changed since run `);
});

test("a runner with its own reportArtifact: the reporter gets the images, the run folder keeps them, accept --failed accepts", async () => {
  const store = new FileStore(path.join(dir, "storage"));
  const received: Artifact[] = [];
  // A device farm's reporter: uploads each image and names its URL.
  const reportArtifact = (a: Artifact) => {
    received.push(a);
    return `https://farm.example/runs/42/${a.name}`;
  };
  const before = await storeThenFail(store, { reportArtifact });
  expect(received.map((a) => a.role).sort()).toEqual(["actual", "composite", "diff", "expected"]);
  const calls = (await fs.readFile(path.join(dir, "results", RUN_ID, "calls.jsonl"), "utf8")).trim().split("\n");
  const failed = JSON.parse(calls.at(-1)!) as { outcome: string; artifacts: string[] };
  expect(failed.outcome).toBe("failed");
  // The run folder's copies first, then the reporter's URLs: both named in the error and the record.
  const actual = received.find((a) => a.role === "actual")!;
  const kept = failed.artifacts.find((a) => a.endsWith("__actual.png") && !a.startsWith("https:"))!;
  expect((await fs.readFile(kept)).equals(actual.data)).toBe(true);
  expect(failed.artifacts).toContain(`https://farm.example/runs/42/${actual.name}`);

  const accepted = await runCli([
    "accept",
    "--failed",
    "--by",
    "Tess Reviewer",
    "--storage",
    path.join(dir, "storage"),
    "--results",
    path.join(dir, "results"),
  ]);
  expect(accepted.stderr).toBe("");
  expect(accepted.code).toBe(0);
  expect(accepted.stdout).toContain("Accepted 1 failed baseline of run ");
  await expectAccepted(store, before);
});

test("a failure whose screen size no longer matches the store is refused, and nothing is written", async () => {
  const store = new FileStore(path.join(dir, "storage"));
  await storeThenFail(store);
  // The same model at another display size: mode auto judges a new baseline and replaces the old one.
  configure(store, "auto");
  await api.expect(fakeDriver(new FakeDevice(shop(), { width: 400 }))).toMatchScreenshot("shop", "the shop");
  const json = await store.read(`${KEY}.json`);

  const refused = await runCli([
    "accept",
    "--failed",
    "--storage",
    path.join(dir, "storage"),
    "--results",
    path.join(dir, "results"),
  ]);

  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain("the failure's screenshot is 360x640, the stored baseline 400x640");
  expect((await store.read(`${KEY}.json`))!.equals(json!)).toBe(true);
});

test("--run names an unknown run: a usage error listing the known ones", async () => {
  const store = new FileStore(path.join(dir, "storage"));
  await storeThenFail(store);
  const out = await runCli([
    "accept",
    "--failed",
    "--run",
    "nope",
    "--storage",
    path.join(dir, "storage"),
    "--results",
    path.join(dir, "results"),
  ]);
  expect(out.code).toBe(2);
  expect(out.stderr).toContain('No run "nope"');
});

/** A bucket service for the command: its client for this process, and the environment for the child. */
interface Bucket {
  endpoint: string;
  bucket: string;
  client: S3Client;
  env: Record<string, string>;
  stop(): Promise<void>;
}

const buckets: { name: string; start(): Promise<Bucket> }[] = [
  {
    name: "the S3 replica",
    async start() {
      const s3 = await startTestS3("s3");
      return {
        ...s3,
        client: new S3Client(testClientConfig(s3.endpoint)),
        env: {
          AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
          AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
          AWS_REQUEST_CHECKSUM_CALCULATION: "WHEN_REQUIRED",
          AWS_RESPONSE_CHECKSUM_VALIDATION: "WHEN_REQUIRED",
        },
      };
    },
  },
  ...(cephSkipped
    ? []
    : [
        {
          name: "Ceph RGW",
          async start() {
            const ceph = await startCephRgw();
            return {
              ...ceph,
              client: new S3Client(cephClientConfig(ceph.endpoint)),
              env: {
                AWS_ACCESS_KEY_ID: CEPH_CREDENTIALS.accessKeyId,
                AWS_SECRET_ACCESS_KEY: CEPH_CREDENTIALS.secretAccessKey,
              },
            };
          },
        },
      ]),
];

describe.each(buckets)("on a bucket: $name", (service) => {
  let s3: Bucket;
  beforeAll(async () => {
    s3 = await service.start();
  }, 120_000);
  afterAll(async () => {
    await s3?.stop();
  });

  test("--store s3://: the failure becomes the accepted baseline in the bucket", async () => {
    const prefix = `team/${randomUUID()}`;
    const store = s3Store({ bucket: s3.bucket, prefix, client: s3.client });
    const before = await storeThenFail(store);

    const accepted = await runCli(
      [
        "accept",
        "--failed",
        "--by",
        "Tess Reviewer",
        "--store",
        `s3://${s3.bucket}/${prefix}`,
        "--results",
        path.join(dir, "results"),
      ],
      {
        AWS_ENDPOINT_URL_S3: s3.endpoint,
        AWS_REGION: "us-east-1",
        ...s3.env,
        TAPSHOT_S3_PATH_STYLE: "1",
        AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
      },
    );

    expect(accepted.stderr).toBe("");
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toContain(`${KEY}.previous.png`);
    await expectAccepted(store, before);
  });
});
