/**
 * The one place the CLI opens a store: `--store s3://bucket/prefix` (an S3 store, docs/device-farms.md)
 * or `--storage DIR` (a storage folder, which must exist). Every command that reads or changes stored
 * values gets its Store from {@link openStore}.
 */
import { FileStore } from "../core/store/file-store.js";
import { s3Store } from "../core/store/s3-store.js";
import type { Store } from "../core/store/store.js";
import { UsageError } from "./exit.js";
import { defaultStorageDir, existingStorageDir } from "./options.js";

/** Where a command's store is: `store` (an s3:// URL) wins over `storage` (a folder). */
export interface StoreOptions {
  storage?: string;
  store?: string;
}

/** Bucket and prefix of `s3://bucket/prefix`; a UsageError for anything else. */
export function parseStoreUrl(url: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([^/?#]+)(?:\/([^?#]*))?$/.exec(url);
  if (!match) {
    throw new UsageError(
      `--store ${JSON.stringify(url)} is not a bucket URL: use s3://<bucket>/<prefix>, e.g. s3://team-tapshot/storage ` +
        `(the folder in the bucket that holds _ai_/), or --storage <dir> for a folder.`,
    );
  }
  return { bucket: match[1]!, prefix: (match[2] ?? "").replace(/\/+$/, "") };
}

/**
 * An S3 store for `s3://bucket/prefix`, configured as the AWS SDK configures itself (region, credentials,
 * `AWS_ENDPOINT_URL_S3` for another service), plus `TAPSHOT_S3_PATH_STYLE=1` for path-style URLs.
 */
export function openS3Store(url: string, env = process.env): Store {
  const { bucket, prefix } = parseStoreUrl(url);
  return s3Store({ bucket, prefix, ...(env.TAPSHOT_S3_PATH_STYLE === "1" ? { forcePathStyle: true } : {}) });
}

/** The store a command works on. */
export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.store) return openS3Store(options.store);
  return new FileStore(existingStorageDir(options.storage ?? defaultStorageDir()));
}
