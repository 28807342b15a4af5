/**
 * The plugin's base class (src/plugin/plugin-base.ts): Appium's `BasePlugin` when appium loads,
 * the stand-in when it is not installed or fails to load, and the selector forms the plugin reads
 * (src/plugin/locators.ts). In real Node, with the built package, the class extends `BasePlugin`:
 * checked in a child process, as this runner's own module loader cannot load appium's ESM
 * dependencies through `require` (the stand-in then serves here, with `why` saying so). Without
 * appium installed at all: tests/package/fresh-install.test.ts.
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { InputError } from "../../src/core/ground/errors.js";
import { locatorOf } from "../../src/plugin/locators.js";
import { loadPluginBase, PLUGIN_BASE, StandalonePluginBase, type Requirer } from "../../src/plugin/plugin-base.js";
import { TapshotPlugin } from "../../src/plugin/plugin.js";

const ROOT = join(import.meta.dirname, "..", "..");

/** A require that finds no appium, as Node words it. */
const noAppium: Requirer = (id) => {
  const error = new Error(
    `Cannot find module '${id}'\nRequire stack:\n- /srv/app/node_modules/tapshot/dist/plugin/index.js`,
  );
  (error as { code?: string }).code = "MODULE_NOT_FOUND";
  throw error;
};

class FakeBasePlugin {
  constructor(
    public name: string,
    public cliArgs: object = {},
  ) {}
}

test("appium/plugin's BasePlugin when a requirer finds appium, the first that does", () => {
  const found: Requirer = (id) => (id === "appium/plugin" ? { BasePlugin: FakeBasePlugin } : noAppium(id));
  expect(loadPluginBase([noAppium, found])).toEqual({ base: FakeBasePlugin, from: "appium" });
});

test("without appium the stand-in, quietly; with a broken appium the stand-in and why", () => {
  expect(loadPluginBase([noAppium, noAppium])).toEqual({ base: StandalonePluginBase, from: "standalone" });
  const broken: Requirer = () => {
    const error = new Error("Cannot find module '@appium/base-driver'");
    (error as { code?: string }).code = "MODULE_NOT_FOUND";
    throw error;
  };
  expect(loadPluginBase([broken])).toEqual({
    base: StandalonePluginBase,
    from: "standalone",
    why: "appium/plugin failed to load: Cannot find module '@appium/base-driver'",
  });
});

test("the plugin class extends the loaded base and keeps Appium's constructor", () => {
  const plugin = new TapshotPlugin("tapshot", { provider: "ocr" }, "driver-1");
  expect(plugin).toBeInstanceOf(PLUGIN_BASE.base);
  expect(plugin).toMatchObject({ name: "tapshot", cliArgs: { provider: "ocr" } });
  expect(new TapshotPlugin("tapshot").cliArgs).toEqual({});
});

test("in Node, the built plugin extends appium's BasePlugin (ESM and CommonJS builds)", async () => {
  if (!existsSync(join(ROOT, "dist/plugin/index.js"))) throw new Error("dist/ is missing: run `npx tsup` first.");
  const check =
    "const { BasePlugin } = require('appium/plugin');" +
    "const esm = await import('./dist/plugin/index.js');" +
    "const cjs = require('./dist/plugin/index.cjs');" +
    "const p = new esm.TapshotPlugin('tapshot', {}, 'd');" +
    "console.log(JSON.stringify([p instanceof BasePlugin, cjs.TapshotPlugin.prototype instanceof BasePlugin, typeof p.log?.info]));";
  const script = `const { createRequire } = await import('node:module'); const require = createRequire('${ROOT}/x.js'); ${check}`;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: "" },
    timeout: 60_000,
  });
  expect(JSON.parse(stdout.trim().split("\n").at(-1)!)).toEqual([true, true, "function"]);
}, 90_000);

describe("selectors the plugin reads as WebdriverIO sends them", () => {
  test.each([
    ["~price", "accessibility id", "price"],
    ["id=com.shop:id/total", "id", "com.shop:id/total"],
    ["//android.widget.TextView[@text='Total']", "xpath", "//android.widget.TextView[@text='Total']"],
    ['android=new UiSelector().text("Total")', "-android uiautomator", 'new UiSelector().text("Total")'],
    ["-ios predicate string:label == 'Total'", "-ios predicate string", "label == 'Total'"],
    ["-ios class chain:**/XCUIElementTypeCell[2]", "-ios class chain", "**/XCUIElementTypeCell[2]"],
    ["XCUIElementTypeButton", "class name", "XCUIElementTypeButton"],
    ["=Checkout", "link text", "Checkout"],
    ["*=Check", "partial link text", "Check"],
    ["<button />", "tag name", "button"],
    ['[name="q"]', "name", "q"],
    ['#cart .price[data-kind="total"]', "css selector", '#cart .price[data-kind="total"]'],
  ])("%s", (selector, using, value) => {
    expect(locatorOf(selector)).toEqual({ using, value });
  });

  test.each(["aria/Checkout", ">>>.price", "button=Checkout", "h1*=Cart", "./images/logo.png", "[role=button]"])(
    "%s, which WebdriverIO expands on the client, is an InputError naming the direct form",
    (selector) => {
      expect(() => locatorOf(selector)).toThrow(InputError);
      expect(() => locatorOf(selector)).toThrow(/name the strategy directly, e\.g\. "xpath:/);
    },
  );
});
