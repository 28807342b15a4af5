/**
 * `tapshot list --store s3://…` against a service whose ListObjectsV2 never ends: every page says
 * `IsTruncated: true` with the same `NextContinuationToken` (a proxy or service that ignores the
 * continuation token), with and without keys. The command stops at the second page with an error naming the
 * prefix and the repeated token: a handful of list requests, not one per page forever.
 * ListObjectsV2's page format: https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjectsV2.html.
 */
import { S3RVER_CREDENTIALS } from "../support/s3-replica.js";
import { useFaultyBucket } from "../support/s3-faults.js";
import { runCli } from "./run-cli.js";

const bucket = useFaultyBucket();

/** A ListObjectsV2 page as S3 answers it: truncated, the same token every time. */
function endlessPage(name: string, keys: string[]): string {
  const contents = keys
    .map((key) => `<Contents><Key>${key}</Key><Size>2</Size><StorageClass>STANDARD</StorageClass></Contents>`)
    .join("");
  return (
    `<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` +
    `<Name>${name}</Name><Prefix>storage/_ai_/</Prefix><KeyCount>${keys.length}</KeyCount><MaxKeys>1000</MaxKeys>` +
    `<IsTruncated>true</IsTruncated><ContinuationToken>same-token-1</ContinuationToken>` +
    `<NextContinuationToken>same-token-1</NextContinuationToken>${contents}</ListBucketResult>`
  );
}

test.each([
  ["with keys that change page to page", true],
  ["without keys", false],
])(
  "a listing that repeats its continuation token forever, %s, stops with an error naming it",
  async (_what, keys) => {
    let lists = 0;
    bucket.proxy.rule = (request) => {
      if (request.method !== "GET" || !request.url.searchParams.has("list-type")) return undefined;
      lists++;
      const page = keys ? [`storage/_ai_/taps/android/p/k-${lists}.json`] : [];
      return { kind: "answer", status: 200, body: endlessPage(bucket.s3.bucket, page) };
    };
    const result = await runCli(["list", "--store", `s3://${bucket.s3.bucket}/storage`], {
      AWS_ENDPOINT_URL_S3: bucket.proxy.endpoint,
      AWS_REGION: "us-east-1",
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      TAPSHOT_S3_PATH_STYLE: "1",
      AWS_REQUEST_CHECKSUM_CALCULATION: "WHEN_REQUIRED",
      AWS_RESPONSE_CHECKSUM_VALIDATION: "WHEN_REQUIRED",
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: "true",
    });
    bucket.proxy.rule = () => undefined;
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Could not list s3:\/\/[^ ]+\/storage\/_ai_/);
    expect(result.stderr).toMatch(/continuation token "same-token-1" again/);
    expect(lists).toBeLessThanOrEqual(4);
  },
  70_000,
);
