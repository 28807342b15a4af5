/**
 * `toSatisfy` end to end on the real Appium rig (docs/api.md, "Semantic assertions"), on an
 * Android and an iOS profile: the evidence is the demo page's accessibility tree as the rig serves
 * it (domPageSource, src/appium/dom-page-source.ts), and gemini() talks HTTP to the Gemini wire double, whose
 * satisfy answers come from this file's script (the double is not a model; its answers name it).
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, sep } from "node:path";
import type { WireDouble } from "../../rig/model-doubles/index.js";
import type { Rig, RigSession } from "../../rig/session.js";
import { iphone15, pixel7, type PhoneProfile } from "../../rig/profiles.js";
import { FileStore } from "../../src/core/store/file-store.js";
import { revertValue } from "../../src/cli/review/actions.js";
import { runReport } from "../../src/cli/report/index.js";
import type { DomKnowledge } from "../support/dom-knowledge.js";
import { configureRig, useRigAndDouble } from "../support/rig-double.js";

const KEY = "e2e-test-key-not-secret";
const SEED = 4242;
const TOTAL = '[data-testid="total"]';
const BALANCE = '[data-testid="balance"]';
const TYPED = "my-secret-delivery-note-7731";

let rig: Rig;
let double: WireDouble;
let knowledge: DomKnowledge;
let storageDir: string;

useRigAndDouble(KEY, (started) => ({ rig, double, knowledge } = started));

/** The script the double answers from: the probability of each statement, given the evidence it read. */
function script(statement: string, evidence: string): { probability: number; reason: string } {
  const shows = (text: string) => evidence.includes(text);
  if (/total/.test(statement)) return { probability: shows("Total") ? 0.96 : 0.1, reason: "double: a Total line" };
  if (/free/.test(statement)) return { probability: 0.03, reason: "double: the total is not zero" };
  if (/balance/.test(statement)) return { probability: 0.92, reason: "double: a wallet balance is shown" };
  return { probability: 0.5, reason: "double: the evidence says nothing either way" };
}

beforeEach(async () => {
  storageDir = await mkdtemp(join(tmpdir(), "tapshot-satisfy-e2e-"));
  knowledge.satisfy = (statement, evidence) => script(statement, evidence);
  configureRig(double, KEY, { storageDir });
});

afterEach(async () => {
  delete knowledge.satisfy;
  await rm(storageDir, { recursive: true, force: true });
});

async function phone(profile: PhoneProfile, seed = SEED): Promise<RigSession> {
  const session = await rig.session(profile);
  knowledge.session = session;
  await session.open("cart", { seed });
  return session;
}

async function judgmentFiles(): Promise<string[]> {
  const root = join(storageDir, "_ai_", "apps", "127.0.0.1", "judgments");
  const files = await readdir(root, { recursive: true }).catch(() => [] as string[]);
  return files.filter((f) => f.endsWith(".json")).map((f) => join(root, f));
}

const satisfyCalls = () => double.calls("satisfy");

