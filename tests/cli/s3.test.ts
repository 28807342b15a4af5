/**
 * The tapshot command on a bucket, on two services started here: s3rver behind the precondition replica, and
 * Ceph's RADOS Gateway (a real S3 implementation, tests/support/ceph-rgw.ts). Push seeds a bucket from a
 * storage folder, list/show/prune take --store s3://, pull copies what the folder lacks, report, pending,
 * accept and revert work on it, and a bad URL is a usage error. The SDK is configured as users configure it:
 * environment variables.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import { CEPH_CREDENTIALS, cephSkipped, startCephRgw } from "../support/ceph-rgw.js";
import { S3RVER_CREDENTIALS, startTestS3 } from "../support/s3-replica.js";
import { makeFixture, PIXEL, type Fixture } from "./fixture.js";
import { runCli } from "./run-cli.js";

/** A running service and the environment that points the command at it. */
interface Service {
  bucket: string;
  env: Record<string, string>;
  stop(): Promise<void>;
}

function environment(endpoint: string, keys: { accessKeyId: string; secretAccessKey: string }) {
  return {
    AWS_ENDPOINT_URL_S3: endpoint,
    AWS_REGION: "us-east-1",
    AWS_ACCESS_KEY_ID: keys.accessKeyId,
    AWS_SECRET_ACCESS_KEY: keys.secretAccessKey,
    TAPSHOT_S3_PATH_STYLE: "1",
    // The SDK warns on stderr about Node 20 support; stderr here must show only what tapshot prints.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
  };
}

const services: { name: string; start(): Promise<Service> }[] = [
  {
    name: "the S3 replica",
    async start() {
      const s3 = await startTestS3("s3");
      const env = {
        ...environment(s3.endpoint, S3RVER_CREDENTIALS),
        // s3rver predates the SDK's default request checksums.
        AWS_REQUEST_CHECKSUM_CALCULATION: "WHEN_REQUIRED",
        AWS_RESPONSE_CHECKSUM_VALIDATION: "WHEN_REQUIRED",
      };
      return { bucket: s3.bucket, env, stop: () => s3.stop() };
    },
  },
  ...(cephSkipped
    ? []
    : [
        {
          name: "Ceph RGW",
          async start() {
            const ceph = await startCephRgw();
            return { bucket: ceph.bucket, env: environment(ceph.endpoint, CEPH_CREDENTIALS), stop: () => ceph.stop() };
          },
        },
      ]),
];

let fx: Fixture;
beforeAll(async () => {
  fx = await makeFixture();
});
afterAll(async () => {
  await fx?.cleanup();
});

