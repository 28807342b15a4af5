/**
 * The store a worker opens from its first argument: a storage folder (a FileStore), or
 * `s3://<bucket>/<prefix>?endpoint=<url>` (an S3 store on the test service of tests/support/s3-replica.ts),
 * with `&service=ceph` on Ceph's gateway (tests/support/ceph-rgw.ts), which gets the SDK's default client.
 * One spec names one store in every process, so the contract tests run the same workers on each.
 */
import { createHash } from "node:crypto";
import os from "node:os";
import path from "node:path";
import { S3Client } from "@aws-sdk/client-s3";
import { FileStore } from "../../../src/core/store/file-store.js";
import { s3Store } from "../../../src/core/store/s3-store.js";
import type { Store } from "../../../src/core/store/store.js";
import { cephClientConfig } from "../ceph-rgw.js";
import { testClientConfig } from "../s3-replica.js";

/** Which test service an S3 spec names: the replica in front of s3rver, or Ceph's gateway. */
export type S3Service = "replica" | "ceph";

/** The spec of an S3 store on the test service at `endpoint`. */
export function s3Spec(endpoint: string, bucket: string, prefix: string, service: S3Service = "replica"): string {
  return `s3://${bucket}/${prefix}?endpoint=${encodeURIComponent(endpoint)}${service === "ceph" ? "&service=ceph" : ""}`;
}

export function openStore(spec: string): Store {
  if (!spec.startsWith("s3://")) return new FileStore(spec);
  const url = new URL(spec);
  const endpoint = url.searchParams.get("endpoint")!;
  return s3Store({
    bucket: url.hostname,
    prefix: url.pathname.replace(/^\/|\/$/g, ""),
    client: new S3Client(
      url.searchParams.get("service") === "ceph" ? cephClientConfig(endpoint) : testClientConfig(endpoint),
    ),
  });
}

/** A local file only one process can hold at a time, for catching two lock holders at once. */
export function markerFile(spec: string): string {
  if (!spec.startsWith("s3://")) return path.join(spec, "inside");
  return path.join(os.tmpdir(), `tapshot-inside-${createHash("sha256").update(spec).digest("hex").slice(0, 12)}`);
}
