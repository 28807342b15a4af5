/**
 * The stored-value lifecycle (src/core/run/lifecycle.ts) under concurrency, once for each kind
 * through the shared code: parallel learners, parallel healers, and a heal racing a learn.
 * Real PNG screens from FakeDevice, real file locks, a scripted channel that is no model.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { z } from "zod";
import type { AiKind } from "../../src/core/model/contract.js";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import type { LogEntry } from "../../src/core/ground/log.js";
import { FileStore } from "../../src/core/store/file-store.js";
import { BaselineRecordSchema } from "../../src/core/store/baseline-record.js";
import { reviewOf } from "../../src/core/store/review-state.js";
import { sha256 } from "../../src/core/store/record-io.js";
import { TapRecordSchema } from "../../src/core/store/tap-record.js";
import { acceptValue, revertValue } from "../../src/cli/review/actions.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { FakeDevice, fakeAdapter, fakeDriver, type FakeScene } from "../support/fake-device.js";
import { locateOnDevice, ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

/** A cart screen; `variant` 1 moves and restyles the checkout button (a redesign). */
function cartScene(variant: 0 | 1 = 0): FakeScene {
  return {
    background: "#ffffff",
    elements: [
      { id: "header", x: 0, y: 24, width: 360, height: 56, fill: "#1e40af" },
      { id: "item-row", x: 16, y: 100, width: 328, height: 60, fill: "#e5e7eb", mark: "#9ca3af" },
      {
        id: "checkout",
        x: 40,
        y: variant ? 420 : 520,
        width: 280,
        height: 56,
        fill: variant ? "#7c3aed" : "#16a34a",
        mark: "#ffffff",
      },
    ],
  };
}

const api = createPlatformApi(fakeAdapter());

/** One kind of stored value as the lifecycle sees it from outside. */
interface KindUnderTest {
  name: string;
  /** Run the API once on a device; returns the outcome. */
  run(device: FakeDevice, options?: { autoHeal?: boolean }): Promise<string>;
  /** The model request kinds that learn and heal it. */
  learnsWith: AiKind;
  healsWith: AiKind;
  /** Outcomes of a fresh value and of a use. */
  learned: string;
  used: string;
  /** The stored record's folder under `_ai_/`. */
  folder: string;
  parse(json: unknown): z.infer<typeof TapRecordSchema> | z.infer<typeof BaselineRecordSchema>;
}

const KINDS: KindUnderTest[] = [
  {
    name: "tap",
    run: async (device, options) =>
      (await api.tap(fakeDriver(device), "the checkout button", { ...options, timeout: 20_000 })).outcome,
    learnsWith: "locate",
    healsWith: "locate",
    learned: "learned",
    used: "replayed",
    folder: "taps",
    parse: (json) => TapRecordSchema.parse(json),
  },
  {
    name: "baseline",
    run: async (device, options) =>
      (
        await api
          .expect(fakeDriver(device))
          .toMatchScreenshot("cart-page", "the cart with a Checkout button", { ...options, timeout: 20_000 })
      ).outcome,
    learnsWith: "judge",
    healsWith: "compare",
    learned: "stored",
    used: "matched",
    folder: "screenshots",
    parse: (json) => BaselineRecordSchema.parse(json),
  },
];

let storageDir: string;
let logs: LogEntry[];
let channel: ScriptedChannel;

function setup(device: FakeDevice) {
  channel = new ScriptedChannel({
    locate: locateOnDevice(device),
    judge: () => ({ accept: true, reason: "shows the cart", model: SCRIPTED_MODEL }),
    compare: () => ({ realChange: false, reason: "the checkout button was restyled", model: SCRIPTED_MODEL }),
  });
  configureAi({ channel, storageDir, log: (e) => logs.push(e), resultsDir: false, reportArtifact: () => undefined });
}

async function storedRecord(kind: KindUnderTest) {
  const dir = path.join(storageDir, "_ai_", kind.folder);
  const files = (await fs.readdir(dir, { recursive: true })).filter((f) => f.endsWith(".json"));
  expect(files).toHaveLength(1);
  const base = path.join(dir, files[0]!.replace(/\.json$/, ""));
  const record = kind.parse(JSON.parse(await fs.readFile(`${base}.json`, "utf8")));
  const key = path.relative(path.join(storageDir, "_ai_"), base).split(path.sep).join("/");
  return { record, png: await fs.readFile(`${base}.png`), key };
}

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-lifecycle-"));
  logs = [];
});
afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

