/**
 * Promises about deadlines and aborts (docs/guarantees.md): a call ends at its deadline whatever
 * its channel does, nothing is stored or reported as success after it, and a deadline is a
 * timeout, never an abort.
 */
import { randomUUID } from "node:crypto";
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { AiAnswer, AiChannel, AiRequest } from "../../src/core/model/contract.js";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { TimeoutError } from "../../src/core/ground/errors.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { Deadline } from "../../src/core/ground/deadline.js";
import { FileStore } from "../../src/core/store/file-store.js";
import { s3Store } from "../../src/core/store/s3-store.js";
import { S3Client } from "@aws-sdk/client-s3";
import { useFaultyBucket } from "../support/s3-faults.js";
import { testClientConfig } from "../support/s3-replica.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { checkoutScene, FakeDevice, fakeAdapter, fakeDriver } from "../support/fake-device.js";
import { locateOnDevice, ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

const api = createPlatformApi(fakeAdapter());
/** Node's longest timer, 2^31-1 ms: a longer one fires after 1 ms. */
const MAX_TIMEOUT_MS = 2147483647;

/** A channel that never answers and never looks at its signal, like a hung SDK. */
const hungChannel: AiChannel = { request: () => new Promise<AiAnswer>(() => undefined) };

/** Answers `answer` after `ms`, ignoring the signal, like a runner's channel that cannot cancel. */
function lateChannel(ms: number, answer: (request: AiRequest) => AiAnswer, now?: AiChannel): AiChannel {
  return {
    request: (request, options) =>
      now && request.kind === "locate"
        ? now.request(request, options)
        : new Promise((resolve) => setTimeout(() => resolve(answer(request)), ms)),
  };
}

let storageDir: string;
let logs: LogEntry[];

function configure(channel: AiChannel) {
  configureAi({ channel, storageDir, resultsDir: false, log: (e) => logs.push(e), reportArtifact: () => undefined });
}

async function storedFiles(): Promise<string[]> {
  const files = await fs.readdir(path.join(storageDir, "_ai_"), { recursive: true }).catch(() => []);
  return files.filter((f) => /\.(json|png)$/.test(f)).sort();
}

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-deadline-"));
  logs = [];
});
afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

describe("a call ends at its deadline whatever its channel does", () => {
  test("a channel that ignores its signal cannot hang a tap past its timeout", async () => {
    const device = new FakeDevice(checkoutScene());
    configure(hungChannel);
    await expect(api.tap(fakeDriver(device), "the checkout button", { timeout: 800 })).rejects.toMatchObject({
      code: "timeout",
    });
    expect(device.taps).toHaveLength(0);
    expect(logs.at(-1)).toMatchObject({ outcome: "failed" });
  });

  test("the caller's signal ends a hung channel, and the key's lock is free for the next run", async () => {
    const device = new FakeDevice(checkoutScene());
    configure(hungChannel);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    await expect(
      api.tap(fakeDriver(device), "the checkout button", { signal: controller.signal, timeout: 60_000 }),
    ).rejects.toMatchObject({ code: "aborted" });

    // With the lock held by the hung call, this one would wait for it and time out.
    configure(new ScriptedChannel({ locate: locateOnDevice(device) }));
    const next = await api.tap(fakeDriver(device), "the checkout button", { timeout: 5000 });
    expect(next.outcome).toBe("learned");
  });

  test("a hung channel cannot hang a screenshot judge past its timeout", async () => {
    configure(hungChannel);
    const device = new FakeDevice(checkoutScene());
    await expect(
      api.expect(fakeDriver(device)).toMatchScreenshot("cart", "the cart", { timeout: 800 }),
    ).rejects.toMatchObject({ code: "timeout" });
    expect(await storedFiles()).toEqual([]);
  });
});