describe.each(services)("on $name", (service) => {
  let s3: Service;
  let env: Record<string, string>;
  beforeAll(async () => {
    s3 = await service.start();
    env = s3.env;
  }, 120_000);
  afterAll(async () => {
    await s3?.stop();
  });

  test("push, list and show with --store, prune, then pull into a fresh folder", async () => {
    const url = `s3://${s3.bucket}/team/${randomUUID()}`;
    const pushed = await runCli(["push", "--to", url, "--storage", fx.storage, "--json"], env);
    expect(pushed.stderr).toBe("");
    expect(pushed.code).toBe(0);
    const copied = (JSON.parse(pushed.stdout) as { copied: string[] }).copied;
    expect(copied).toEqual(expect.arrayContaining([fx.keys.healedTap, fx.keys.cartPixel]));
    // The invalid record is copied as it is: push moves records, list judges them.
    expect(
      JSON.parse((await runCli(["push", "--to", url, "--storage", fx.storage, "--json"], env)).stdout),
    ).toMatchObject({
      copied: [],
      differs: [],
    });

    const local = JSON.parse(
      (await runCli(["list", "--json", "--storage", fx.storage, "--results", fx.results], env)).stdout,
    );
    const listed = await runCli(["list", "--json", "--store", url, "--results", fx.results], env);
    expect(listed.code).toBe(0);
    const remote = JSON.parse(listed.stdout);
    const keysOf = (out: { taps: { key: string }[]; baselines: { key: string }[] }) =>
      [...out.taps, ...out.baselines].map((e) => e.key).sort();
    expect(keysOf(remote)).toEqual(keysOf(local));
    expect(remote.storage).toBe(`${url}/_ai_`);

    const shown = await runCli(["show", "the checkout button", "--store", url, "--results", fx.results], env);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`${url}/_ai_/${fx.keys.healedTap}.json`);

    const pruned = await runCli(["prune", "--device", PIXEL, "--store", url, "--results", fx.results, "--json"], env);
    expect(pruned.code).toBe(0);
    const removed = (JSON.parse(pruned.stdout) as { removed: { key: string }[] }).removed.map((r) => r.key);
    expect(removed).toContain(fx.keys.cartPixel);

    const fresh = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-pull-"));
    try {
      const pulled = await runCli(["pull", "--from", url, "--storage", fresh, "--json"], env);
      expect(pulled.code).toBe(0);
      const got = (JSON.parse(pulled.stdout) as { copied: string[] }).copied;
      // What prune removed from the bucket (the Pixel's records) is not pulled; the rest is, byte for byte.
      expect(got).toContain(fx.keys.iosTap);
      expect(got).not.toContain(fx.keys.healedTap);
      expect(got).not.toContain(fx.keys.cartPixel);
      for (const file of [`${fx.keys.iosTap}.json`, `${fx.keys.iosTap}.png`]) {
        const original = await fs.readFile(path.join(fx.storage, "_ai_", file));
        expect((await fs.readFile(path.join(fresh, "_ai_", file))).equals(original)).toBe(true);
      }
      expect((await runCli(["list", "--storage", fresh], env)).code).toBe(0);
    } finally {
      await fs.rm(fresh, { recursive: true, force: true });
    }
  });

  let pulledFolder: string | undefined;
  async function freshFolder(): Promise<string> {
    pulledFolder = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-pull-"));
    return pulledFolder;
  }

  test("report, pending, accept and revert work on a bucket: images through the store, decisions under its locks", async () => {
    const url = `s3://${s3.bucket}/report/${randomUUID()}`;
    expect((await runCli(["push", "--to", url, "--storage", fx.storage], env)).code).toBe(0);
    const out = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-report-s3-"));
    try {
      const report = await runCli(["report", "--store", url, "--results", fx.results, "--out", out, "--json"], env);
      expect(report.stderr).toBe("");
      expect(report.code).toBe(0);
      for (const file of [`${fx.keys.healedTap}.png`, `${fx.keys.healedTap}.previous.png`]) {
        const original = await fs.readFile(path.join(fx.storage, "_ai_", file));
        expect((await fs.readFile(path.join(out, "files", "store", file))).equals(original)).toBe(true);
      }
      expect(await fs.readFile(path.join(out, "index.html"), "utf8")).toContain(`files/store/`);

      const pending = JSON.parse((await runCli(["pending", "--store", url, "--json"], env)).stdout) as {
        pending: { key: string }[];
      };
      expect(pending.pending.map((p) => p.key)).toContain(fx.keys.healedTap);
      // accept replaces the record under the key's lock, conditionally on the ETag it read.
      const accepted = await runCli(["accept", "add to cart", "--store", url, "--by", "ci"], env);
      expect(accepted.stderr).toBe("");
      expect(accepted.code).toBe(0);
      expect(accepted.stdout).toContain(`${url}/_ai_/${fx.keys.failedTap}.json`);
      const reverted = await runCli(["revert", "the checkout button", "--store", url, "--by", "ci", "--json"], env);
      expect(reverted.stderr).toBe("");
      expect(reverted.code).toBe(0);
      expect(reverted.stdout).toContain(`${fx.keys.healedTap}.json`);
      // The heal is undone in the bucket: its previous image is the stored one now, and the rejected one is remembered.
      const local = path.join(fx.storage, "_ai_", fx.keys.healedTap);
      const restored = await runCli(["pull", "--from", url, "--storage", await freshFolder(), "--json"], env);
      const copied = (JSON.parse(restored.stdout) as { copied: string[] }).copied;
      expect(copied).toContain(fx.keys.healedTap);
      expect(pulledFolder).toBeDefined();
      const record = JSON.parse(
        await fs.readFile(path.join(pulledFolder!, "_ai_", `${fx.keys.healedTap}.json`), "utf8"),
      );
      expect(record.previous ?? null).toBeNull();
      expect(record.rejected).toHaveLength(1);
      const image = await fs.readFile(path.join(pulledFolder!, "_ai_", `${fx.keys.healedTap}.png`));
      expect(image.equals(await fs.readFile(`${local}.previous.png`))).toBe(true);
    } finally {
      await fs.rm(out, { recursive: true, force: true });
      if (pulledFolder) await fs.rm(pulledFolder, { recursive: true, force: true });
    }
  });
});

test.each(["s3:/bucket", "https://bucket/prefix", "s3://"])(
  "--store %p is a usage error saying the form",
  async (url) => {
    const { code, stderr } = await runCli(["list", "--store", url]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/is not a bucket URL: use s3:\/\/<bucket>\/<prefix>/);
  },
);
