/**
 * The few S3 operations the S3 store needs, on the AWS SDK for JavaScript v3, with S3's
 * answers turned into values: a missing object is `null`, a failed precondition is
 * {@link PRECONDITION_FAILED}. Everything else is a StoreError naming the object.
 * The SDK is an optional peer dependency, imported the first time a bucket is used
 * (docs/device-farms.md).
 */
import type { S3Client, S3ClientConfig } from "@aws-sdk/client-s3";
import { AbortedError, ConfigError, StoreError, TimeoutError } from "../ground/errors.js";
import { redact } from "../ground/secrets.js";
import { sleep } from "../ground/deadline.js";

type Sdk = typeof import("@aws-sdk/client-s3");

let sdk: Promise<Sdk> | undefined;

/** The SDK module, imported once; a ConfigError saying how to install it when it is missing. */
export function loadSdk(): Promise<Sdk> {
  sdk ??= import("@aws-sdk/client-s3").catch((error: unknown) => {
    sdk = undefined;
    throw new ConfigError(
      "s3Store needs the AWS SDK for JavaScript v3, which is an optional peer dependency of tapshot: " +
        "run `npm install --save-dev @aws-sdk/client-s3` in your project.",
      { cause: error },
    );
  });
  return sdk;
}

/** Returned instead of throwing when S3 answers 412 Precondition Failed. */
export const PRECONDITION_FAILED = Symbol("precondition failed");

/** What S3 says about a stored object. */
export interface ObjectVersion {
  etag: string;
  lastModified: Date;
}

/** Conditions of a write, sent as the `If-None-Match` / `If-Match` headers. */
export interface PutCondition {
  ifNoneMatch?: "*";
  ifMatch?: string;
}

/** How often a write that met a concurrent conditional write (409) is sent again. */
const CONFLICT_RETRIES = 5;
/** The wait before the first resend of a write that met a 409, doubled for each later one (25 ms to 400 ms). */
const CONFLICT_BACKOFF_MS = 25;

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
}

function nameOf(error: unknown): string {
  return (error as { name?: string } | undefined)?.name ?? "";
}

/** Objects of one bucket, addressed by full object key. */
export class S3Objects {
  private made: Promise<S3Client> | undefined;
  /**
   * Send `If-Match` ETags without their quotes: set by the store's probe for services (Ceph RGW 16) that
   * compare the header byte for byte with the unquoted ETag they store (docs/device-farms.md).
   */
  bareIfMatch = false;

  constructor(
    readonly bucket: string,
    private readonly clientOrConfig: S3Client | S3ClientConfig,
  ) {}

  /** The client, made at the first request: a missing SDK rejects that request, never an unawaited promise. */
  private get client(): Promise<S3Client> {
    const given = this.clientOrConfig;
    this.made ??= isClient(given)
      ? Promise.resolve(given)
      : loadSdk().then(
          (m) => new m.S3Client(given),
          (error: unknown) => {
            this.made = undefined;
            throw error;
          },
        );
    return this.made;
  }

  /** The `If-Match` header for an ETag as the service returned it (quoted, per RFC 7232 section 2.3). */
  private ifMatch(etag: string): string {
    return this.bareIfMatch ? bareEtag(etag) : etag;
  }

  /** `s3://bucket/key`, for messages. */
  url(key: string): string {
    return `s3://${this.bucket}/${key}`;
  }

  private failure(action: string, key: string, error: unknown, signal?: AbortSignal): Error {
    if (error instanceof StoreError || error instanceof ConfigError) return error as StoreError;
    // The SDK rejects an aborted request with its own AbortError: the call's deadline or abort says why.
    if (signal?.aborted) return abortReason(signal, `${action} ${this.url(key)}`);
    const status = statusOf(error);
    const name = nameOf(error) || "error";
    let hint = "";
    if (status === 403) {
      hint =
        " Check that the credentials allow this action on the bucket (docs/device-farms.md lists the permissions).";
    } else if (status === 301 || nameOf(error) === "PermanentRedirect") {
      hint = " The bucket is in another region: pass its region.";
    } else if (nameOf(error) === "NoSuchBucket") {
      hint = " Check the bucket name, or create the bucket.";
    }
    // A service may quote the request's credentials back (a session token it refused).
    return new StoreError(
      redact(
        `Could not ${action} ${this.url(key)}: ${name}${status ? ` (HTTP ${status})` : ""}: ${(error as Error).message}.${hint}`,
      ),
      { cause: error },
    );
  }

