/**
 * The tapshot command run as a real process over a real store (records made by the
 * real tap flow and the real record helpers): list, show, prune, JSON output, exit codes.
 */
import { existsSync, mkdtempSync, promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { FileStore } from "../../src/core/store/file-store.js";
import { GALAXY, IPHONE, makeFixture, OLD_PHONE, PIXEL, type Fixture } from "./fixture.js";
import { runCli } from "./run-cli.js";

let fx: Fixture;
const where = () => ["--storage", fx.storage, "--results", fx.results];

beforeAll(async () => {
  fx = await makeFixture();
});

afterAll(async () => {
  await fx?.cleanup();
});

describe("list", () => {
  test("prints every record per platform and device, and the invalid one", async () => {
    const { code, stdout } = await runCli(["list", ...where()]);
    expect(code).toBe(0);
    expect(stdout).toContain("4 taps, 5 baselines, 1 invalid");
    for (const group of [`android / ${PIXEL}`, `android / ${GALAXY}`, `android / ${OLD_PHONE}`, `ios / ${IPHONE}`]) {
      expect(stdout).toContain(group);
    }
    expect(stdout).toMatch(/checkout-page\s+20d ago\s+24h ago/);
    expect(stdout).toMatch(/the checkout button\s+400d ago\s+-\s+400d ago/);
    expect(stdout).toContain(`${fx.keys.invalid}.json: `);
  });

  test("--json lists records with files, last use and heal, and the invalid ones", async () => {
    const { code, stdout } = await runCli(["list", "--json", ...where()]);
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out.taps.map((t: { key: string }) => t.key).sort()).toEqual(
      [fx.keys.healedTap, fx.keys.failedTap, fx.keys.iosTap, fx.keys.oldTap].sort(),
    );
    expect(out.baselines).toHaveLength(5);
    const healed = out.taps.find((t: { key: string }) => t.key === fx.keys.healedTap);
    expect(healed.healedAt).toBe(healed.record.storedAt);
    expect(healed.record.previous.point).not.toEqual(healed.record.point);
    expect(existsSync(healed.files.previousImage)).toBe(true);
    // The galaxy baseline's file is old, but the run used it: its last use comes from calls.jsonl.
    const galaxy = out.baselines.find((b: { key: string }) => b.key === fx.keys.cartGalaxy);
    expect(Date.now() - Date.parse(galaxy.lastUsed)).toBeLessThan(86_400_000);
    expect(Date.now() - Date.parse(galaxy.modifiedAt)).toBeGreaterThan(300 * 86_400_000);
    expect(out.invalid).toEqual([expect.objectContaining({ key: `${fx.keys.invalid}.json` })]);
    expect(out.invalid[0].problem).toMatch(/not valid JSON/);
  });

  test("filters by platform, device and kind", async () => {
    const ios = JSON.parse((await runCli(["list", "--json", "--platform", "ios", ...where()])).stdout);
    expect([...ios.taps, ...ios.baselines].every((e: { platform: string }) => e.platform === "ios")).toBe(true);
    expect(ios.taps).toHaveLength(1);
    const pixelTaps = JSON.parse(
      (await runCli(["list", "--json", "--device", PIXEL, "--kind", "tap", ...where()])).stdout,
    );
    expect(pixelTaps.taps).toHaveLength(2);
    expect(pixelTaps.baselines).toHaveLength(0);
  });

  test("reads $TAPSHOT_STORAGE_DIR when --storage is not given", async () => {
    const { code, stdout } = await runCli(["list", "--json"], {
      TAPSHOT_STORAGE_DIR: fx.storage,
      TAPSHOT_RESULTS_DIR: fx.results,
    });
    expect(code).toBe(0);
    expect(JSON.parse(stdout).baselines).toHaveLength(5);
  });
});

