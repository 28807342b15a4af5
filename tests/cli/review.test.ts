/**
 * `tapshot pending`, `accept` and `revert` as real processes over a real store (taps learned and
 * healed by the real flow, so they are pending; baselines written before review states read as
 * accepted), and a review writing while readers and the key's lock holder work in parallel.
 */
import { spawn } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { FileStore } from "../../src/core/store/file-store.js";
import { BaselineRecordSchema } from "../../src/core/store/baseline-record.js";
import { deleteRecord, readRecord } from "../../src/core/store/record-io.js";
import { reviewOf } from "../../src/core/store/review-state.js";
import { TapRecordSchema } from "../../src/core/store/tap-record.js";
import { IPHONE, makeFixture, type Fixture } from "./fixture.js";
import { REPO, runCli } from "./run-cli.js";

let fx: Fixture;
const where = () => ["--storage", fx.storage, "--results", fx.results];
const file = (key: string) => path.join(fx.storage, "_ai_", key);

beforeEach(async () => {
  fx = await makeFixture();
}, 60_000);
afterEach(async () => {
  await fx?.cleanup();
});

describe("pending", () => {
  test("lists the new values and heals awaiting review; records from before review states are not", async () => {
    const { code, stdout } = await runCli(["pending", ...where()]);
    expect(code).toBe(0);
    expect(stdout).toContain("4 values await review");
    expect(stdout).toContain("(2 heals, 2 new)");
    expect(stdout).toMatch(/tap\s+heal\s+android\s+fake-pixel-7_14\s+the checkout button/);
    expect(stdout).toMatch(/baseline\s+heal\s+android\s+fake-pixel-7_14\s+checkout-page/);
    expect(stdout).not.toContain("cart-page");
  });

  test("--json and --fail-on-pending: exit 1 while anything is pending, 0 once nothing is", async () => {
    const gate = await runCli(["pending", "--json", "--fail-on-pending", ...where()]);
    expect(gate.code).toBe(1);
    const out = JSON.parse(gate.stdout);
    expect(out).toMatchObject({ total: 4, heals: 2, new: 2 });
    expect(out.pending.map((p: { key: string }) => p.key).sort()).toEqual(
      [fx.keys.healedTap, fx.keys.failedTap, fx.keys.iosTap, fx.keys.healedBaseline].sort(),
    );
    expect(gate.stderr).toMatch(/4 stored values await review \(--fail-on-pending\)/);

    expect((await runCli(["accept", "--all", "--by", "CI bot", ...where()])).code).toBe(0);
    const clear = await runCli(["pending", "--fail-on-pending", ...where()]);
    expect(clear.code).toBe(0);
    expect(clear.stdout).toContain("Nothing awaits review");
  });
});

test("list and the HTML report show what is pending", async () => {
  const { stdout } = await runCli(["list", ...where()]);
  expect(stdout).toMatch(/the add to cart button .*test-double:scripted\s+pending$/m);
  expect(stdout).toMatch(/cart-page .*accepted$/m);
  const out = path.join(fx.root, "report");
  expect((await runCli(["report", "--out", out, ...where()])).code).toBe(0);
  const html = await fs.readFile(path.join(out, "index.html"), "utf8");
  const cell = (key: string) =>
    html.slice(html.indexOf(`data-testid="baseline" data-name="${key}"`)).split("</td>")[0]!;
  expect(cell("checkout-page")).toContain('data-testid="pending"');
  expect(cell("confirmation")).not.toContain('data-testid="pending"');
});