  async get(key: string, signal?: AbortSignal): Promise<{ body: Buffer; version: ObjectVersion } | null> {
    const { GetObjectCommand } = await loadSdk();
    try {
      const out = await (
        await this.client
      ).send(new GetObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal: signal });
      const body = Buffer.from(await out.Body!.transformToByteArray());
      return { body, version: { etag: out.ETag ?? "", lastModified: out.LastModified ?? new Date(0) } };
    } catch (error) {
      if (statusOf(error) === 404 || nameOf(error) === "NoSuchKey") return null;
      throw this.failure("read", key, error, signal);
    }
  }

  async head(key: string, signal?: AbortSignal): Promise<ObjectVersion | null> {
    const { HeadObjectCommand } = await loadSdk();
    try {
      const out = await (
        await this.client
      ).send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }), { abortSignal: signal });
      return { etag: out.ETag ?? "", lastModified: out.LastModified ?? new Date(0) };
    } catch (error) {
      if (statusOf(error) === 404 || nameOf(error) === "NotFound" || nameOf(error) === "NoSuchKey") return null;
      throw this.failure("read", key, error, signal);
    }
  }

  /**
   * PutObject, atomic: S3 never stores part of an upload. With `ifNoneMatch: "*"` S3 answers 412 when the
   * key exists; with `ifMatch` 412 when its ETag differs and 404 when it is gone (both PRECONDITION_FAILED
   * here). A 409 ConditionalRequestConflict means a conflicting operation on the key was under way: AWS says
   * to retry (with `If-Match`, on the ETag fetched again: a resend on the same ETag gets 412 when the other
   * operation changed it). It is sent again after a growing wait, then is a StoreError that
   * {@link isConflict} recognises. Sources: https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-writes.html,
   * https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html (If-Match, If-None-Match)
   */
  async put(
    key: string,
    body: Buffer,
    condition: PutCondition = {},
    signal?: AbortSignal,
  ): Promise<string | typeof PRECONDITION_FAILED> {
    const { PutObjectCommand } = await loadSdk();
    for (let attempt = 0; ; attempt++) {
      try {
        const out = await (
          await this.client
        ).send(
          new PutObjectCommand({
            Bucket: this.bucket,
            Key: key,
            Body: body,
            ...(condition.ifNoneMatch ? { IfNoneMatch: condition.ifNoneMatch } : {}),
            ...(condition.ifMatch ? { IfMatch: this.ifMatch(condition.ifMatch) } : {}),
          }),
          { abortSignal: signal },
        );
        return out.ETag ?? "";
      } catch (error) {
        const status = statusOf(error);
        const conditional = condition.ifNoneMatch !== undefined || condition.ifMatch !== undefined;
        if (conditional && status === 412) return PRECONDITION_FAILED;
        if (condition.ifMatch && (status === 404 || nameOf(error) === "NoSuchKey")) return PRECONDITION_FAILED;
        if (conditional && status === 409 && attempt < CONFLICT_RETRIES) {
          // Sent again at once, it meets the same operation still under way: wait for it to finish.
          await sleep(CONFLICT_BACKOFF_MS * 2 ** attempt * (0.5 + Math.random()), signal).catch(() => undefined);
          continue;
        }
        throw this.failure("write", key, error, signal);
      }
    }
  }

  /**
   * DeleteObject; with `ifMatch`, S3 deletes only when the object's ETag is that one and answers 412
   * otherwise. Source: https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-deletes.html
   * Deleting a missing key is not an error in S3.
   */
  async delete(
    key: string,
    condition: { ifMatch?: string } = {},
    signal?: AbortSignal,
  ): Promise<"deleted" | typeof PRECONDITION_FAILED> {
    const { DeleteObjectCommand } = await loadSdk();
    try {
      await (
        await this.client
      ).send(
        new DeleteObjectCommand({
          Bucket: this.bucket,
          Key: key,
          ...(condition.ifMatch ? { IfMatch: this.ifMatch(condition.ifMatch) } : {}),
        }),
        { abortSignal: signal },
      );
      return "deleted";
    } catch (error) {
      const status = statusOf(error);
      if (condition.ifMatch && (status === 412 || status === 404)) return PRECONDITION_FAILED;
      if (!condition.ifMatch && status === 404) return "deleted";
      throw this.failure("remove", key, error, signal);
    }
  }

  /**
   * Every object key starting with `prefix`, in S3's order (UTF-8 binary), all pages. A service whose
   * pages never end would be asked for pages forever: a page that repeats a continuation token or a key
   * an earlier page gave, {@link MAX_PAGES_WITHOUT_KEYS} truncated pages in a row that add no key, or more
   * than {@link MAX_LIST_PAGES} pages in all is a StoreError.
   */
  async list(prefix: string, signal?: AbortSignal): Promise<string[]> {
    const { ListObjectsV2Command } = await loadSdk();
    const pages = new ListingPages(this.url(prefix));
    let token: string | undefined;
    try {
      do {
        const out = await (
          await this.client
        ).send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }), {
          abortSignal: signal,
        });
        token = pages.add(out);
      } while (token);
    } catch (error) {
      throw this.failure("list", prefix, error, signal);
    }
    return pages.keys;
  }
}

