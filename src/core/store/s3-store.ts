/**
 * {@link Store} over an S3 bucket (AWS S3, MinIO, Cloudflare R2, Ceph RGW): `s3://<bucket>/<prefix>/_ai_/<key>`,
 * the same layout as a storage folder, so `aws s3 sync` and `tapshot pull` move values both ways.
 * The file store's guarantees come from S3's own primitives (docs/device-farms.md):
 * - writes are atomic: PutObject stores the whole object or nothing, and a read after a write sees it
 *   (https://docs.aws.amazon.com/AmazonS3/latest/userguide/Welcome.html#ConsistencyModel);
 * - create-if-absent is PutObject with `If-None-Match: *` (412 when the key exists);
 * - a record (`.json`, the commit point) this store read is replaced with `If-Match` on the ETag it read,
 *   so a parallel writer's record is never lost; images are written plainly, since a record names its
 *   image's SHA-256 and a reader never pairs it with another one (docs/design.md section 6);
 * - locks are lease objects (src/core/store/s3-lease.ts).
 * Before its first write the store checks once that the service honours these conditions.
 */
import { randomUUID } from "node:crypto";
import type { S3Client } from "@aws-sdk/client-s3";
import { ConfigError, StoreError } from "../ground/errors.js";
import { registerSecret } from "../ground/secrets.js";
import { lockKey, storeKeyParts } from "./keys.js";
import { takeLease, type LeaseRelease } from "./s3-lease.js";
import { PRECONDITION_FAILED, S3Objects } from "./s3-objects.js";
import type { LockOptions, ReadOptions, Release, Store, WriteOptions } from "./store.js";

/** Static credentials; their secret parts are redacted from every message tapshot prints. */
export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/**
 * A client the runner built: an `S3Client` of `@aws-sdk/client-s3`, typed by shape so that these types
 * compile without the optional SDK installed.
 */
export interface S3ClientLike {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  send(command: any, options?: any): Promise<any>;
}

/** Options of {@link s3Store}. */
export interface S3StoreOptions {
  /** The bucket name. */
  bucket: string;
  /** A folder in the bucket holding `_ai_/` (no leading or trailing `/`); default: the bucket's root. */
  prefix?: string;
  /** The bucket's region; default: the SDK's (`AWS_REGION`, the shared config). R2 uses `auto`. */
  region?: string;
  /** An S3-compatible service's URL, e.g. `http://localhost:9000` (MinIO) or `https://<account>.r2.cloudflarestorage.com`. */
  endpoint?: string;
  /** Path-style URLs (`<endpoint>/<bucket>/<key>`), which MinIO and most local services need. */
  forcePathStyle?: boolean;
  /** Default: the SDK's provider chain (environment, shared files, SSO, container and instance roles). */
  credentials?: S3Credentials | (() => Promise<S3Credentials>);
  /** A client the runner built; region, endpoint, path style and credentials are then the client's. */
  client?: S3ClientLike;
}

/**
 * The secret environment variables of the AWS SDK's default credential chain: static keys and
 * session tokens (fromEnv), and the container credentials' authorization token (fromContainerMetadata).
 */
const SDK_SECRET_VARIABLES = [
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_SECURITY_TOKEN",
  "AWS_CONTAINER_AUTHORIZATION_TOKEN",
];

/** What the service was found to support, checked once before the first write. */
interface Capabilities {
  release: LeaseRelease;
}

const PROBE_FAILURE =
  "so tapshot could create a value over a parallel run's, or two machines could hold one lock. Use a service " +
  "with conditional writes (AWS S3, MinIO, Cloudflare R2, Ceph RGW; see docs/device-farms.md), or run in mode " +
  '"replay" against it, which writes nothing.';

/** {@link Store} over a bucket; build it with {@link s3Store}. */
export class S3Store implements Store {
  readonly location: string;
  private readonly objects: S3Objects;
  private readonly root: string;
  /** The ETag of each record this store last read or wrote: a replace is conditional on it. */
  private readonly recordEtags = new Map<string, string>();
  private capabilities: Promise<Capabilities> | undefined;