describe.each(KINDS)("the lifecycle of a $name", (kind) => {
  test("parallel learners on one new device: one asks the model, the others use what it stored", async () => {
    const devices = [0, 1, 2].map(() => new FakeDevice(cartScene()));
    setup(devices[0]!);
    channel.delayMs = 300;
    const outcomes = await Promise.all(devices.map((d) => kind.run(d)));
    expect(outcomes.sort()).toEqual([kind.learned, kind.used, kind.used].sort());
    expect(channel.count(kind.learnsWith)).toBe(1);
    const users = logs.filter((l) => l.outcome === kind.used);
    expect(users.map((l) => l.detail)).toEqual([
      `${kind.name} stored by a parallel run`,
      `${kind.name} stored by a parallel run`,
    ]);
  });

  test("parallel healers of one changed screen: one heals, the others use its value", async () => {
    const first = new FakeDevice(cartScene());
    setup(first);
    await kind.run(first);
    const original = await storedRecord(kind);
    const learnCalls = channel.count();

    const devices = [0, 1, 2].map(() => new FakeDevice(cartScene(1)));
    channel.script.locate = locateOnDevice(devices[0]!);
    channel.delayMs = 300;
    const outcomes = await Promise.all(devices.map((d) => kind.run(d, { autoHeal: true })));
    expect(outcomes.sort()).toEqual(["healed", kind.used, kind.used].sort());
    expect(channel.count() - learnCalls).toBe(1);
    expect(logs.filter((l) => /healed by a parallel run/.test(l.detail ?? ""))).toHaveLength(2);
    // The heal kept the original value as previous; the other healers did not heal it again.
    const healed = await storedRecord(kind);
    expect(healed.record.previous?.imageSha256).toBe(original.record.imageSha256);
    expect(healed.record.imageSha256).toBe(sha256(healed.png));
    expect(healed.record.imageSha256).not.toBe(original.record.imageSha256);
  });

  test("a heal is built from its own fields: the record's history carries over, the old value's extras do not", async () => {
    const first = new FakeDevice(cartScene());
    setup(first);
    await kind.run(first);
    const original = await storedRecord(kind);
    // What an earlier value may have held beside the fields every heal sets: a reverted heal (history, kept)
    // and, for a tap, the accessibility element at the old point (part of the old value, dropped).
    const rejection = {
      fingerprint: "an image no heal here produces",
      model: "an earlier model",
      reason: "the earlier heal",
      rejectedAt: "2026-11-30T09:00:00.000Z",
      rejectedBy: "Grace",
    };
    const element = {
      attributes: { "resource-id": "old-checkout" },
      bounds: { x: 40, y: 520, width: 280, height: 56 },
    };
    const file = path.join(storageDir, "_ai_", `${original.key}.json`);
    const edited = { ...original.record, rejected: [rejection], ...(kind.name === "tap" ? { element } : {}) };
    await fs.writeFile(file, JSON.stringify(edited, null, 2));

    const moved = new FakeDevice(cartScene(1));
    channel.script.locate = locateOnDevice(moved);
    expect(await kind.run(moved, { autoHeal: true })).toBe("healed");
    const healed = (await storedRecord(kind)).record;
    expect(healed.createdAt).toBe(original.record.createdAt);
    expect(healed.storedAt > original.record.storedAt).toBe(true);
    expect(healed.rejected).toEqual([rejection]);
    expect("element" in healed).toBe(false);
    if (kind.name === "tap") expect(healed.previous).toMatchObject({ element });
  });

  test("a heal racing a learn: the second run waits for the learner, then heals from its value", async () => {
    const learner = new FakeDevice(cartScene());
    const healer = new FakeDevice(cartScene(1));
    setup(learner);
    channel.delayMs = 300;
    const learning = kind.run(learner);
    // The healer starts while the learner holds the key's lock: it finds nothing yet, waits, then reads the new value.
    await new Promise((r) => setTimeout(r, 100));
    channel.script.locate = locateOnDevice(healer);
    const healing = kind.run(healer, { autoHeal: true });
    expect(await learning).toBe(kind.learned);
    const learned = await storedRecord(kind);
    expect(await healing).toBe("healed");

    expect(
      channel.count(kind.learnsWith) + (kind.healsWith === kind.learnsWith ? 0 : channel.count(kind.healsWith)),
    ).toBe(2);
    const healed = await storedRecord(kind);
    expect(healed.record.previous?.imageSha256).toBe(learned.record.imageSha256);
    expect(healed.record.imageSha256).toBe(sha256(healed.png));
    expect(logs.at(-1)!.detail).toMatch(new RegExp(`^tapshot healed a stored value: ${kind.folder}/`));
  });
});