describe.each([pixel7, iphone15])("toSatisfy on $id", (profile) => {
  test("true passes, false fails with the reason, .not both ways, uncertain fails both ways", async () => {
    const { ai, driver } = await phone(profile);
    const before = satisfyCalls();
    const total = await driver.$(TOTAL);
    expect(await ai.expect(total).toSatisfy("the cart shows a total")).toMatchObject({
      outcome: "learned",
      aiCalls: 1,
    });
    expect(await ai.expect(total).toSatisfy("the cart shows a total")).toMatchObject({
      outcome: "replayed",
      aiCalls: 0,
    });
    await expect(ai.expect(total).not.toSatisfy("the cart shows a total")).rejects.toThrow(/P\(false\) >= 0\.9/);

    await expect(ai.expect(driver).toSatisfy("the order is free", { selector: TOTAL })).rejects.toThrow(
      /probability 0\.03.*the total is not zero.*Evidence [0-9a-f]{12}.*"Total"/s,
    );
    await expect(ai.expect(total).not.toSatisfy("the order is free")).resolves.toMatchObject({ aiCalls: 0 });

    await expect(ai.expect(total).toSatisfy("the items ship today")).rejects.toMatchObject({ code: "not-satisfied" });
    await expect(ai.expect(total).not.toSatisfy("the items ship today")).rejects.toThrow(/uncertain/);
    // Each statement was asked about once; every other call reused its stored judgment.
    expect(satisfyCalls() - before).toBe(3);
  });

  test("an evaluator error fails under .not, and stores nothing", async () => {
    const { ai, driver } = await phone(profile);
    double.inject({ status: 400, message: "double: request refused" }, 1);
    const negated = ai.expect(driver).not.toSatisfy("the order is free", { selector: TOTAL });
    await expect(negated).rejects.toMatchObject({ code: "provider" });
    expect(await judgmentFiles()).toHaveLength(0);
  });

  test("the same snapshot next run needs no model; changed text asks again, or fails naming it in replay", async () => {
    const { ai, driver } = await phone(profile);
    const before = satisfyCalls();
    await ai.expect(driver).toSatisfy("a wallet balance is shown", { selector: BALANCE });
    await phone(profile);
    await expect(
      ai.expect(driver).toSatisfy("a wallet balance is shown", { selector: BALANCE }),
    ).resolves.toMatchObject({
      aiCalls: 0,
    });
    // Another seed: another balance and date, another snapshot.
    await phone(profile, SEED + 1);
    await expect(
      ai.expect(driver).toSatisfy("a wallet balance is shown", { selector: BALANCE }),
    ).resolves.toMatchObject({
      outcome: "learned",
      aiCalls: 1,
    });
    expect(satisfyCalls() - before).toBe(2);

    configureRig(double, KEY, { storageDir, mode: "replay" });
    await phone(profile, SEED + 2);
    const replay = ai.expect(driver).toSatisfy("a wallet balance is shown", { selector: BALANCE, timeout: 5000 });
    await expect(replay).rejects.toMatchObject({ code: "not-stored" });
    await expect(replay).rejects.toThrow(/snapshot [0-9a-f]{12}.*"Wallet balance/s);
    expect(satisfyCalls() - before).toBe(2);
  });

  test("a selector matching several elements is refused", async () => {
    const { ai, driver } = await phone(profile);
    await expect(
      ai.expect(driver).toSatisfy("an item is listed", { selector: '[data-testid^="item-"]' }),
    ).rejects.toThrow(/matches [2-9] elements/);
  });

  test("typed text never reaches a request, a stored judgment, the log or the report", async () => {
    const { ai, driver } = await phone(profile);
    await driver.execute(() => {
      document
        .querySelector('[data-testid="total"]')!
        .insertAdjacentHTML("afterend", '<input id="delivery-note" aria-label="Delivery note" style="width:90%">');
    });
    await (await driver.$("#delivery-note")).setValue(TYPED);
    expect(await (await driver.$("#delivery-note")).getValue()).toBe(TYPED);
    const before = double.requests.length;
    await ai.expect(driver).toSatisfy("the cart shows a total");
    await expect(ai.expect(driver).toSatisfy("the items ship today", { screenshot: false })).rejects.toThrow();
    const bodies = JSON.stringify(double.requests.slice(before));
    expect(bodies).toContain("[typed text removed]");
    expect(bodies).not.toContain(TYPED);
    for (const file of await judgmentFiles()) expect(await readFile(file, "utf8")).not.toContain(TYPED);
    const results = join(storageDir, "results");
    const runs = await readdir(results);
    for (const run of runs) expect(await readFile(join(results, run, "calls.jsonl"), "utf8")).not.toContain(TYPED);
    const out = join(storageDir, "report");
    await runReport({ storage: storageDir, results, out });
    for (const file of await readdir(out, { recursive: true })) {
      if (/\.(html|md|json)$/.test(file)) expect(await readFile(join(out, file), "utf8")).not.toContain(TYPED);
    }
  });

  test("a reverted judgment is never reused: the next run asks the model again", async () => {
    const { ai, driver } = await phone(profile);
    const before = satisfyCalls();
    const first = await ai.expect(driver).toSatisfy("the cart shows a total", { selector: TOTAL });
    const [file] = await judgmentFiles();
    const key = relative(join(storageDir, "_ai_"), file!)
      .split(sep)
      .join("/")
      .replace(/\.json$/, "");
    expect(JSON.parse(await readFile(file!, "utf8"))).toMatchObject({
      review: { state: "pending" },
      probability: 0.96,
    });
    const change = await revertValue(new FileStore(storageDir), key, {
      name: "reviewer",
      at: new Date().toISOString(),
    });
    expect(change.action).toBe("deleted");
    const again = await ai.expect(driver).toSatisfy("the cart shows a total", { selector: TOTAL });
    expect(again).toMatchObject({ outcome: "learned", evidenceHash: first.evidenceHash });
    expect(satisfyCalls() - before).toBe(2);
  });
});
