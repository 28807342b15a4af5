/**
 * The plugin's memory of failed commands (src/plugin/resent-commands.ts): a copy of a failed
 * command re-sent by the client is answered with the same failure without running again; anything
 * else runs. The clock is moved by hand, so nothing here waits.
 */
import { commandKey, RESENT_WINDOW_MS, ResentCommands } from "../../src/plugin/resent-commands.js";

function setup() {
  let now = 1_000_000;
  const commands = new ResentCommands({ now: () => now });
  let runs = 0;
  const failing = async () => {
    runs++;
    throw new Error(`failure ${runs}`);
  };
  const passing = async () => {
    runs++;
    return `answer ${runs}`;
  };
  return {
    commands,
    failing,
    passing,
    runs: () => runs,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

const TAP = commandKey("tapshot: tap", [{ prompt: "the checkout button", timeout: 5000 }]);

test("a copy re-sent within the window gets the same failure without running", async () => {
  const { commands, failing, runs, advance } = setup();
  const first = await commands.run("s1", TAP, failing).catch((e: unknown) => e);
  for (const wait of [0, 500, 1000]) {
    advance(wait);
    await expect(commands.run("s1", TAP, failing)).rejects.toBe(first);
  }
  expect(runs()).toBe(1);
  // The window counts from the failure's first answer, not from each copy.
  advance(RESENT_WINDOW_MS - 1500 + 1);
  await expect(commands.run("s1", TAP, failing)).rejects.toThrow("failure 2");
  expect(runs()).toBe(2);
});

test("another session, other arguments, another command in between, or a success run again", async () => {
  const { commands, failing, passing, runs } = setup();
  await commands.run("s1", TAP, failing).catch(() => undefined);
  await expect(commands.run("s2", TAP, failing)).rejects.toThrow("failure 2");
  const other = commandKey("tapshot: tap", [{ prompt: "the header", timeout: 5000 }]);
  await expect(commands.run("s1", other, passing)).resolves.toBe("answer 3");
  // s1's last command was the header's: the checkout tap runs again.
  await expect(commands.run("s1", TAP, passing)).resolves.toBe("answer 4");
  await expect(commands.run("s1", TAP, passing)).resolves.toBe("answer 5");
  expect(runs()).toBe(5);
});

test("a deleted session's failure is forgotten", async () => {
  const { commands, failing, runs } = setup();
  await commands.run("s1", TAP, failing).catch(() => undefined);
  commands.forget("s1");
  await expect(commands.run("s1", TAP, failing)).rejects.toThrow("failure 2");
  expect(runs()).toBe(2);
});

test("the key compares parameters by value, whatever the order of their keys", () => {
  expect(commandKey("tapshot: tap", [{ prompt: "a", timeout: 1 }])).toBe(
    commandKey("tapshot: tap", [{ timeout: 1, prompt: "a" }]),
  );
  expect(commandKey("tapshot: tap", [{ prompt: "a" }])).not.toBe(commandKey("tapshot: tap", [{ prompt: "b" }]));
  expect(commandKey("tapshot: tap", [{ prompt: "a" }])).not.toBe(
    commandKey("tapshot: matchScreenshot", [{ prompt: "a" }]),
  );
});
