/**
 * Failures that cannot be read stay listed, saying why (docs/reviewing.md "Failures on the review
 * page"): a real run of the flows fails a baseline and a tap; then the store goes down (a bucket that
 * answers nothing), a stored record's JSON is corrupt, or a line of the run's calls.jsonl is cut
 * mid-write. The review page (over HTTP) and `tapshot accept --failed` (a real process) list each.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { lastFailures } from "../../src/cli/review/failures.js";
import { readStoreModel } from "../../src/cli/model.js";
import { startReviewServer } from "../../src/cli/review/server.js";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { RUN_ID } from "../../src/core/ground/artifacts.js";
import { StoreError } from "../../src/core/ground/errors.js";
import { FileStore } from "../../src/core/store/file-store.js";
import type { Store } from "../../src/core/store/store.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { checkoutScene, FakeDevice, fakeAdapter, fakeDriver } from "../support/fake-device.js";
import { locateOnDevice, ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";
import { runCli } from "./run-cli.js";

const android = createPlatformApi(fakeAdapter("android"));
const DOWN = "connect ECONNREFUSED 127.0.0.1:9000 (the bucket's endpoint answers nothing)";
let dir: string;
let store: FileStore;
let results: string;
let baselineKey: string;
let tapKey: string;

/** A bucket that is down: every request fails as the S3 client's would, with the endpoint's refusal. */
function downStore(location: string): Store {
  const fail = async (): Promise<never> => {
    throw new StoreError(`${location}: ${DOWN}`);
  };
  return { location, read: fail, write: fail, remove: fail, touch: fail, modifiedAt: fail, list: fail, lock: fail };
}

/** The review page's HTML, as a browser fetches it. */
async function reviewPage(over: Store): Promise<string> {
  const server = await startReviewServer({
    store: over,
    readModel: () => readStoreModel(over),
    reviewer: "Ada",
    results,
  });
  try {
    const response = await fetch(server.url);
    expect(response.status).toBe(200);
    return await response.text();
  } finally {
    await server.close();
  }
}

function acceptFailed(): ReturnType<typeof runCli> {
  return runCli(["accept", "--failed", "--by", "Ada", "--storage", path.dirname(store.root), "--results", results]);
}

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-review-unreadable-"));
  store = new FileStore(path.join(dir, "storage"));
  results = path.join(dir, "results");
  await fs.mkdir(store.root, { recursive: true });
  const device = new FakeDevice(checkoutScene());
  const channel = new ScriptedChannel({
    judge: () => ({ accept: true, varying: [], reason: "scripted: accepts the screen", model: SCRIPTED_MODEL }),
    locate: locateOnDevice(device),
  });
  configureAi({ channel, store, mode: "auto", resultsDir: results, log: false });
  await android.expect(fakeDriver(device)).toMatchScreenshot("shop", "the shop");
  await android.tap(fakeDriver(device), "the checkout button");
  // The failing run: the checkout restyled for the baseline, then gone for the tap.
  configureAi({ mode: "replay" });
  device.scene.elements[1]!.fill = "#dc2626";
  await android
    .expect(fakeDriver(device))
    .toMatchScreenshot("shop", "the shop", { timeout: 1500 })
    .catch(() => 0);
  device.scene = { ...checkoutScene(), elements: checkoutScene().elements.filter((e) => e.id !== "checkout") };
  await android.tap(fakeDriver(device), "the checkout button", { timeout: 1500 }).catch(() => 0);
  resetAi();
  const { failures } = await lastFailures(results, store);
  baselineKey = failures.find((f) => f.kind === "baseline")!.entry.key;
  tapKey = failures.find((f) => f.kind === "tap")!.entry.key;
}, 60_000);

afterAll(async () => {
  resetAi();
  await fs.rm(dir, { recursive: true, force: true });
});

test("the store is down: the page still lists the baseline and the tap, each saying why, and says the pending values cannot be read", async () => {
  const down = downStore("s3://team-tapshot/storage");
  const { failures } = await lastFailures(results, down);
  expect(failures.map((f) => [f.kind, f.unreadable]).sort()).toEqual([
    ["baseline", `its stored value cannot be read: s3://team-tapshot/storage: ${DOWN}`],
    ["tap", `its stored value cannot be read: s3://team-tapshot/storage: ${DOWN}`],
  ]);

  const page = await reviewPage(down);
  expect(page.match(/data-testid="failure" /g)).toHaveLength(2);
  expect(page.match(/data-testid="unreadable">its stored value cannot be read: [^<]*ECONNREFUSED/g)).toHaveLength(2);
  expect(page).toContain('data-testid="pending-error">The values pending review cannot be read:');
});

test("a stored record's JSON is corrupt: both failures stay listed with why; accept --failed refuses it, saying why", async () => {
  const saved = await Promise.all([baselineKey, tapKey].map((k) => fs.readFile(path.join(store.root, `${k}.json`))));
  try {
    for (const key of [baselineKey, tapKey]) await fs.writeFile(path.join(store.root, `${key}.json`), '{"kind": "base');
    const { failures } = await lastFailures(results, store);
    expect(failures.map((f) => f.kind).sort()).toEqual(["baseline", "tap"]);
    for (const f of failures) expect(f.unreadable).toContain(`${f.entry.key}.json is not valid JSON`);
    expect((await reviewPage(store)).match(/data-testid="unreadable">[^<]*is not valid JSON/g)).toHaveLength(2);

    const out = await acceptFailed();
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(`did not accept ${baselineKey}: `);
    expect(out.stderr).toContain(`${baselineKey}.json is not valid JSON`);
  } finally {
    await Promise.all([baselineKey, tapKey].map((k, i) => fs.writeFile(path.join(store.root, `${k}.json`), saved[i]!)));
  }
});

test("a calls.jsonl line cut mid-write is listed with why, unless what is left says it passed", async () => {
  const calls = path.join(results, RUN_ID, "calls.jsonl");
  const before = await fs.readFile(calls, "utf8");
  const lines = before.trimEnd().split("\n").length;
  try {
    await fs.appendFile(
      calls,
      '{"api":"toMatchScreenshot","name":"cart","device":"fake-phone-1_14","outcome":"failed","detail":"differs in 40\n' +
        '{"api":"toMatchScreenshot","name":"home","device":"fake-phone-1_14","outcome":"matched","aiCa\n',
    );
    const { unreadable } = await lastFailures(results, store);
    expect(unreadable).toEqual([
      {
        api: "toMatchScreenshot",
        why: expect.stringMatching(
          new RegExp(`^run ${RUN_ID}, calls.jsonl line ${lines + 1} \\(screenshot "cart"\\) cannot be read: not JSON`),
        ),
      },
    ]);
    const page = await reviewPage(store);
    expect(page).toContain(`calls.jsonl line ${lines + 1} (screenshot &quot;cart&quot;) cannot be read: not JSON`);
    expect(page).not.toContain("screenshot &quot;home&quot;");

    const out = await acceptFailed();
    expect(out.code).toBe(1);
    expect(out.stderr).toContain(
      `tapshot: did not accept a failure: run ${RUN_ID}, calls.jsonl line ${lines + 1} (screenshot "cart") cannot be read: not JSON`,
    );
  } finally {
    await fs.writeFile(calls, before);
  }
});
