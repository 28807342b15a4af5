/**
 * Jest with tapshot's matcher and commands on a plain `remote()` session: here the rig's emulated
 * iPhone 15 on the demo shop (CONTRIBUTING.md, "The test rig"), replaying the committed demo values.
 */
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { configureAi, resetAi } from "tapshot/runner";
import { addAiCommands, aiMatchers } from "tapshot/wdio";
import { iphone15 } from "../../rig/profiles.js";
import { rigTarget, startRig, type Rig, type RigSession } from "../../rig/session.js";

expect.extend(aiMatchers());

let rig: Rig;
let phone: RigSession;
let storageDir: string;

beforeAll(async () => {
  storageDir = await mkdtemp(join(tmpdir(), "tapshot-jest-example-"));
  await cp(join(import.meta.dirname, "..", "..", "storage"), storageDir, { recursive: true });
  configureAi({ storageDir, target: rigTarget, mode: "replay", resultsDir: join(storageDir, "results") });
  rig = await startRig();
  phone = await rig.session(iphone15);
  // With a real phone: addAiCommands(await remote({ capabilities })), no adapter needed.
  addAiCommands(phone.driver, { adapter: phone.adapter });
}, 180_000);

afterAll(async () => {
  resetAi();
  await rig?.stop();
  await rm(storageDir, { recursive: true, force: true });
}, 60_000);

test("cart", async () => {
  await phone.open("cart", { seed: 1 });
  // No name given: the baseline is named after the test, "cart".
  await expect(phone.driver).toMatchAiScreenshot('the cart with 2 items, a "Total" and a "Checkout" button');
});

test("checkout", async () => {
  const tap = await phone.driver.aiTap('the "Checkout" button', { verify: 'the "Order summary" is shown' });
  expect(tap.outcome).toBe("replayed");
  await expect(phone.driver).toMatchAiScreenshot(
    "order-summary",
    'the "Order summary" with the items and a "Place order" button',
  );
});
