/**
 * `tapshot/s3`: team storage in an S3 bucket (AWS S3, MinIO, Cloudflare R2, Ceph RGW) for device farms and CI
 * shards that share no folder. Needs the optional peer dependency `@aws-sdk/client-s3`, imported only
 * when a bucket is first used. Setup, permissions and costs: docs/device-farms.md.
 */
export {
  s3Store,
  S3Store,
  type S3StoreOptions,
  type S3Credentials,
  type S3ClientLike,
} from "../core/store/s3-store.js";