describe("show", () => {
  test("shows every device's record of an exact prompt, with its heal", async () => {
    const { code, stdout } = await runCli(["show", "the checkout button", ...where()]);
    expect(code).toBe(0);
    expect(stdout.match(/^tap "the checkout button"$/gm)).toHaveLength(3);
    expect(stdout).toContain(fx.keys.healedTap);
    expect(stdout).toMatch(/healed .*before: point \(180, 628\)/);
  });

  test("falls back to a case-insensitive part of a name, and narrows by device", async () => {
    const { code, stdout } = await runCli(["show", "CART", "--json", "--device", GALAXY, ...where()]);
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out.entries.map((e: { key: string }) => e.key)).toEqual([fx.keys.cartGalaxy]);
    expect(out.entries[0].record.kind).toBe("baseline");
  });

  test("exits 1 with a hint when nothing matches, and still prints JSON for scripts", async () => {
    const text = await runCli(["show", "the logout link", ...where()]);
    expect(text.code).toBe(1);
    expect(text.stdout).toBe("");
    expect(text.stderr).toMatch(/nothing stored matches "the logout link".*tapshot list/);
    const json = await runCli(["show", "the logout link", "--json", ...where()]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({ query: "the logout link", entries: [] });
  });
});

describe("usage errors exit 2 with a message saying what to do", () => {
  test.each([
    [["lst"], /unknown command 'lst'/],
    [["list", "--storage"], /argument missing/],
    [["list", "--colour"], /unknown option '--colour'/],
    [["list", "--platform", "web"], /use "android" or "ios"/],
    [["list", "--kind", "taps"], /Allowed choices are tap, baseline/],
    [["show"], /missing required argument/],
    [["prune", "--unused-since", "last tuesday"], /use a date like 2026-01-31/],
    [["prune"], /prune needs --unused-since <date\|age> or --device <slug>/],
    [["report", "--run", "no-such-run"], /No run "no-such-run"/],
  ])("%j", async (args, message) => {
    // The shared options go first, so that a missing value at the end stays missing.
    const { code, stderr, stdout } = await runCli([...args.slice(0, 1), ...where(), ...args.slice(1)]);
    expect(code).toBe(2);
    expect(stderr).toMatch(message);
    expect(stdout).toBe("");
  });

  test("a storage directory that does not exist", async () => {
    const { code, stderr } = await runCli(["list", "--storage", path.join(fx.root, "typo")]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/storage directory .*typo does not exist.*--storage <dir>/);
  });

  test("no command prints the help", async () => {
    const { code, stdout } = await runCli([]);
    expect(code).toBe(2);
    expect(stdout).toMatch(/Commands:[\s\S]*list[\s\S]*prune[\s\S]*report/);
  });

  test("--help exits 0", async () => {
    const { code, stdout } = await runCli(["prune", "--help"]);
    expect(code).toBe(0);
    expect(stdout).toContain("--dry-run");
  });
});