describe.each(KINDS)("review of a $name", (kind) => {
  const by = { name: "Ada <ada@example.com>", at: "2026-12-01T10:00:00.000Z" };

  test("a learned value and a heal are stored pending; the heal keeps the accepted previous value's review", async () => {
    const device = new FakeDevice(cartScene());
    setup(device);
    await kind.run(device);
    const learned = await storedRecord(kind);
    expect(learned.record.format).toBe(2);
    expect(learned.record.review).toEqual({ state: "pending" });

    const store = new FileStore(storageDir);
    expect((await acceptValue(store, learned.key, by)).files).toEqual([`${learned.key}.json`]);
    expect((await storedRecord(kind)).record.review).toEqual({ state: "accepted", by: by.name, at: by.at });

    const moved = new FakeDevice(cartScene(1));
    channel.script.locate = locateOnDevice(moved);
    expect(await kind.run(moved, { autoHeal: true })).toBe("healed");
    const healed = await storedRecord(kind);
    expect(healed.record.review).toEqual({ state: "pending" });
    expect(healed.record.previous?.review).toEqual({ state: "accepted", by: by.name, at: by.at });
    // Pending values replay as any other.
    expect(await kind.run(moved)).toBe(kind.used);
  });

  /** Learn the value on one screen, then heal it on a moved one. */
  async function learnThenHeal() {
    const device = new FakeDevice(cartScene());
    setup(device);
    await kind.run(device);
    const learned = await storedRecord(kind);
    const moved = new FakeDevice(cartScene(1));
    channel.script.locate = locateOnDevice(moved);
    await kind.run(moved, { autoHeal: true });
    return { device, moved, learned, healed: await storedRecord(kind) };
  }

  test("a reverted heal is restored, remembered, and refused on the next run without a model call", async () => {
    const { device, moved, learned, healed } = await learnThenHeal();

    const store = new FileStore(storageDir);
    const change = await revertValue(store, learned.key, by, healed.record.imageSha256);
    expect(change).toEqual({
      key: learned.key,
      action: "reverted",
      files: [`${learned.key}.json`, `${learned.key}.png`, `${learned.key}.previous.png`],
    });
    const reverted = await storedRecord(kind);
    expect(reverted.record.imageSha256).toBe(learned.record.imageSha256);
    expect(reverted.png.equals(learned.png)).toBe(true);
    expect(reverted.record.previous).toBeUndefined();
    // The learned value had not been accepted: it is pending again.
    expect(reviewOf(reverted.record)).toEqual({ state: "pending" });
    expect(reverted.record.rejected).toEqual([
      expect.objectContaining({ model: SCRIPTED_MODEL, rejectedBy: by.name, rejectedAt: by.at }),
    ]);

    const calls = channel.count();
    const error = await kind.run(moved, { autoHeal: true }).catch((e: unknown) => e);
    expect(channel.count()).toBe(calls);
    expect((error as Error).message).toContain(
      `a heal to this same image was reverted by ${by.name} on ${by.at} (the model ${SCRIPTED_MODEL} had said:`,
    );
    expect((error as { code: string }).code).toMatch(/mismatch/);
    expect((await storedRecord(kind)).record.imageSha256).toBe(learned.record.imageSha256);

    // The original screen still replays; another change still heals.
    expect(await kind.run(device)).toBe(kind.used);
  });

  test("a revert restores the previous value alone: an optional field only the heal set is dropped", async () => {
    const { learned, healed } = await learnThenHeal();
    // What a heal may add that the learned value lacked: a tap's element at the new point, a
    // baseline's prompt masks located on the healed screen.
    const extra =
      kind.name === "tap"
        ? {
            element: {
              attributes: { "resource-id": "new-checkout" },
              bounds: { x: 40, y: 580, width: 280, height: 56 },
            },
          }
        : { promptMasks: [{ prompt: "the delivery date", box: { x: 10, y: 10, width: 50, height: 20 } }] };
    const field = Object.keys(extra)[0]!;
    expect(field in learned.record).toBe(false);
    await fs.writeFile(
      path.join(storageDir, "_ai_", `${healed.key}.json`),
      JSON.stringify({ ...healed.record, ...extra }, null, 2),
    );

    await revertValue(new FileStore(storageDir), learned.key, by, healed.record.imageSha256);
    const reverted = (await storedRecord(kind)).record;
    expect(reverted.imageSha256).toBe(learned.record.imageSha256);
    expect(field in reverted).toBe(false);
  });

  test("reverting a new value deletes it, so the next run learns it again", async () => {
    const device = new FakeDevice(cartScene());
    setup(device);
    await kind.run(device);
    const learned = await storedRecord(kind);
    const change = await revertValue(new FileStore(storageDir), learned.key, by);
    expect(change.action).toBe("deleted");
    expect(change.files).toEqual([`${learned.key}.json`, `${learned.key}.png`]);
    expect(await kind.run(device)).toBe(kind.learned);
  });

  test("accept and revert leave values that are not pending alone", async () => {
    const device = new FakeDevice(cartScene());
    setup(device);
    await kind.run(device);
    const { key } = await storedRecord(kind);
    const store = new FileStore(storageDir);
    await acceptValue(store, key, by);
    expect(await revertValue(store, key, by)).toEqual({
      key,
      action: "unchanged",
      files: [],
      why: "it is not pending review",
    });
  });
});