  constructor(options: S3StoreOptions) {
    const bucket = options.bucket;
    if (typeof bucket !== "string" || !/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
      throw new ConfigError(
        `s3Store: bucket ${JSON.stringify(bucket)} is not a bucket name: use 3 to 63 lower-case letters, digits, "." and "-".`,
      );
    }
    const prefix = options.prefix ?? "";
    if (prefix !== "") {
      try {
        storeKeyParts(prefix);
      } catch {
        throw new ConfigError(
          `s3Store: prefix ${JSON.stringify(prefix)} is not a folder path: use segments like "team/storage", ` +
            `without a leading or trailing "/" and without "." or "..".`,
        );
      }
    }
    const credentials = options.credentials;
    if (credentials && typeof credentials === "object" && "secretAccessKey" in credentials) {
      registerSecret(credentials.secretAccessKey);
      registerSecret(credentials.sessionToken);
    }
    // What the SDK's provider chain reads from the environment: a service that echoes them must not print them.
    for (const name of SDK_SECRET_VARIABLES) registerSecret(process.env[name]);
    this.root = `${prefix ? `${prefix}/` : ""}_ai_/`;
    this.location = `s3://${bucket}${prefix ? `/${prefix}` : ""}/_ai_`;
    this.objects = new S3Objects(
      bucket,
      (options.client as S3Client | undefined) ?? {
        ...(options.region ? { region: options.region } : {}),
        ...(options.endpoint ? { endpoint: options.endpoint } : {}),
        ...(options.forcePathStyle ? { forcePathStyle: true } : {}),
        ...(credentials ? { credentials } : {}),
      },
    );
  }

  private objectOf(key: string): string {
    return this.root + storeKeyParts(key).join("/");
  }

  /**
   * Check once that the service refuses what S3 refuses: a second create of a key (`If-None-Match: *`) and
   * a write on a stale ETag (`If-Match`), both 412, and accepts a write on the object's own ETag. A service
   * that ignores the conditions cannot be written to safely and is refused. One that matches only the
   * unquoted ETag (Ceph RGW 16) gets it unquoted from then on. One that ignores a conditional delete
   * (older S3-compatible services, Ceph RGW 16) gets the weaker lease release of docs/device-farms.md.
   * Six requests on one probe object (seven when the ETag must go unquoted).
   */
  private checked(): Promise<Capabilities> {
    this.capabilities ??= this.probe().catch((error: unknown) => {
      this.capabilities = undefined;
      throw error;
    });
    return this.capabilities;
  }

  private async probe(): Promise<Capabilities> {
    const probe = `${this.root}.locks/.probe-${randomUUID()}`;
    const url = this.objects.url(probe);
    const first = await this.objects.put(probe, Buffer.from("1"), { ifNoneMatch: "*" });
    if (first === PRECONDITION_FAILED) {
      throw new StoreError(`${url} was refused as existing before it was created; the service's conditions are wrong.`);
    }
    try {
      if ((await this.objects.put(probe, Buffer.from("2"), { ifNoneMatch: "*" })) !== PRECONDITION_FAILED) {
        throw new StoreError(
          `${this.location}: the service ignores If-None-Match: * (a second create of ${url} overwrote it), ${PROBE_FAILURE}`,
        );
      }
      if ((await this.objects.put(probe, Buffer.from("3"), { ifMatch: '"0"' })) !== PRECONDITION_FAILED) {
        throw new StoreError(
          `${this.location}: the service ignores If-Match (a write of ${url} on a wrong ETag succeeded), ${PROBE_FAILURE}`,
        );
      }
      await this.matchOwnEtag(probe, first);
      const refused = await this.objects.delete(probe, { ifMatch: '"0"' }).catch(() => "unsupported" as const);
      return { release: refused === PRECONDITION_FAILED ? "conditional" : "compare-then-delete" };
    } finally {
      await this.objects.delete(probe).catch(() => undefined);
    }
  }