describe("accept and revert", () => {
  test("accept by prompt marks it accepted with who and when, and prints the one file changed", async () => {
    const { code, stdout } = await runCli(["accept", "add to cart", ...where()], {
      TAPSHOT_REVIEWER: "Ada <ada@example.com>",
    });
    expect(code).toBe(0);
    expect(stdout).toContain("Accepted 1 value:");
    expect(stdout).toContain(`    ${file(fx.keys.failedTap)}.json\n`);
    expect(stdout).not.toContain(".png");
    const stored = await readRecord(new FileStore(fx.storage), fx.keys.failedTap, TapRecordSchema);
    expect(reviewOf(stored!.record)).toMatchObject({ state: "accepted", by: "Ada <ada@example.com>" });
    expect(stored!.record.format).toBe(2);
  });

  test("revert of a baseline heal restores the previous image and prints the three files", async () => {
    const store = new FileStore(fx.storage);
    const before = await readRecord(store, fx.keys.healedBaseline, BaselineRecordSchema);
    const previousPng = await store.read(`${fx.keys.healedBaseline}.previous.png`);
    const { code, stdout } = await runCli(["revert", "checkout-page", "--kind", "baseline", ...where()]);
    expect(code).toBe(0);
    for (const ext of [".json", ".png", ".previous.png"]) {
      expect(stdout).toContain(`    ${file(fx.keys.healedBaseline)}${ext}\n`);
    }
    const after = await readRecord(store, fx.keys.healedBaseline, BaselineRecordSchema);
    expect(after!.image.equals(previousPng!)).toBe(true);
    expect(after!.record.imageSha256).toBe(before!.record.previous!.imageSha256);
    expect(after!.record.rejected).toHaveLength(1);
    // The healed screen's tree does not describe the restored image.
    expect(before!.record.tree).toBeDefined();
    expect(after!.record.tree).toBeUndefined();
    expect(after!.record.changed).toBeUndefined();
    // So do the prompt masks located on it.
    expect(before!.record.promptMasks).toHaveLength(1);
    expect(after!.record.promptMasks).toBeUndefined();
    // The value before the heal was committed before review states: accepted, so nothing is pending here.
    expect(reviewOf(after!.record).state).toBe("accepted");
  });

  test("revert --device of a new value deletes it; --json names the files", async () => {
    const { code, stdout } = await runCli(["revert", "--device", IPHONE, "--json", ...where()]);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).changes).toEqual([
      {
        key: fx.keys.iosTap,
        action: "deleted",
        files: [`${file(fx.keys.iosTap)}.json`, `${file(fx.keys.iosTap)}.png`],
      },
    ]);
    await expect(fs.stat(`${file(fx.keys.iosTap)}.json`)).rejects.toThrow(/ENOENT/);
  });

  test("without a name, a filter or --all it is a usage error; a name that matches nothing exits 1", async () => {
    const bare = await runCli(["accept", ...where()]);
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/say which pending values: a baseline name or tap prompt/);
    const none = await runCli(["revert", "no such prompt", ...where()]);
    expect(none.code).toBe(1);
    expect(none.stdout).toContain('Nothing pending matches "no such prompt"');
  });

  test("a review waits for the key's lock, and readers never see a torn record while it writes", async () => {
    const store = new FileStore(fx.storage);
    const key = fx.keys.healedTap;
    const healed = await readRecord(store, key, TapRecordSchema);
    // A run holding the key's lock (learning or healing it): the revert must wait for it.
    const release = await store.lock(key, { deadline: Date.now() + 5000 });
    const reverting = runCli(["revert", "the checkout button", "--device", "fake-pixel-7_14", ...where()]);
    let reads = 0;
    const seen = new Set<string>();
    let done = false;
    const reader = (async () => {
      while (!done) {
        const stored = await readRecord(new FileStore(fx.storage), key, TapRecordSchema);
        seen.add(stored!.record.imageSha256);
        reads++;
      }
    })();
    await new Promise((r) => setTimeout(r, 1500));
    const whileLocked = await readRecord(store, key, TapRecordSchema);
    expect(whileLocked!.record.imageSha256).toBe(healed!.record.imageSha256);
    await release();
    const result = await reverting;
    done = true;
    await reader;
    expect(result.code).toBe(0);
    const after = await readRecord(store, key, TapRecordSchema);
    expect(after!.record.imageSha256).toBe(healed!.record.previous!.imageSha256);
    // Every read was a whole record: the healed value or the restored one, never a failure.
    expect(reads).toBeGreaterThan(0);
    expect([...seen].every((s) => [healed!.record.imageSha256, after!.record.imageSha256].includes(s))).toBe(true);
  });
});

