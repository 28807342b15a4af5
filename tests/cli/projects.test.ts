/**
 * The tapshot command over a store shared by projects and apps (docs/storage.md, "Projects and apps"):
 * values learned through the real tap flow under the older layout, an app's folder and two projects'
 * folders; list shows whose each value is, and --project / --app narrow list, pending and accept.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createPlatformApi } from "../../src/core/engine/engine.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { FakeDevice, fakeAdapter, fakeDriver, type FakeScene } from "../support/fake-device.js";
import { locateOnDevice, ScriptedChannel } from "../support/scripted-channel.js";
import { runCli } from "./run-cli.js";

const scene = (): FakeScene => ({
  background: "#ffffff",
  elements: [{ id: "checkout", x: 40, y: 520, width: 280, height: 56, fill: "#16a34a", mark: "#ffffff" }],
});

let root: string;
let storage: string;
const where = () => ["--storage", storage, "--results", path.join(root, "results")];

beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-cli-projects-"));
  storage = path.join(root, "storage");
  await fs.mkdir(storage);
  const api = createPlatformApi(fakeAdapter());
  // Scoped first: a session reads the older layouts when its own folder has nothing, and would replay them.
  const learners: [string | undefined, string | undefined][] = [
    ["shop-team", "com.example.shop"],
    ["merchant-team", "com.example.merchant"],
    [undefined, "com.example.shop"],
    [undefined, undefined],
  ];
  for (const [project, app] of learners) {
    const device = new FakeDevice(scene(), app ? { app } : {});
    resetAi();
    configureAi({
      channel: new ScriptedChannel({ locate: locateOnDevice(device) }),
      storageDir: storage,
      resultsDir: false,
      log: false,
      ...(project ? { project } : {}),
    });
    await api.tap(fakeDriver(device), "the checkout button");
  }
  resetAi();
}, 60_000);
afterAll(() => fs.rm(root, { recursive: true, force: true }));

type Listed = { key: string; project: string | null; app: string | null };

test("list shows the project and app of each value, and --project / --app narrow it", async () => {
  const all = await runCli(["list", "--json", ...where()]);
  expect(all.code).toBe(0);
  const taps = (JSON.parse(all.stdout) as { taps: Listed[] }).taps;
  expect(taps.map((t) => [t.project, t.app])).toEqual([
    [null, null],
    [null, "com.example.shop"],
    ["merchant-team", "com.example.merchant"],
    ["shop-team", "com.example.shop"],
  ]);
  expect(taps[3]!.key).toMatch(/^projects\/shop-team\/apps\/com\.example\.shop\/taps\/android\/fake-phone-1_14\//);

  const text = await runCli(["list", ...where()]);
  expect(text.stdout).toMatch(/^project shop-team, app com\.example\.shop: android \/ fake-phone-1_14$/m);
  expect(text.stdout).toMatch(/^app com\.example\.shop: android \/ fake-phone-1_14$/m);
  expect(text.stdout).toMatch(/^android \/ fake-phone-1_14$/m);

  const project = JSON.parse((await runCli(["list", "--json", "--project", "shop-team", ...where()])).stdout);
  expect(project.taps.map((t: Listed) => t.project)).toEqual(["shop-team"]);
  const app = JSON.parse((await runCli(["list", "--json", "--app", "com.example.SHOP", ...where()])).stdout);
  expect(app.taps.map((t: Listed) => [t.project, t.app])).toEqual([
    [null, "com.example.shop"],
    ["shop-team", "com.example.shop"],
  ]);
});

test("pending and accept take --project: accepting one project's values leaves the others pending", async () => {
  const accepted = await runCli(["accept", "--all", "--project", "merchant-team", "--by", "Reviewer", ...where()]);
  expect([accepted.code, accepted.stderr]).toEqual([0, ""]);
  const { pending } = JSON.parse((await runCli(["pending", "--json", ...where()])).stdout) as { pending: Listed[] };
  expect(pending.map((p) => [p.project, p.app])).toEqual([
    [null, null],
    [null, "com.example.shop"],
    ["shop-team", "com.example.shop"],
  ]);
  const text = await runCli(["pending", ...where()]);
  expect(text.stdout).toMatch(/fake-phone-1_14 \(project shop-team, app com\.example\.shop\)/);
  const own = JSON.parse((await runCli(["pending", "--json", "--project", "merchant-team", ...where()])).stdout);
  expect(own.pending).toEqual([]);
});

test("a --project that could leave its folder is refused with the allowed form", async () => {
  const { code, stderr } = await runCli(["list", "--project", "../other", ...where()]);
  expect(code).toBe(2);
  expect(stderr).toMatch(
    /"\.\.\/other" is not a project name: it holds a path separator\. Use 1-64 lower-case letters/,
  );
});
