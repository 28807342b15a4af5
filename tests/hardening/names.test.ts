/**
 * Promises about baseline names (docs/guarantees.md): a name is a folder that is the same on
 * every checkout, so tapshot's own folders, Windows-reserved names and names that differ only
 * by case are refused before anything is stored.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { defaultBaselineName, runningTestTitle, setRunningTest } from "../../src/matchers/test-title.js";
import { FakeDevice, fakeAdapter, fakeDriver } from "../support/fake-device.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

const api = createPlatformApi(fakeAdapter());
let storageDir: string;
let channel: ScriptedChannel;

beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-names-"));
  channel = new ScriptedChannel({ judge: () => ({ accept: true, reason: "scripted accept", model: SCRIPTED_MODEL }) });
  configureAi({ channel, storageDir, resultsDir: false, log: () => undefined, reportArtifact: () => undefined });
});
afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

function matchScreenshot(name: string) {
  const device = new FakeDevice({
    background: "#ffffff",
    elements: [{ id: "header", x: 0, y: 24, width: 360, height: 56, fill: "#1e40af" }],
  });
  return api.expect(fakeDriver(device)).toMatchScreenshot(name, "a screen with a header");
}

test.each([
  [".locks", "tapshot's own lock folder", /start with a letter or digit/, "locks"],
  [".hidden", "a hidden folder", /start with a letter or digit/, "hidden"],
  ["con", "a Windows device name", /Windows reserves it/, "con-screen"],
  ["CON", "a Windows device name in capitals", /upper-case/, "con-screen"],
  ["nul.txt", "a Windows device name with an extension", /Windows reserves it/, "nul-txt"],
  ["a.", "a trailing dot Windows drops", /ends with a dot/, "a"],
])("%j (%s) is refused before anything is stored, with a name to use", async (name, _, problem, suggestion) => {
  const error = (await matchScreenshot(name).catch((e: unknown) => e)) as Error;
  expect(error).toMatchObject({ code: "input", message: expect.stringMatching(problem) });
  expect(error.message).toContain(`Try "${suggestion}".`);
  expect(channel.count()).toBe(0);
  expect(await fs.readdir(storageDir)).toEqual([]);
});

test("names that differ only by case cannot coexist: upper case is refused, with how to rename a stored folder", async () => {
  expect((await matchScreenshot("cart-page")).outcome).toBe("stored");
  const error = (await matchScreenshot("Cart-Page").catch((e: unknown) => e)) as Error;
  expect(error).toMatchObject({
    code: "input",
    message: expect.stringContaining("macOS and Windows checkouts ignore case"),
  });
  expect(error.message).toContain("git mv _ai_/screenshots/<platform>/Cart-Page _ai_/screenshots/<platform>/cart-page");
  const folders = await fs.readdir(path.join(storageDir, "_ai_", "screenshots", "android"));
  expect(folders).toEqual(["cart-page"]);
});

describe("default names from test titles never collide", () => {
  const LONG_DESCRIBE = "Checkout flow for a signed-in customer with a saved card and a voucher";
  test.each([
    ["two Japanese titles", "カートに商品が2つ表示される", "カートから商品を2つ削除する"],
    ["two tests under a 71-character describe", `${LONG_DESCRIBE} shows the total`, `${LONG_DESCRIBE} shows the fee`],
    ["a title and its accented twin", "Cafe menu", "Café menu"],
  ])("%s get two names, and two baselines", async (_, first, second) => {
    const names = [first, second].map((title) => {
      setRunningTest(title);
      return defaultBaselineName(runningTestTitle());
    });
    setRunningTest(undefined);
    expect(names[0]).not.toBe(names[1]);
    for (const name of names) {
      expect(name.length).toBeLessThanOrEqual(100);
      expect((await matchScreenshot(name)).outcome).toBe("stored");
    }
    const folders = await fs.readdir(path.join(storageDir, "_ai_", "screenshots", "android"));
    expect(folders.sort()).toEqual([...names].sort());
  });

  test("a short ASCII title keeps its plain name, with no hash", () => {
    setRunningTest("Cart shows two items");
    expect(defaultBaselineName(runningTestTitle())).toBe("cart-shows-two-items");
    setRunningTest(undefined);
  });

  test("a title with no letter a-z or digit is named screen-<hash>", () => {
    setRunningTest("カート");
    expect(defaultBaselineName(runningTestTitle())).toMatch(/^screen-[0-9a-f]{8}$/);
    setRunningTest(undefined);
  });
});
