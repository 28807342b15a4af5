/**
 * An S3 service for tests, started by the tests themselves: the npm `s3rver` holds the data (real HTTP,
 * real SigV4, real XML), and a conformance replica of S3's precondition rules stands in front of it,
 * because s3rver ignores `If-None-Match` and `If-Match` on writes. The replica serialises every write
 * and delete of one key, checks the request's conditions against the object s3rver holds, and either
 * answers as S3 answers a failed precondition or forwards the request unchanged (signature intact).
 * It applies one bucket's requests one at a time (a valid order of S3's atomic operations), since s3rver writes
 * its files in place and removes emptied folders after a delete, racing the writes of sibling keys.
 * Each rule cites the AWS documentation of the behaviour it copies.
 */
import http from "node:http";
import { promises as fs } from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
// s3rver ships no types; its constructor options and run()/close() are all these tests use.
// @ts-expect-error no declaration file
import S3rver from "s3rver";

/** s3rver's built-in account (its README). */
export const S3RVER_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

/** A running service: point a client at `endpoint` with path-style URLs and {@link S3RVER_CREDENTIALS}. */
export interface TestS3 {
  endpoint: string;
  bucket: string;
  /** How many requests of each kind reached the service (`PUT`, `GET`, `HEAD`, `DELETE`, `LIST`). */
  requests: Record<string, number>;
  stop(): Promise<void>;
}

/**
 * What the replica enforces; `none` is bare s3rver, a service without conditional writes. `s3-conflicts` is
 * `s3` plus AWS's 409 ConditionalRequestConflict: a conditional write of a key while another write or delete
 * of it is under way is refused at once instead of waiting its turn.
 * `unquoted-if-match` is Ceph RGW 16 (docs/device-farms.md): `If-Match` compared byte for byte with the
 * unquoted ETag, conditional deletes ignored. `if-match-never` refuses every `If-Match` write.
 */
export type Preconditions =
  "s3" | "s3-conflicts" | "s3-without-conditional-delete" | "unquoted-if-match" | "if-match-never" | "none";

interface S3rverInstance {
  run(): Promise<{ address: string; port: number }>;
  close(): Promise<void>;
}

/** The S3 client options the tests (and the store options built from them) use against {@link TestS3}. */
export function testClientConfig(endpoint: string) {
  return {
    endpoint,
    region: "us-east-1",
    forcePathStyle: true,
    credentials: S3RVER_CREDENTIALS,
    // s3rver predates the SDK's default request checksums (aws-chunked uploads with trailers).
    requestChecksumCalculation: "WHEN_REQUIRED" as const,
    responseChecksumValidation: "WHEN_REQUIRED" as const,
  };
}