describe("the device's page source is waited for only within the call's deadline", () => {
  test("a driver slow to answer the page source cannot hold a learn past its timeout", async () => {
    const device = new FakeDevice(checkoutScene());
    let answered = false;
    // Answers 1.5 s after the call's deadline, before the page source's own 5 s cap would give up.
    device.pageSource = () =>
      new Promise((resolve) =>
        setTimeout(() => {
          answered = true;
          resolve("<hierarchy />");
        }, 4000),
      );
    configure(new ScriptedChannel({ locate: locateOnDevice(device) }));
    await expect(api.tap(fakeDriver(device), "the checkout button", { timeout: 2500 })).rejects.toMatchObject({
      code: "timeout",
    });
    expect(answered).toBe(false);
    expect(device.taps).toHaveLength(0);
  });

  test("an unanswered page source request is not followed by a second one on the same session", async () => {
    const device = new FakeDevice(checkoutScene());
    const pending: Array<(xml: string) => void> = [];
    device.pageSource = () => new Promise((resolve) => pending.push(resolve));
    configure(new ScriptedChannel({ locate: locateOnDevice(device) }));
    const driver = fakeDriver(device);
    await expect(api.tap(driver, "the checkout button", { timeout: 1500 })).rejects.toMatchObject({
      code: "timeout",
    });
    const next = await api.tap(driver, "the header", { timeout: 5000 });
    expect(next.outcome).toBe("learned");
    expect(device.pageSources).toBe(1);
    expect(logs.at(-1)?.detail).toContain("an earlier page source request on this session has not answered");
    for (const resolve of pending) resolve("<hierarchy />");
  });
});

describe("a screen that never stops moving", () => {
  /**
   * The checkout screen with a spinner whose colour changes on every screenshot, far from the button,
   * and screenshots that take as long as a real device's.
   */
  class SpinnerDevice extends FakeDevice {
    private frame = 0;
    // A real device's screenshot takes a few hundred ms.
    override async screenshot(): Promise<Buffer> {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const spinner = {
        id: "spinner",
        x: 160,
        y: 200,
        width: 40,
        height: 40,
        fill: ["#f00", "#0f0", "#00f"][this.frame++ % 3]!,
      };
      this.scene = { ...this.scene, elements: [...this.scene.elements.filter((e) => e.id !== "spinner"), spinner] };
      return super.screenshot();
    }
  }
  const base = fakeAdapter();
  const swiping = createPlatformApi({
    ...base,
    open: (driver: unknown) => ({ ...base.open(driver), swipe: async () => undefined }),
  });

  test("a scroll tap replays on it within its timeout, as a plain tap does", async () => {
    const device = new SpinnerDevice(checkoutScene());
    configure(new ScriptedChannel({ locate: locateOnDevice(device) }));
    const scroll = { direction: "down" as const, maxSwipes: 2 };
    const learned = await swiping.tap(fakeDriver(device), "the checkout button", { scroll, timeout: 20_000 });
    expect(learned.outcome).toBe("learned");
    configure(hungChannel);
    const replayed = await swiping.tap(fakeDriver(device), "the checkout button", {
      scroll,
      autoHeal: false,
      timeout: 4000,
    });
    expect(replayed.outcome).toBe("replayed");
    expect(device.taps).toHaveLength(2);
  });
});

describe("a bucket is waited for only within the call's deadline", () => {
  const bucket = useFaultyBucket();
  const bucketStore = () =>
    s3Store({
      bucket: bucket.s3.bucket,
      prefix: `runs/${randomUUID()}`,
      client: new S3Client(testClientConfig(bucket.proxy.endpoint)),
    });

  test("a bucket read that stalls cannot hold a replay past its timeout", async () => {
    const device = new FakeDevice(checkoutScene());
    const store = bucketStore();
    bucket.proxy.rule = () => undefined;
    configureAi({
      channel: new ScriptedChannel({ locate: locateOnDevice(device) }),
      store,
      resultsDir: false,
      log: (e) => logs.push(e),
    });
    expect((await api.tap(fakeDriver(device), "the checkout button", { timeout: 10_000 })).outcome).toBe("learned");

    let answered = false;
    // The record's read answers 2 s after the replay's deadline.
    bucket.proxy.rule = ({ method, url }) =>
      method === "GET" && url.pathname.endsWith(".json")
        ? { kind: "delay", ms: 5000, onAnswer: () => (answered = true) }
        : undefined;
    await expect(api.tap(fakeDriver(device), "the checkout button", { timeout: 3000 })).rejects.toMatchObject({
      code: "timeout",
    });
    expect(answered).toBe(false);
    expect(device.taps).toHaveLength(1);
  });

  test("a lease write that stalls ends at the deadline as a TimeoutError that explains a dead lease", async () => {
    const store = bucketStore();
    bucket.proxy.rule = ({ method, url }) =>
      method === "PUT" && url.pathname.includes("/.locks/") && !url.pathname.includes(".probe-")
        ? { kind: "stall" }
        : undefined;
    const deadline = new Deadline(1500, 'tap "the checkout button"');
    try {
      const taking = store.lock("taps/k", { deadline: deadline.end, signal: deadline.signal });
      await expect(taking).rejects.toBeInstanceOf(TimeoutError);
      await expect(taking).rejects.toThrow(/lease .* is stale and is taken over after 10 s without a refresh/);
    } finally {
      deadline.dispose();
      bucket.proxy.rule = () => undefined;
    }
  });
});