describe("prune", () => {
  let storage: string;
  let root: string;

  beforeEach(async () => {
    // Each prune test works on its own copy of the store.
    root = mkdtempSync(path.join(os.tmpdir(), "tapshot-prune-"));
    storage = path.join(root, "storage");
    await fs.cp(fx.storage, storage, { recursive: true, preserveTimestamps: true });
  });

  afterEach(async () => {
    await fs.rm(root, { recursive: true, force: true });
  });

  const keysIn = async (dir: string) => (await new FileStore(dir).list("")).filter((k) => k.endsWith(".json"));

  test("--dry-run lists what is unused since the date and removes nothing", async () => {
    const before = await keysIn(storage);
    const { code, stdout } = await runCli([
      "prune",
      "--unused-since",
      "30d",
      "--dry-run",
      "--json",
      "--storage",
      storage,
      "--results",
      fx.results,
    ]);
    expect(code).toBe(0);
    const out = JSON.parse(stdout);
    expect(out.dryRun).toBe(true);
    // The galaxy baseline's file is as old, but the last run used it: kept.
    expect(out.removed.map((r: { key: string }) => r.key)).toEqual([fx.keys.oldTap]);
    expect(await keysIn(storage)).toEqual(before);
  });

  test("removes records unused since a date, with their images and empty folders", async () => {
    const { code, stdout } = await runCli([
      "prune",
      "--unused-since",
      "2026-01-01",
      "--storage",
      storage,
      "--results",
      fx.results,
    ]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Removed 1 record from/);
    const ai = path.join(storage, "_ai_");
    expect(existsSync(path.join(ai, `${fx.keys.oldTap}.json`))).toBe(false);
    expect(existsSync(path.join(ai, `${fx.keys.oldTap}.png`))).toBe(false);
    expect(existsSync(path.join(ai, "taps/android", OLD_PHONE))).toBe(false);
    expect(await keysIn(storage)).toHaveLength(9);
  });

  test("without the run results, only file times count: the old galaxy baseline goes too", async () => {
    const none = path.join(root, "no-results");
    const { stdout } = await runCli([
      "prune",
      "--unused-since",
      "30d",
      "--dry-run",
      "--json",
      "--storage",
      storage,
      "--results",
      none,
    ]);
    expect(
      JSON.parse(stdout)
        .removed.map((r: { key: string }) => r.key)
        .sort(),
    ).toEqual([fx.keys.cartGalaxy, fx.keys.oldTap].sort());
  });

  test("--device removes every record of a device no longer in use, and only that device", async () => {
    const { code, stdout } = await runCli([
      "prune",
      "--device",
      IPHONE,
      "--json",
      "--storage",
      storage,
      "--results",
      fx.results,
    ]);
    expect(code).toBe(0);
    const removed = JSON.parse(stdout)
      .removed.map((r: { key: string }) => r.key)
      .sort();
    expect(removed).toEqual([fx.keys.cartIphone, fx.keys.iosTap].sort());
    const left = await keysIn(storage);
    expect(left.some((k) => k.includes(IPHONE))).toBe(false);
    expect(left).toHaveLength(8);
    const list = JSON.parse((await runCli(["list", "--json", "--storage", storage, "--results", fx.results])).stdout);
    expect(list.baselines.filter((b: { name: string }) => b.name === "cart-page")).toHaveLength(2);
  });

  test("filters combine: --device with --unused-since removes nothing recent", async () => {
    const { code, stdout } = await runCli([
      "prune",
      "--device",
      PIXEL,
      "--unused-since",
      "30d",
      "--json",
      "--storage",
      storage,
      "--results",
      fx.results,
    ]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).removed).toEqual([]);
    expect(await keysIn(storage)).toHaveLength(10);
  });
});

describe("report picks the last run", () => {
  let results: string;

  beforeAll(async () => {
    results = mkdtempSync(path.join(os.tmpdir(), "tapshot-runs-"));
    const write = async (run: string, endsAt: string[]) => {
      await fs.mkdir(path.join(results, run), { recursive: true });
      const lines = endsAt.map((at) =>
        JSON.stringify({
          api: "tap",
          prompt: "the checkout button",
          device: PIXEL,
          outcome: "replayed",
          durationMs: 1000,
          at,
        }),
      );
      await fs.writeFile(path.join(results, run, "calls.jsonl"), lines.join("\n") + "\n{ torn line\n");
    };
    await write("yesterday_1", ["2026-11-01T10:00:00.000Z", "2026-11-01T10:05:00.000Z"]);
    // Two parallel workers of one later test run, and a worker that started just after one of them ended.
    await write("today_2", ["2026-11-02T09:00:00.000Z", "2026-11-02T09:03:00.000Z"]);
    await write("today_3", ["2026-11-02T09:01:00.000Z", "2026-11-02T09:02:00.000Z"]);
    await write("today_4", ["2026-11-02T09:03:20.000Z"]);
    await fs.mkdir(path.join(results, "test-artifacts"));
  });

  afterAll(async () => {
    await fs.rm(results, { recursive: true, force: true });
  });

  test("the newest run folder and its parallel workers; --run picks others", async () => {
    const last = await runCli(["report", "--json", "--storage", fx.storage, "--results", results]);
    expect(last.code).toBe(0);
    const out = JSON.parse(last.stdout);
    expect(out.runs).toEqual(["today_2", "today_3", "today_4"]);
    expect(out.report).toBe(path.join(results, "report", "index.html"));
    const html = await fs.readFile(out.report, "utf8");
    expect(html.match(/data-testid="call"/g)).toHaveLength(5);

    const picked = await runCli([
      "report",
      "--json",
      "--run",
      "yesterday_1",
      "--storage",
      fx.storage,
      "--results",
      results,
    ]);
    expect(JSON.parse(picked.stdout).runs).toEqual(["yesterday_1"]);
  });
});
