/**
 * One Appium server for many customers (docs/plugin.md, "One store for many customers"): the plugin
 * installed from this checkout into an empty APPIUM_HOME, run by a real Appium 3 server with
 * `--plugin-tapshot-require-project` and the local OCR engine as its model. Two sessions on the same
 * device model with their own `tapshot:project` ask the same prompt of two different shops (the
 * second one's Checkout moved and restyled): each learns its own value and replays it with no model
 * call. A session without a project fails its first tapshot call, saying how to name one.
 * Needs dist/ (`npm run build`): Appium loads the package's built `main`.
 */
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { pixel7 } from "../../rig/profiles.js";
import type { Rig, RigSession } from "../../rig/session.js";
import { startPluginServer, type PluginServer } from "../support/plugin-server.js";

const CHECKOUT = 'the "Checkout" button';

let server: PluginServer;
let storage: string;
let rig: Rig;

/** A pixel7 session of `project` (none: no `tapshot:project`). */
function session(project?: string): Promise<RigSession> {
  return rig.openSession(pixel7, {
    capabilities: { "tapshot:target": pixel7.target, ...(project ? { "tapshot:project": project } : {}) },
  });
}

beforeAll(async () => {
  server = await startPluginServer({ name: "projects", runId: "projects", args: ["--plugin-tapshot-require-project"] });
  ({ storage, rig } = server);
}, 240_000);

afterAll(async () => {
  await server?.stop();
}, 60_000);

test("two projects, same prompt, same device model: each learns its own value, then replays it with no model call", async () => {
  const shops = [
    { project: "shop-team", variant: "default" as const },
    { project: "merchant-team", variant: "redesign" as const },
  ];
  const points: unknown[] = [];
  for (const { project, variant } of shops) {
    const phone = await session(project);
    try {
      await phone.open("cart", { seed: 1, variant });
      const learned = (await phone.driver.execute("tapshot: tap", { prompt: CHECKOUT })) as {
        outcome: string;
        point: unknown;
      };
      expect(learned.outcome).toBe("learned");
      expect(await phone.currentScreen()).toBe("checkout");
      points.push(learned.point);
    } finally {
      await phone.close();
    }
  }
  // The redesign moved the button: one shared key would have failed the second project against the first's value.
  expect(points[0]).not.toEqual(points[1]);

  for (const [i, { project, variant }] of shops.entries()) {
    const phone = await session(project);
    try {
      await phone.open("cart", { seed: 1, variant });
      const replayed = await phone.driver.execute("tapshot: tap", { prompt: CHECKOUT });
      expect(replayed).toEqual({ outcome: "replayed", point: points[i], aiCalls: 0 });
    } finally {
      await phone.close();
    }
  }

  const root = join(storage, "_ai_");
  expect((await readdir(root)).filter((f) => !f.startsWith("."))).toEqual(["projects"]);
  expect(await readdir(join(root, "projects"))).toEqual(["merchant-team", "shop-team"]);
  for (const project of ["merchant-team", "shop-team"]) {
    const taps = join(root, "projects", project, "apps", "127.0.0.1", "taps", "android", "google-pixel-7_14");
    expect((await readdir(taps)).filter((f) => f.endsWith(".json"))).toHaveLength(1);
  }
}, 240_000);

test("a server requiring a project refuses a session without one at its first tapshot call", async () => {
  const phone = await session();
  try {
    await phone.open("cart", { seed: 1 });
    const error = await phone.driver.execute("tapshot: tap", { prompt: CHECKOUT }).then(
      () => new Error("expected the call to fail"),
      (thrown: unknown) => thrown as Error,
    );
    expect(error.message).toMatch(
      /This Appium server requires a project for tapshot \(--plugin-tapshot-require-project\), and this session has none: start the session with the capability "tapshot:project"/,
    );
    expect(await phone.currentScreen()).toBe("cart");
  } finally {
    await phone.close();
  }
}, 120_000);