describe("nothing is stored or reported as success after the deadline", () => {
  test("a verify check that passes after the deadline stores no tap", async () => {
    const device = new FakeDevice(checkoutScene());
    const pass = (): AiAnswer => ({ pass: true, reason: "late pass", model: SCRIPTED_MODEL });
    configure(lateChannel(2500, pass, new ScriptedChannel({ locate: locateOnDevice(device) })));
    await expect(
      api.tap(fakeDriver(device), "the checkout button", { verify: "the summary is shown", timeout: 1500 }),
    ).rejects.toMatchObject({ code: "timeout" });
    expect(await storedFiles()).toEqual([]);
    expect(logs.at(-1)).toMatchObject({ outcome: "failed" });
  });

  test("a judge that accepts after the deadline stores no baseline", async () => {
    const accept = (): AiAnswer => ({ accept: true, reason: "late accept", model: SCRIPTED_MODEL });
    configure(lateChannel(2000, accept));
    const device = new FakeDevice(checkoutScene());
    await expect(
      api.expect(fakeDriver(device)).toMatchScreenshot("cart", "the cart", { timeout: 1000 }),
    ).rejects.toMatchObject({ code: "timeout" });
    // Let the late answer arrive: it must not be used.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    expect(await storedFiles()).toEqual([]);
  });
});

describe("timeouts are in range, and a deadline is a timeout", () => {
  test.each([
    [2 ** 31, "above Node's longest timer"],
    [0.5, "below a millisecond"],
    [0, "zero"],
    [Number.POSITIVE_INFINITY, "infinite"],
  ])("a timeout of %s (%s) is refused with the range it must lie in", async (timeout) => {
    configure(hungChannel);
    const device = new FakeDevice(checkoutScene());
    const message = `timeout must be a number of milliseconds from 1 to ${MAX_TIMEOUT_MS}`;
    await expect(api.tap(fakeDriver(device), "the checkout button", { timeout })).rejects.toMatchObject({
      code: "input",
      message: expect.stringContaining(message),
    });
    await expect(
      api.expect(fakeDriver(device)).toMatchScreenshot("cart", "the cart", { timeout }),
    ).rejects.toMatchObject({ code: "input", message: expect.stringContaining(message) });
  });

  test("the longest timeout Node keeps is accepted and runs the call", async () => {
    const device = new FakeDevice(checkoutScene());
    configure(new ScriptedChannel({ locate: locateOnDevice(device) }));
    const result = await api.tap(fakeDriver(device), "the checkout button", { timeout: MAX_TIMEOUT_MS });
    expect(result.outcome).toBe("learned");
  });

  test("a deadline that passes while waiting for a lock is a timeout, not an abort", async () => {
    const store = new FileStore(storageDir);
    const release = await store.lock("taps/k", { deadline: Date.now() + 60_000 });
    const controller = new AbortController();
    controller.abort(new TimeoutError("tap did not finish within its 10 ms timeout."));
    await expect(
      store.lock("taps/k", { deadline: Date.now() + 60_000, signal: controller.signal }),
    ).rejects.toBeInstanceOf(TimeoutError);
    await release();
  });
});
