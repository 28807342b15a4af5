/**
 * `toSatisfyAi` and `browser.aiSatisfy` (tapshot/wdio) on the UiAutomator2 double, through Jest's
 * expect: a browser, an element and `.not` run tapshot's toSatisfy, and a failure reads as a Jest
 * matcher failure with tapshot's message.
 */
import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { addAiCommands, aiMatchers } from "../../src/wdio/index.js";
import { androidAdapter } from "../../src/android/adapter.js";
import { configureAi, resetAi } from "../../src/runner/index.js";
import { AppiumDriverDouble, asBrowser, uiautomator2Script } from "../support/appium-driver-double.js";
import { ScriptedChannel, SCRIPTED_MODEL } from "../support/scripted-channel.js";

const SOURCE = `<?xml version="1.0"?><hierarchy rotation="0">
<node class="android.widget.FrameLayout" bounds="[0,0][1080,2400]">
 <node class="android.widget.TextView" resource-id="com.shop:id/status" text="Card declined" bounds="[40,320][1040,400]"/>
</node></hierarchy>`;

type SatisfyExpect = {
  toSatisfyAi(statement: string, options?: object): Promise<void>;
  not: { toSatisfyAi(statement: string, options?: object): Promise<void> };
};

const jestExpect = expect as unknown as jest.Expect & { extend(m: object): void };
jestExpect.extend(aiMatchers());

let storageDir: string;
beforeEach(async () => {
  storageDir = await fs.mkdtemp(path.join(os.tmpdir(), "tapshot-satisfy-matcher-"));
  configureAi({
    channel: new ScriptedChannel({
      satisfy: (r) => ({
        probability: r.statement.includes("declined") ? 0.97 : 0.02,
        reason: "the status reads Card declined",
        model: SCRIPTED_MODEL,
      }),
    }),
    storageDir,
    resultsDir: false,
    log: false,
  });
});
afterEach(async () => {
  resetAi();
  await fs.rm(storageDir, { recursive: true, force: true });
});

/** The double as a WebdriverIO browser with addCommand, which defines a command on the instance as WebdriverIO does. */
function browser() {
  const driver = new AppiumDriverDouble({
    ...uiautomator2Script(),
    pageSource: SOURCE,
    elements: { "~status": { x: 40, y: 320, width: 1000, height: 80 } },
  });
  const session = asBrowser(driver);
  Object.assign(session, {
    addCommand(name: string, fn: (...args: unknown[]) => unknown) {
      Object.assign(session, { [name]: fn.bind(session) });
    },
  });
  addAiCommands(session, { adapter: androidAdapter });
  return session;
}

test("a browser, an element and .not pass when the judgment says so", async () => {
  const session = browser();
  await (expect(session) as unknown as SatisfyExpect).toSatisfyAi("the card was declined");
  const element = await session.$("~status");
  await (expect(element) as unknown as SatisfyExpect).toSatisfyAi("the card was declined");
  await (expect(element) as unknown as SatisfyExpect).not.toSatisfyAi("the payment went through");
  const result = await session.aiSatisfy("the payment went through", { selector: "~status", not: true });
  expect(result).toMatchObject({ outcome: "replayed", aiCalls: 0 });
});

test("a failure reads as a Jest matcher failure with tapshot's message", async () => {
  const session = browser();
  const error = await (expect(session) as unknown as SatisfyExpect)
    .toSatisfyAi("the payment went through", { selector: "~status" })
    .catch((e: Error) => e);
  expect((error as Error).message).toContain('expect(received).toSatisfyAi("the payment went through")');
  expect((error as Error).message).toMatch(/NotSatisfiedError \(not-satisfied\).*probability 0\.02.*Card declined/s);
  const negated = await (expect(session) as unknown as SatisfyExpect).not
    .toSatisfyAi("the card was declined", { selector: "~status" })
    .catch((e: Error) => e);
  expect((negated as Error).message).toMatch(/\.not\.toSatisfyAi.*P\(false\) >= 0\.9/s);
});
