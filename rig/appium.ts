/**
 * A real Appium 3 server for the rig: started as a child process on a free loopback port,
 * with the project as APPIUM_HOME (so it finds `appium-chromium-driver` in node_modules),
 * and always stopped together with the chromedriver and Chromium processes it started.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "./ports.js";

/** The project root: Appium's home, where it finds the chromium driver. */
export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** A running Appium server. */
export interface AppiumServer {
  readonly hostname: "127.0.0.1";
  readonly port: number;
  /** Base path of the WebDriver API. */
  readonly path: "/";
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  /** The last lines Appium printed (for error messages). */
  output(): string;
  /**
   * The process group of a server the rig started (its watchdog leads it; Appium is the watchdog's child,
   * the drivers' processes below it); unset for a server started elsewhere.
   */
  readonly processGroup?: number;
  /** Stop Appium and every process it started. Safe to call more than once. */
  stop(): Promise<void>;
}

/** Options of {@link startAppium}. */
export interface AppiumOptions {
  /** How long to wait for `GET /status` to report ready. Default 60 s. */
  startTimeoutMs?: number;
  /** Appium's `--log-level`. Default `error` (`$TAPSHOT_RIG_APPIUM_LOG` overrides). */
  logLevel?: string;
  /** `APPIUM_HOME`, where Appium finds its drivers and plugins. Default the project root. */
  home?: string;
  /** More arguments of `appium server`, e.g. `["--use-plugins=tapshot"]`. */
  args?: string[];
  /** More environment variables of the server process. */
  env?: Record<string, string>;
}

const OUTPUT_LINES = 200;
const STOP_GRACE_MS = 5_000;

/** Process groups of running servers, killed if the test process exits without stopping them. */
const running = new Set<number>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once("exit", () => {
    for (const pgid of running) killGroup(pgid, "SIGKILL");
  });
}

/**
 * Runs Appium as its child, in the group this script leads, and kills the whole group when its
 * stdin closes: that happens when the test process ends in any way, even by SIGKILL, so a
 * crashed or killed test run leaves no Appium, chromedriver or Chromium behind.
 */
const WATCHDOG = `
const { spawn } = require("node:child_process");
const killGroup = () => { try { process.kill(0, "SIGKILL"); } catch {} };
const appium = spawn(process.execPath, process.argv.slice(1), { stdio: ["ignore", "inherit", "inherit"] });
appium.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
process.stdin.on("end", killGroup);
process.stdin.on("error", killGroup);
process.stdin.resume();
`;

function killGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/** One process of /proc (Linux). */
interface ProcEntry {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
}

/** Every process of /proc, read once each; a process that ends while we look is left out. */
function* procEntries(): Generator<ProcEntry> {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // /proc/<pid>/stat: "pid (comm) state ppid pgrp ..."; comm may contain spaces, so split after ")".
    const [state = "", ppid, pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    yield { pid: Number(entry), state, ppid: Number(ppid), pgrp: Number(pgrp) };
  }
}

/** Whether a process of the group is still running (zombies waiting to be reaped do not count). */
function groupAlive(pgid: number): boolean {
  if (process.platform !== "linux") return killGroup(pgid, 0 as unknown as NodeJS.Signals);
  for (const { state, pgrp } of procEntries()) {
    if (pgrp === pgid && state !== "Z" && state !== "X") return true;
  }
  return false;
}

/** Resident memory of a started server's Appium process (its watchdog's child), in MB; Linux only. */
export function appiumRssMb(server: AppiumServer): number {
  const group = server.processGroup;
  if (!group) throw new Error(`Appium at ${server.url} was started elsewhere: its memory is not read.`);
  for (const { pid, ppid } of procEntries()) {
    if (ppid !== group) continue;
    try {
      const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (rss) return Math.round(Number(rss[1]) / 1024);
    } catch {
      // The process ended while we looked.
    }
  }
  throw new Error(`No Appium process runs under process group ${group}.`);
}

/** The environment variable naming an Appium server the rig uses instead of starting its own. */
export const APPIUM_URL_ENV = "TAPSHOT_RIG_APPIUM_URL";

/**
 * A server some other part started (a developer running `npx appium server` once for many test runs), checked
 * with `GET /status`. Its `stop()` does nothing: whoever started it stops it.
 */