/** More pages than this in one listing (10 million keys at S3's 1000 a page) is a service that never ends it. */
export const MAX_LIST_PAGES = 10_000;
/**
 * Truncated pages in a row that add no key. A page may hold fewer keys than MaxKeys, even none
 * (https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html: "some or all (up to 1,000)"),
 * but this many empty ones in a row is a listing that makes no progress.
 */
export const MAX_PAGES_WITHOUT_KEYS = 50;

/** What a ListObjectsV2 page says that a listing reads. */
interface ListPage {
  Contents?: { Key?: string }[];
  IsTruncated?: boolean;
  NextContinuationToken?: string;
}

/** The pages of one ListObjectsV2 listing, checked for the signs of a listing that would never end. */
class ListingPages {
  readonly keys: string[] = [];
  private readonly seenKeys = new Set<string>();
  private readonly tokens = new Set<string>();
  private pages = 0;
  private withoutKeys = 0;

  constructor(private readonly url: string) {}

  /** Take one page; the token of the next one, or `undefined` when the listing is complete. */
  add(out: ListPage): string | undefined {
    this.pages++;
    const token = out.IsTruncated ? this.nextToken(out.NextContinuationToken) : undefined;
    const before = this.keys.length;
    for (const item of out.Contents ?? []) {
      if (!item.Key) continue;
      if (this.seenKeys.has(item.Key)) {
        throw this.endless(`page ${this.pages} listed ${JSON.stringify(item.Key.slice(0, 200))} again`);
      }
      this.seenKeys.add(item.Key);
      this.keys.push(item.Key);
    }
    if (token === undefined) return undefined;
    this.withoutKeys = this.keys.length === before ? this.withoutKeys + 1 : 0;
    if (this.withoutKeys >= MAX_PAGES_WITHOUT_KEYS) {
      throw this.endless(`${this.withoutKeys} truncated pages in a row listed no new key`);
    }
    if (this.pages >= MAX_LIST_PAGES) throw this.endless(`it is still truncated after ${this.pages} pages`);
    return token;
  }

  /** The continuation token of a truncated page: there must be one, and not one an earlier page gave. */
  private nextToken(token: string | undefined): string {
    if (!token) {
      throw new StoreError(
        `Could not list ${this.url}: the service said the listing is truncated but gave no ` +
          `continuation token, so the rest cannot be read. The service does not follow S3's ListObjectsV2.`,
      );
    }
    if (this.tokens.has(token)) {
      throw this.endless(`page ${this.pages} gave the continuation token ${JSON.stringify(token.slice(0, 80))} again`);
    }
    this.tokens.add(token);
    return token;
  }

  private endless(what: string): StoreError {
    return new StoreError(
      `Could not list ${this.url}: ${what}, so the listing would never end (stopped after ${this.keys.length} ` +
        `keys). The service does not follow S3's ListObjectsV2: check the endpoint, or the proxy in front of it.`,
    );
  }
}

/** Whether `error` is a write that kept meeting a conflicting operation on its key (409 ConditionalRequestConflict). */
export function isConflict(error: unknown): boolean {
  return error instanceof StoreError && statusOf(error.cause) === 409;
}

/** The deadline's TimeoutError or the caller's AbortedError, as the call made them. */
function abortReason(signal: AbortSignal, doing: string): Error {
  if (signal.reason instanceof TimeoutError || signal.reason instanceof AbortedError) return signal.reason;
  return new AbortedError(`Aborted while waiting to ${doing}.`, { cause: signal.reason });
}

/** An ETag without its quotes and weak marker (RFC 7232 section 2.3): what Ceph RGW stores and compares. */
function bareEtag(etag: string): string {
  return etag
    .trim()
    .replace(/^W\//, "")
    .replace(/^"(.*)"$/, "$1");
}

function isClient(value: S3Client | S3ClientConfig): value is S3Client {
  return typeof (value as S3Client).send === "function";
}
