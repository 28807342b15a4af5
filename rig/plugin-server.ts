/**
 * A real Appium 3 server running tapshot's plugin as a user installs it: `appium plugin install
 * --source=local` from this checkout into an empty APPIUM_HOME of the test's own (the Chromium driver
 * linked from node_modules the same way; npm's global links go to a folder of the test), the local OCR
 * engine as its model, storage and results in that home. Needs dist/ (`npm run build`): Appium loads the
 * package's built `main`. Used by tests/plugin and the plugin's load benchmark (bench/plugin-load.ts).
 */
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { PROJECT_ROOT } from "./appium.js";
import { startRig, type Rig } from "./session.js";

const run = promisify(execFile);
const APPIUM = join(PROJECT_ROOT, "node_modules/appium/index.js");

/** A started server and where it keeps things. */
export interface PluginServer {
  /** Its APPIUM_HOME. */
  home: string;
  /** `--plugin-tapshot-storage-dir`. */
  storage: string;
  /** `TAPSHOT_RESULTS_DIR`; the run's calls.jsonl is `<results>/<runId>/calls.jsonl`. */
  results: string;
  rig: Rig;
  /** Run the `appium` CLI against this home; its stdout. */
  appium(...args: string[]): Promise<string>;
  /** Stop the server and remove its home. */
  stop(): Promise<void>;
}

/** Options of {@link startPluginServer}. */
export interface PluginServerOptions {
  /** Names the home's temporary folder. */
  name: string;
  /** `TAPSHOT_RUN_ID` of the server's calls. */
  runId: string;
  /** Plugin arguments beyond `--use-plugins`, the OCR provider and the storage folder. */
  args?: string[];
  /** Appium's `--log-level` (the rig's default otherwise). */
  logLevel?: string;
  /** More environment variables of the server process. */
  env?: Record<string, string>;
}

/** Install the plugin from this checkout into a new APPIUM_HOME and start a server with it. */
export async function startPluginServer({
  name,
  runId,
  args = [],
  logLevel,
  env = {},
}: PluginServerOptions): Promise<PluginServer> {
  if (!existsSync(join(PROJECT_ROOT, "dist/plugin/index.js"))) {
    throw new Error("dist/plugin/index.js is missing: run `npm run build` first (Appium loads the built plugin).");
  }
  const home = await mkdtemp(join(tmpdir(), `tapshot-appium-${name}-`));
  const storage = join(home, "storage");
  const results = join(home, "results");
  const appium = async (...cli: string[]) => {
    const { stdout } = await run(process.execPath, [APPIUM, ...cli], {
      env: { ...process.env, APPIUM_HOME: home, npm_config_prefix: join(home, "npm-prefix") },
      timeout: 120_000,
    });
    return stdout;
  };
  const removeHome = () => rm(home, { recursive: true, force: true, maxRetries: 5 });
  try {
    await mkdir(join(home, "npm-prefix", "lib"), { recursive: true });
    await appium("plugin", "install", "--source=local", PROJECT_ROOT);
    await appium("driver", "install", "--source=local", join(PROJECT_ROOT, "node_modules/appium-chromium-driver"));
    const rig = await startRig({
      appium: {
        home,
        ...(logLevel ? { logLevel } : {}),
        args: [
          "--use-plugins=tapshot",
          "--plugin-tapshot-provider=ocr",
          `--plugin-tapshot-storage-dir=${storage}`,
          ...args,
        ],
        env: { TAPSHOT_RESULTS_DIR: results, TAPSHOT_RUN_ID: runId, TAPSHOT_LOG: "silent", ...env },
      },
    });
    return {
      home,
      storage,
      results,
      rig,
      appium,
      stop: async () => {
        await rig.stop();
        await removeHome();
      },
    };
  } catch (error) {
    await removeHome();
    throw error;
  }
}