/** Start s3rver with one empty bucket and, unless `preconditions` is `none`, the replica in front of it. */
export async function startTestS3(preconditions: Preconditions = "s3", bucket = "tapshot-test"): Promise<TestS3> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-s3rver-"));
  const server = new (S3rver as new (options: object) => S3rverInstance)({
    port: 0,
    address: "127.0.0.1",
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const upstream = `http://127.0.0.1:${port}`;
  const requests: Record<string, number> = {};
  const replica = startReplica(upstream, preconditions, requests);
  await new Promise<void>((resolve) => replica.listen(0, "127.0.0.1", resolve));
  const endpoint = `http://127.0.0.1:${(replica.address() as AddressInfo).port}`;
  return {
    endpoint,
    bucket,
    requests,
    async stop() {
      replica.closeAllConnections();
      await new Promise<void>((resolve) => replica.close(() => resolve()));
      await server.close();
      await fs.rm(directory, { recursive: true, force: true });
    },
  };
}

/** ETags compare without their quotes and weak marker (RFC 7232 section 2.3). */
function sameEtag(a: string, b: string): boolean {
  const bare = (etag: string) => etag.trim().replace(/^W\//, "").replace(/^"|"$/g, "");
  return bare(a) === bare(b);
}

function s3Error(response: http.ServerResponse, status: number, code: string, message: string): void {
  response.writeHead(status, { "content-type": "application/xml" });
  response.end(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message>` +
      `<RequestId>replica</RequestId></Error>`,
  );
}

function startReplica(upstream: string, preconditions: Preconditions, requests: Record<string, number>) {
  const client = new S3Client(testClientConfig(upstream));
  const queues = new Map<string, Promise<void>>();
  /** Writes and deletes of each bucket/key queued or under way. */
  const writing = new Map<string, number>();

  /**
   * Run `work` after every earlier request to `bucket`. S3 applies each request atomically
   * (https://docs.aws.amazon.com/AmazonS3/latest/userguide/Welcome.html#ConsistencyModel); s3rver does not:
   * it writes files in place, and a delete removes the folders it emptied, so a sibling key's write stream
   * can open in a folder that no longer exists and throw outside any handler. One request at a time per
   * bucket is one of the orders S3 itself could have applied.
   */
  function serialised(bucket: string, work: () => Promise<void>): Promise<void> {
    const before = queues.get(bucket) ?? Promise.resolve();
    const done = before.then(work, work);
    queues.set(
      bucket,
      done.catch(() => undefined),
    );
    return done;
  }

  async function currentEtag(bucket: string, key: string): Promise<string | null> {
    try {
      return (await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }))).ETag ?? "";
    } catch (error) {
      if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return null;
      throw error;
    }
  }

  /** The answer S3 gives when the request's conditions do not hold, or `null` to let it through. */
  async function refusal(
    method: string,
    headers: http.IncomingHttpHeaders,
    bucket: string,
    key: string,
  ): Promise<[number, string, string] | null> {
    const ifNoneMatch = headers["if-none-match"];
    const ifMatch = headers["if-match"];
    if (method === "PUT" && ifNoneMatch !== undefined) {
      // "If-None-Match: *" creates only when no object has the key; otherwise 412 Precondition Failed.
      // https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-writes.html#conditional-write-key-names
      // PutObject accepts only "*" here: https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html
      if (ifNoneMatch !== "*") return [501, "NotImplemented", "If-None-Match on PutObject accepts only *"];
      if ((await currentEtag(bucket, key)) !== null) {
        return [412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold"];
      }
    }
    if (method === "PUT" && ifMatch !== undefined) {
      // "If-Match: <etag>" writes only over that ETag: 412 when it differs, 404 NoSuchKey when no object has
      // the key. https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-writes.html#conditional-error-response
      const etag = await currentEtag(bucket, key);
      if (etag === null) return [404, "NoSuchKey", "The specified key does not exist."];
      // Ceph RGW 16 compares the header with the ETag it stores, unquoted: https://github.com/block/buzz/issues/3002
      const unquoted = preconditions === "unquoted-if-match" && ifMatch !== etag.replace(/"/g, "");
      if (unquoted || preconditions === "if-match-never" || !sameEtag(etag, ifMatch)) {
        return [412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold"];
      }
    }
    if (method === "DELETE" && ifMatch !== undefined && (preconditions === "s3" || preconditions === "s3-conflicts")) {
      // DeleteObject with "If-Match: <etag>" deletes only that ETag, else 412; "*" matches any existing
      // object. https://docs.aws.amazon.com/AmazonS3/latest/userguide/conditional-deletes.html
      // No object matches no ETag (RFC 7232 section 3.1), so a missing key is 412 as well.
      const etag = await currentEtag(bucket, key);
      if (etag === null || (ifMatch !== "*" && !sameEtag(etag, ifMatch))) {
        return [412, "PreconditionFailed", "At least one of the pre-conditions you specified did not hold"];
      }
    }
    return null;
  }

  function forward(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    return new Promise((resolve) => {
      const out = http.request(
        `${upstream}${request.url}`,
        { method: request.method, headers: request.headers },
        (answer) => {
          response.writeHead(answer.statusCode ?? 500, answer.headers);
          answer.pipe(response);
          answer.on("end", resolve);
          answer.on("error", () => resolve());
        },
      );
      out.on("error", (error) => {
        // A client that went away (a killed worker) mid-answer: nothing is left to answer.
        if (response.headersSent) response.destroy();
        else s3Error(response, 502, "InternalError", error.message);
        resolve();
      });
      request.pipe(out);
    });
  }

  /** Check a write or delete against its conditions and answer as S3 does, or forward it. */
  async function conditionalWrite(
    request: http.IncomingMessage,
    response: http.ServerResponse,
    method: string,
    bucket: string,
    key: string,
  ): Promise<void> {
    let refused: [number, string, string] | null;
    try {
      refused = await refusal(method, request.headers, bucket, key);
    } catch (error) {
      s3Error(response, 500, "InternalError", (error as Error).message);
      return;
    }
    if (refused) {
      request.resume();
      s3Error(response, ...refused);
      return;
    }
    await forward(request, response);
  }

  return http.createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://replica");
    const [bucket = "", ...rest] = url.pathname.slice(1).split("/").map(decodeURIComponent);
    const key = rest.join("/");
    const method = request.method ?? "GET";
    const kind = method === "GET" && !key ? "LIST" : method;
    requests[kind] = (requests[kind] ?? 0) + 1;
    if (!key || preconditions === "none" || (method !== "PUT" && method !== "DELETE")) {
      // A read returns the old object or the new one, never part of a write in progress: it waits its turn.
      void serialised(bucket, () => forward(request, response));
      return;
    }
    const conditional = request.headers["if-match"] !== undefined || request.headers["if-none-match"] !== undefined;
    const id = `${bucket}/${key}`;
    if (preconditions === "s3-conflicts" && method === "PUT" && conditional && writing.get(id)) {
      // "If a conflicting operation occurs during the upload S3 returns a 409 ConditionalRequestConflict
      // response": https://docs.aws.amazon.com/AmazonS3/latest/API/API_PutObject.html (If-Match, If-None-Match)
      request.resume();
      s3Error(response, 409, "ConditionalRequestConflict", "A conflicting conditional operation is in progress");
      return;
    }
    writing.set(id, (writing.get(id) ?? 0) + 1);
    void serialised(bucket, async () => {
      try {
        await conditionalWrite(request, response, method, bucket, key);
      } finally {
        writing.set(id, writing.get(id)! - 1);
      }
    });
  });
}
