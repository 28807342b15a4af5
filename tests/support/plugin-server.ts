/**
 * The plugin tests' clients tapshot did not write: Debian's python3-selenium scripts of tests/plugin,
 * run against a plugin server of rig/plugin-server.ts.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { PROJECT_ROOT } from "../../rig/appium.js";
import type { PluginServer } from "../../rig/plugin-server.js";
import { freePort } from "../../rig/ports.js";
import { capabilitiesFor, type PhoneProfile } from "../../rig/profiles.js";

export { startPluginServer, type PluginServer, type PluginServerOptions } from "../../rig/plugin-server.js";

const run = promisify(execFile);
/** Debian's interpreter, where python3-selenium is installed (scripts/setup.sh). */
const PYTHON = process.env.TAPSHOT_PYTHON || "/usr/bin/python3";

/** What {@link runPythonClient} runs. */
export interface PythonClientRun {
  /** A script in tests/plugin, e.g. `python_client.py`. */
  script: string;
  profile: PhoneProfile;
  /** tapshot's capabilities, beside the rig's Chromium ones. */
  capabilities: Record<string, unknown>;
  /** The page the session opens. */
  page: string;
  timeout: number;
}

/**
 * Run one of tests/plugin's python3-selenium scripts against `server` on `profile`'s Chromium (the rig's
 * capabilities without WebdriverIO's own `wdio:` key): the JSON report the script prints last, of the shape the
 * test declares.
 */
export async function runPythonClient<Report>(
  server: PluginServer,
  { script, profile, capabilities, page, timeout }: PythonClientRun,
): Promise<Report> {
  const userDataDir = await mkdtemp(join(tmpdir(), "tapshot-plugin-python-"));
  try {
    const { "wdio:enforceWebDriverClassic": _wdio, ...caps } = capabilitiesFor(profile, {
      chromedriverPort: await freePort(),
      userDataDir,
    }) as Record<string, unknown>;
    void _wdio;
    const file = join(PROJECT_ROOT, "tests/plugin", script);
    const { stdout } = await run(
      PYTHON,
      [file, server.rig.appium.url, JSON.stringify({ ...caps, ...capabilities }), page],
      {
        timeout,
      },
    ).catch((error: Error & { stderr?: string }) => {
      throw new Error(
        `${PYTHON} ${file} failed (python3-selenium comes from scripts/setup.sh): ${error.message}\n${error.stderr ?? ""}`,
      );
    });
    return JSON.parse(stdout.trim().split("\n").at(-1)!) as Report;
  } finally {
    await rm(userDataDir, { recursive: true, force: true, maxRetries: 5 });
  }
}
