/**
 * The plugin's find-element methods without a server: other strategies go to the driver untouched,
 * a `-tapshot` find without a description is an `invalid argument` error, and a point element's
 * click taps its point while other elements' clicks go to the driver.
 */
import { jest } from "@jest/globals";
import { TapshotPlugin } from "../../src/plugin/plugin.js";
import { findByDescription, pointElementCommand, POINT_ELEMENT_PREFIX } from "../../src/plugin/find-element.js";
import type { PlatformApi } from "../../src/core/engine/engine.js";

const driver = { sessionId: "s1", caps: { platformName: "Android", automationName: "UiAutomator2" } };

test("other strategies and other elements' clicks go to the driver as they came", async () => {
  const plugin = new TapshotPlugin("tapshot");
  const next = jest.fn(async () => ({ "element-6066-11e4-a52e-4f735466cecf": "e1" }));
  await expect(plugin.findElement(next, driver, "xpath", "//x")).resolves.toEqual({
    "element-6066-11e4-a52e-4f735466cecf": "e1",
  });
  await expect(plugin.findElements(next, driver, "id", "total")).resolves.toBeDefined();
  await plugin.click(next, driver, "e1");
  await plugin.click(next, driver, `${POINT_ELEMENT_PREFIX}1-2`); // not answered by the plugin in this session
  expect(next).toHaveBeenCalledTimes(4);
});

test("a -tapshot find without a description is invalid argument, saying what to send", async () => {
  const plugin = new TapshotPlugin("tapshot");
  const next = jest.fn(async () => undefined as unknown);
  const error = await plugin.findElement(next, driver, "-tapshot", "  ").catch((e: unknown) => e);
  expect(error).toMatchObject({ error: "invalid argument", w3cStatus: 400 });
  expect((error as Error).message).toContain('find_element("-tapshot"');
  expect(next).not.toHaveBeenCalled();
});

test("a point element answered for a find: its id names it, its click taps the point", async () => {
  const click = jest.fn(async () => undefined);
  const api = {
    find: async () => ({
      outcome: "replayed",
      aiCalls: 0,
      point: { x: 10, y: 20 },
      element: { pointOnly: true, point: { x: 10, y: 20 }, click },
    }),
  } as unknown as PlatformApi;
  const session = { sessionId: "s2", capabilities: {} };
  const reference = await findByDescription({
    api,
    session,
    description: "the play button",
    signal: new AbortController().signal,
  });
  const id = reference["element-6066-11e4-a52e-4f735466cecf"]!;
  expect(id).toBe(`${POINT_ELEMENT_PREFIX}10-20`);

  const plugin = new TapshotPlugin("tapshot");
  const next = jest.fn(async () => undefined as unknown);
  await plugin.click(next, { sessionId: "s2" }, id);
  expect(click).toHaveBeenCalledTimes(1);
  expect(next).not.toHaveBeenCalled();
  await expect(plugin.getElementRect(next, { sessionId: "s2" }, id)).resolves.toEqual({
    x: 10,
    y: 20,
    width: 1,
    height: 1,
  });
  await expect(pointElementCommand({ pointOnly: true, point: { x: 1, y: 1 }, click }, "getText")).rejects.toThrow(
    /a point on the screen/,
  );
});