describe("report --format markdown", () => {
  test("summarises failures, heals, new values, pending counts, model calls and time, linking the report's files", async () => {
    // One heal accepted, so the summary shows both states.
    expect((await runCli(["accept", "checkout-page", "--by", "Ada", ...where()])).code).toBe(0);
    const out = path.join(fx.root, "report");
    const { code, stdout } = await runCli(["report", "--format", "markdown", "--out", out, ...where()]);
    expect(code).toBe(0);
    expect(await fs.readFile(`${out}/summary.md`, "utf8")).toBe(stdout);
    expect(stdout).toContain("## tapshot: 2 failures, 2 heals, 3 values pending review");
    // failures, heals, new pending, heals pending, calls and model calls of the fixture's run, and their time.
    expect(stdout).toMatch(/^\| 2 \| 2 \| 2 \| 1 \| 9 \| 4 \| \d+\.\d s \|$/m);
    expect(stdout).toMatch(
      /- \*\*screenshot "confirmation"\*\* on fake\\-pixel\\-7\\_14: .*\[expected\]\(files\/runs\//,
    );
    expect(stdout).toMatch(
      /- tap \*\*the checkout button\*\* on fake\\-pixel\\-7\\_14, \*\*pending review\*\*: \[before\]\(files\/store\/taps\//,
    );
    expect(stdout).toMatch(/- baseline \*\*checkout\\-page\*\* on fake\\-pixel\\-7\\_14, accepted: \[before\]/);
    expect(stdout).toContain("### New values pending review");
    expect(stdout).toMatch(/- tap \*\*the add to cart button\*\* on fake\\-pixel\\-7\\_14/);
    // Every linked file exists beside the report.
    for (const [, url] of stdout.matchAll(/\]\((files\/[^)]+)\)/g)) {
      await expect(fs.stat(path.join(out, decodeURIComponent(url!)))).resolves.toBeTruthy();
    }
  });

  test("stored text cannot format, link or inject HTML into the summary", async () => {
    const { md } = await import("../../src/cli/report/markdown.js");
    expect(md("[x](http://evil) <img src=x> *b* | \n")).toBe(
      "\\[x\\]\\(http://evil\\) &lt;img src=x&gt; \\*b\\* \\| \\\\n",
    );
  });
});

describe("review", () => {
  test("with a failure of the last run left, it serves the page and says so; Ctrl-C stops it with exit 0", async () => {
    const child = spawn(
      process.execPath,
      ["--import", "tsx", path.join(REPO, "src/cli/main.ts"), "review", ...where()],
      {
        cwd: REPO,
        env: { ...process.env, NODE_OPTIONS: "", TAPSHOT_STORAGE_DIR: "", TAPSHOT_RESULTS_DIR: "" },
      },
    );
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    try {
      let stdout = "";
      child.stdout.setEncoding("utf8");
      await new Promise<void>((resolve, reject) => {
        child.stdout.on("data", (chunk: string) => {
          stdout += chunk;
          if (stdout.includes("Ctrl-C")) resolve();
        });
        child.once("exit", (code) => reject(new Error(`review exited (${code}) before serving: ${stdout}`)));
      });
      expect(stdout).toMatch(
        /^Review pending values and the last run's 1 failure at http:\/\/127\.0\.0\.1:\d+\/\?token=/,
      );
      child.kill("SIGINT");
      expect(await exited).toBe(0);
    } finally {
      // A server that never came up or never stopped does not outlive the test.
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
    }
  });

  test("with nothing pending and no unsettled failure, it says so and exits 0 without starting a server", async () => {
    expect((await runCli(["accept", "--all", "--by", "Ada", ...where()])).code).toBe(0);
    // The last run's failed tap is forgotten, as the page's "Forget" does: nothing is left to look at.
    await deleteRecord(new FileStore(fx.storage), fx.keys.failedTap);
    const { code, stdout } = await runCli(["review", ...where()]);
    expect(code).toBe(0);
    expect(stdout).toContain("Nothing awaits review");
    expect(stdout).not.toContain("http://127.0.0.1");
  });
});