export async function connectAppium(url: string): Promise<AppiumServer> {
  const parsed = new URL(url);
  if (parsed.hostname !== "127.0.0.1" || (parsed.pathname !== "/" && parsed.pathname !== "")) {
    throw new Error(`${APPIUM_URL_ENV}=${url}: the rig expects an Appium server at http://127.0.0.1:<port>/.`);
  }
  const port = Number(parsed.port);
  const response = await fetch(`http://127.0.0.1:${port}/status`, { signal: AbortSignal.timeout(5_000) }).catch(
    (error: Error) => {
      throw new Error(`No Appium server answers at ${url} (${APPIUM_URL_ENV}): ${error.message}`);
    },
  );
  if (!response.ok) throw new Error(`Appium at ${url} answered GET /status with HTTP ${response.status}.`);
  return {
    hostname: "127.0.0.1",
    port,
    path: "/",
    url: `http://127.0.0.1:${port}`,
    output: () => `(Appium at ${url} was started elsewhere; see its own log)`,
    stop: async () => {},
  };
}

/** Start Appium 3 on a free port of 127.0.0.1 and wait until it reports ready. */
export async function startAppium(options: AppiumOptions = {}): Promise<AppiumServer> {
  const port = await freePort();
  const logLevel = options.logLevel ?? (process.env.TAPSHOT_RIG_APPIUM_LOG || "error");
  const main = resolve(PROJECT_ROOT, "node_modules/appium/index.js");
  const args = [
    main,
    "server",
    "--address",
    "127.0.0.1",
    "--port",
    String(port),
    "--log-level",
    logLevel,
    "--log-timestamp",
    ...(options.args ?? []),
  ];
  // A new process group (detached), so stop() also ends the chromedriver and Chromium processes in it.
  const child = spawn(process.execPath, ["-e", WATCHDOG, ...args, "--log-no-colors"], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...options.env, APPIUM_HOME: options.home ?? PROJECT_ROOT },
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  const pgid = child.pid;
  if (!pgid) throw new Error(`Could not start Appium (${process.execPath} ${args.join(" ")}).`);
  installExitHook();
  running.add(pgid);

  const lines: string[] = [];
  const keep = (chunk: Buffer) => {
    lines.push(...chunk.toString("utf8").split("\n").filter(Boolean));
    if (lines.length > OUTPUT_LINES) lines.splice(0, lines.length - OUTPUT_LINES);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  const exited = new Promise<void>((done) => child.once("exit", () => done()));

  let stopping: Promise<void> | undefined;
  const url = `http://127.0.0.1:${port}`;
  const server: AppiumServer = {
    hostname: "127.0.0.1",
    port,
    path: "/",
    url,
    output: () => lines.join("\n"),
    processGroup: pgid,
    stop: () => (stopping ??= stop(child, pgid, exited)),
  };

  try {
    await waitReady(url, child, exited, options.startTimeoutMs ?? 60_000, server.output);
  } catch (error) {
    await server.stop();
    throw error;
  }
  return server;
}

async function stop(child: ChildProcess, pgid: number, exited: Promise<void>): Promise<void> {
  try {
    if (child.exitCode === null && child.signalCode === null) {
      // Appium deletes its sessions on SIGTERM (which stops chromedriver and Chromium); give it a moment.
      killGroup(pgid, "SIGTERM");
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((done) => (timer = setTimeout(done, STOP_GRACE_MS)))]);
      clearTimeout(timer);
    }
    // Whatever is left of the group (a chromedriver or Chromium that did not exit), kill it.
    for (let i = 0; i < 40 && groupAlive(pgid); i++) {
      killGroup(pgid, "SIGKILL");
      await delay(50);
    }
  } finally {
    running.delete(pgid);
    child.stdin?.destroy();
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
}

async function waitReady(
  url: string,
  child: ChildProcess,
  exited: Promise<void>,
  timeoutMs: number,
  output: () => string,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  let gone = false;
  void exited.then(() => (gone = true));
  let last = "no answer yet";
  while (Date.now() < end) {
    if (gone) {
      throw new Error(
        `Appium exited while starting (code ${child.exitCode}, signal ${child.signalCode}). Its output:\n${output()}`,
      );
    }
    try {
      const response = await fetch(`${url}/status`, { signal: AbortSignal.timeout(2_000) });
      const body = (await response.json()) as { value?: { ready?: boolean } };
      if (response.ok && body.value?.ready !== false) return;
      last = `HTTP ${response.status} ${JSON.stringify(body).slice(0, 200)}`;
    } catch (error) {
      last = (error as Error).message;
    }
    await delay(100);
  }
  throw new Error(
    `Appium did not report ready at ${url}/status within ${timeoutMs} ms (last: ${last}). Its output:\n${output()}`,
  );
}

function delay(ms: number): Promise<void> {
  return new Promise((done) => setTimeout(done, ms));
}
