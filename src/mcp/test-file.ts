/*
 * The test `write_test` writes: it opens its own session from the `start_session` arguments and
 * repeats each step through tapshot's public API, so `node --test <file>` replays the flow, with no
 * model in mode `replay`. Every text is written as a JSON literal; values stay `{ env }` references.
 */
import { dirname, relative, sep } from "node:path";
import type { StartArguments, Step } from "./session.js";

/** What the file needs to know besides the steps. */
export interface TestFileInput {
  started: StartArguments;
  steps: Step[];
  /** Absolute path of the file being written. */
  file: string;
  /** The folder the test is run from (the server's working folder). */
  cwd: string;
  /** Absolute path of the demo device module, for a demo session. */
  demoModule?: string;
}

/** The source of an ES module test for `node --test`. */
export function testFileSource({ started, steps, file, cwd, demoModule }: TestFileInput): string {
  const opening = "demo" in started ? demoOpening(started, file, demoModule!) : appiumOpening(started);
  return [
    "// Written by tapshot mcp (write_test): the steps of an agent's session, repeated through tapshot's public API.",
    `// Run it from the project's folder: node --test ${JSON.stringify(relative(cwd, file)).slice(1, -1)}`,
    "// With TAPSHOT_MODE=replay (CI) every step replays what is stored under storage/_ai_/ and no model is asked.",
    'import { after, before, test } from "node:test";',
    ...opening,
    "",
    `test(${JSON.stringify(`the flow of ${steps.length} step${steps.length === 1 ? "" : "s"}`)}, async () => {`,
    ...steps.map((step) => `  ${stepSource(step)}`),
    "});",
    "",
  ].join("\n");
}

function appiumOpening(started: Extract<StartArguments, { appiumUrl: string }>): string[] {
  const platform = String(started.capabilities.platformName).toLowerCase() === "ios" ? "ios" : "android";
  const url = new URL(started.appiumUrl);
  const remote = {
    protocol: url.protocol.replace(":", ""),
    hostname: url.hostname,
    port: Number(url.port || (url.protocol === "https:" ? 443 : 80)),
    path: url.pathname,
    capabilities: started.capabilities,
    logLevel: "warn",
  };
  return [
    'import { remote } from "webdriverio";',
    `import * as ai from "tapshot/${platform}";`,
    "",
    "let driver;",
    `before(async () => {`,
    `  driver = await remote(${JSON.stringify(remote)});`,
    "});",
    "after(async () => {",
    "  await driver?.deleteSession();",
    "});",
  ];
}

function demoOpening(started: { screen?: string }, file: string, demoModule: string): string[] {
  let path = relative(dirname(file), demoModule).split(sep).join("/");
  if (!path.startsWith(".")) path = `./${path}`;
  const typescript = /\.[mc]?tsx?$/.test(demoModule);
  return [
    'import { configureAi } from "tapshot/runner";',
    ...(typescript
      ? ['import { register } from "tsx/esm/api";', "", "// The demo device module is TypeScript.", "register();"]
      : []),
    `const { openDevice } = await import(new URL(${JSON.stringify(path)}, import.meta.url).href);`,
    "",
    "let device, driver, ai;",
    "before(async () => {",
    `  device = await openDevice(${JSON.stringify(started.screen ? { screen: started.screen } : {})});`,
    "  ({ driver, ai } = device);",
    "  if (device.config) configureAi(device.config);",
    "});",
    "after(async () => {",
    "  await device?.close();",
    "});",
  ];
}

function stepSource({ tool, args }: Step): string {
  const text = (key: string) => JSON.stringify(args[key]);
  const options = (keys: string[]) => {
    const given = Object.fromEntries(keys.filter((k) => args[k] !== undefined).map((k) => [k, args[k]]));
    return Object.keys(given).length ? `, ${JSON.stringify(given)}` : "";
  };
  switch (tool) {
    case "tap":
      return `await ai.tap(driver, ${text("prompt")}${options(["verify", "autoHeal"])});`;
    case "find":
      return `await ai.find(driver, ${text("description")});`;
    case "act":
      return `await ai.act(driver, ${text("goal")}${options(["values"])});`;
    case "satisfy":
      return `await ai.expect(driver).toSatisfy(${text("statement")});`;
    case "match_screenshot":
      return `await ai.expect(driver).toMatchScreenshot(${text("name")}, ${text("prompt")});`;
  }
}
