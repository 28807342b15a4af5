/**
 * `ai.act` end to end on the real Appium rig (docs/api.md, "ai.act"), on an Android and an iOS
 * profile: the shop's sign-in page (demo/app/login-page.ts) in Chromium, observed through the rig's
 * page source, decided by the Gemini wire double through the real gemini() client (the double is
 * not a model: its answers come from demo/sign-in.ts's reading of the listed controls, and name it).
 * A goal is learned once and replayed with no model request; the values never appear in a request
 * body, a record, a log line or the report; a moved control still acts on replay; a removed one
 * fails naming the step, and heals with autoHeal.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { WireDouble } from "../../rig/model-doubles/index.js";
import type { Rig, RigSession } from "../../rig/session.js";
import { iphone15, pixel7, type PhoneProfile } from "../../rig/profiles.js";
import { SIGN_IN_KEY, type SignIn, type Variant } from "../../demo/app/server.js";
import { SIGN_IN_GOAL, signInKnowledge } from "../../demo/sign-in.js";
import { runReport } from "../../src/cli/report/index.js";
import type { DomKnowledge } from "../support/dom-knowledge.js";
import { configureRig, useRigAndDouble } from "../support/rig-double.js";

const KEY = "e2e-test-key-not-secret";
const SEED = 31;
const VALUES = { email: "e2e.act.ada@example.com", password: "e2e-Act-S3cret-pass-7731" };

let rig: Rig;
let double: WireDouble;
let knowledge: DomKnowledge;
let storageDir: string;
let logLines: string[];

useRigAndDouble(KEY, (started) => ({ rig, double, knowledge } = started));

beforeAll(() => Object.assign(knowledge, signInKnowledge()));

beforeEach(async () => {
  storageDir = await mkdtemp(join(tmpdir(), "tapshot-act-e2e-"));
  logLines = [];
  configureRig(double, KEY, { storageDir, log: (entry) => void logLines.push(JSON.stringify(entry)) });
});

afterEach(async () => {
  await rm(storageDir, { recursive: true, force: true });
});

/** The profile's shared session on the sign-in page. */
async function login(profile: PhoneProfile, variant: Variant = "default"): Promise<RigSession> {
  const session = await rig.session(profile);
  knowledge.session = session;
  await session.open("login", { seed: SEED, variant });
  return session;
}

/** Sign in with `ai.act`, then wait for the cart the page opens after its busy state. */
async function signIn(session: RigSession, options: { autoHeal?: boolean } = {}) {
  const result = await session.ai.act(session.driver, SIGN_IN_GOAL, { values: VALUES, timeout: 60_000, ...options });
  await session.driver.waitUntil(async () => (await session.currentScreen()) === "cart", { timeout: 20_000 });
  return result;
}

/** What the page recorded of the last sign-in (the password by its length only). */
async function signedIn(session: RigSession): Promise<SignIn> {
  const text = await session.driver.execute((key: string) => sessionStorage.getItem(key), SIGN_IN_KEY);
  return JSON.parse(text ?? "null") as SignIn;
}

/** Every file under a directory, as text. */
async function filesUnder(dir: string): Promise<{ file: string; text: string }[]> {
  const entries = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
  return Promise.all(
    entries.map(async (e) => ({
      file: join(e.parentPath, e.name),
      text: await readFile(join(e.parentPath, e.name), "latin1"),
    })),
  );
}