  /**
   * A write with `If-Match` on the ETag the service just gave must succeed. Ceph RGW 16 compares the header
   * with its stored ETag byte for byte, and stores it without the quotes it sends (docs/device-farms.md):
   * the quoted ETag fails there and the bare one matches, so `If-Match` goes bare from then on.
   */
  private async matchOwnEtag(probe: string, etag: string): Promise<void> {
    if ((await this.objects.put(probe, Buffer.from("4"), { ifMatch: etag })) !== PRECONDITION_FAILED) return;
    this.objects.bareIfMatch = true;
    if ((await this.objects.put(probe, Buffer.from("5"), { ifMatch: etag })) !== PRECONDITION_FAILED) return;
    this.objects.bareIfMatch = false;
    throw new StoreError(
      `${this.location}: the service refuses If-Match even on the ETag it just gave (${etag}, quoted or not) for ` +
        `${this.objects.url(probe)}, so no record or lock could be replaced. Use a service with conditional ` +
        `writes (see docs/device-farms.md), or run in mode "replay" against it, which writes nothing.`,
    );
  }

  async read(key: string, options: ReadOptions = {}): Promise<Buffer | null> {
    const object = this.objectOf(key);
    const got = await this.objects.get(object, options.signal);
    if (key.endsWith(".json")) {
      if (got) this.recordEtags.set(key, got.version.etag);
      else this.recordEtags.delete(key);
    }
    return got?.body ?? null;
  }

  async write(key: string, data: Buffer, options: WriteOptions = {}): Promise<boolean> {
    const object = this.objectOf(key);
    await this.checked();
    const seen = key.endsWith(".json") ? this.recordEtags.get(key) : undefined;
    const condition = options.ifAbsent ? { ifNoneMatch: "*" as const } : seen ? { ifMatch: seen } : {};
    let etag = await this.objects.put(object, data, condition);
    // The SDK sends a write again when its answer was lost (a 500 after the service stored it): the repeat
    // then meets its own first write and gets 412. The bucket holding exactly these bytes is a success.
    if (etag === PRECONDITION_FAILED && (condition.ifMatch || condition.ifNoneMatch)) {
      const now = await this.objects.get(object);
      if (now?.body.equals(data)) etag = now.version.etag;
    }
    if (etag === PRECONDITION_FAILED) {
      if (options.ifAbsent) return false;
      this.recordEtags.delete(key);
      throw new StoreError(
        `${this.objects.url(object)} was replaced by another run after this run read it, so this run's value ` +
          `was not stored over it (the other run's is kept). Run again to use it.`,
      );
    }
    if (key.endsWith(".json")) this.recordEtags.set(key, etag);
    return true;
  }

  async remove(key: string): Promise<void> {
    const object = this.objectOf(key);
    await this.objects.delete(object);
    this.recordEtags.delete(key);
  }

  /**
   * A no-op: S3 cannot move an object's time without rewriting it, which would cost a write request per
   * replay and change its ETag. The CLI reads last use from the runs' calls.jsonl (docs/device-farms.md).
   */
  async touch(key: string): Promise<void> {
    this.objectOf(key);
  }

  async modifiedAt(key: string): Promise<Date | null> {
    return (await this.objects.head(this.objectOf(key)))?.lastModified ?? null;
  }

  async list(prefix: string): Promise<string[]> {
    const from = prefix ? `${this.objectOf(prefix)}/` : this.root;
    const keys = (await this.objects.list(from))
      .map((object) => object.slice(this.root.length))
      .filter((key) => !key.startsWith(".locks/"));
    return keys.sort();
  }

  async lock(key: string, options: LockOptions): Promise<Release> {
    const object = this.objectOf(lockKey(key));
    const { release } = await this.checked();
    return takeLease(this.objects, object, key, release, options);
  }
}

/**
 * A {@link Store} in an S3 bucket, for device farms and CI shards that share no folder
 * (docs/device-farms.md). Pass it as `configureAi({ store })`, or inside `layeredStore`.
 *
 * ```ts
 * import { s3Store } from "tapshot/s3";
 * configureAi({ store: s3Store({ bucket: "team-tapshot", prefix: "storage", region: "eu-west-1" }) });
 * ```
 */
export function s3Store(options: S3StoreOptions): S3Store {
  return new S3Store(options);
}