describe.each([pixel7, iphone15])("ai.act on $id", (profile) => {
  test("a sign-in learned with the model is replayed with 0 model calls, typing the values verbatim", async () => {
    const session = await login(profile);
    const before = double.requests.length;
    const learned = await signIn(session);
    expect(learned.outcome).toBe("learned");
    expect(learned.steps.map((s) => [s.action, s.value])).toEqual([
      ["fill", "email"],
      ["fill", "password"],
      ["tap", undefined],
    ]);
    expect(learned.steps[2]!.control).toMatch(/Sign in/);
    expect(learned.aiCalls).toBeGreaterThan(0);
    expect(double.requests.length - before).toBe(learned.aiCalls);
    expect(await signedIn(session)).toEqual({
      email: VALUES.email,
      passwordLength: VALUES.password.length,
      remember: false,
      country: "United Kingdom",
    });
    const records = (await filesUnder(join(storageDir, "_ai_", "apps", "127.0.0.1", "acts", profile.platform))).filter(
      (f) => f.file.endsWith(".json"),
    );
    expect(records).toHaveLength(1);
    expect(records[0]!.text).toContain("double:gemini-wire");

    await login(profile);
    const requests = double.requests.length;
    const replayed = await signIn(session);
    expect(replayed).toMatchObject({ outcome: "replayed", aiCalls: 0 });
    expect(replayed.steps.map((s) => s.action)).toEqual(["fill", "fill", "tap"]);
    expect(double.requests.length).toBe(requests);
    expect((await signedIn(session)).email).toBe(VALUES.email);
  }, 180_000);

  test("the values are in no request body, record, log line or report", async () => {
    const session = await login(profile);
    const before = double.requests.length;
    await signIn(session);
    await login(profile, "banner");
    await signIn(session);
    const bodies = JSON.stringify(double.requests.slice(before));
    expect(bodies).toContain("email"); // the value names are sent...
    const results = join(storageDir, "results");
    await runReport({ storage: storageDir, results, out: join(storageDir, "report") });
    const written = await filesUnder(storageDir); // records, crops, calls.jsonl, the HTML report
    expect(written.some((f) => f.file.includes(join("_ai_", "apps", "127.0.0.1", "acts")))).toBe(true);
    expect(written.some((f) => f.file.endsWith("index.html"))).toBe(true);
    expect(logLines.length).toBeGreaterThanOrEqual(2);
    for (const value of Object.values(VALUES)) {
      expect(bodies).not.toContain(value); // ...never the values
      for (const { file, text } of written) expect([file, text.includes(value)]).toEqual([file, false]);
      for (const line of logLines) expect(line).not.toContain(value);
    }
  }, 180_000);

  test("a moved control still acts on replay; a removed one fails naming the step, and heals with autoHeal", async () => {
    const session = await login(profile);
    await signIn(session);

    // The banner pushes every control down: each step finds its control again, with no model call.
    await login(profile, "banner");
    const moved = await signIn(session);
    expect(moved).toMatchObject({ outcome: "replayed", aiCalls: 0 });
    expect((await signedIn(session)).email).toBe(VALUES.email);

    // No "Sign in" button any more, a "Continue" one instead: the third step's control is gone.
    await login(profile, "regression");
    const requests = double.requests.length;
    const failure = await session.ai
      .act(session.driver, SIGN_IN_GOAL, { values: VALUES, timeout: 60_000 })
      .catch((error: Error) => error);
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toMatch(/step 3\b/i);
    expect((failure as Error).message).toMatch(/Sign in/);
    expect((failure as Error).message).not.toContain(VALUES.email);
    expect(double.requests.length).toBe(requests);
    expect(await session.currentScreen()).toBe("login");

    await login(profile, "regression");
    const healed = await signIn(session, { autoHeal: true });
    expect(healed.outcome).toBe("healed");
    expect(healed.aiCalls).toBeGreaterThan(0);
    expect(healed.steps.at(-1)).toMatchObject({ action: "tap", control: expect.stringMatching(/Continue/) });
    // The healed steps are stored for review, the learned ones kept in the record as `previous`.
    const [record] = (await filesUnder(join(storageDir, "_ai_", "apps", "127.0.0.1", "acts", profile.platform))).filter(
      (f) => f.file.endsWith(".json"),
    );
    const stored = JSON.parse(record!.text) as {
      review?: { state: string };
      steps: { action: string }[];
      previous?: { steps: { action: string }[] };
    };
    expect(stored.review?.state).toBe("pending");
    expect(stored.previous?.steps.map((s) => s.action)).toEqual(["fill", "fill", "tap"]);
    expect((await signedIn(session)).email).toBe(VALUES.email);
  }, 240_000);
});
