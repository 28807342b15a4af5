/**
 * Start store workers as real child Node processes (`node --import tsx <script>`), each
 * importing the real stores from src (open-store.ts), and talk to them over stdin/stdout.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const projectRoot = path.resolve(here, "../../..");

/** A running worker. */
export interface Worker {
  readonly child: ChildProcess;
  /** Everything it printed so far, line by line. */
  readonly lines: string[];
  /** Resolves with the first line matching `pattern` (waiting for it to be printed). */
  waitForLine(pattern: RegExp): Promise<string>;
  /** Write "go" on its stdin (see `ready()` in worker-io.ts). */
  go(): void;
  /** Resolves when it exits, with its exit code or the signal that ended it. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
  /** The object it reported with `report()`; rejects when it exited without one. */
  result<T>(): Promise<T>;
}

/** Start `tests/support/store-workers/<script>` with `args`. */
export function startWorker(script: string, args: string[]): Worker {
  const env = { ...process.env };
  // Jest's --experimental-vm-modules is not needed by the workers and only adds warnings.
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, ["--import", "tsx", path.join(here, script), ...args], {
    cwd: projectRoot,
    env,
    stdio: ["pipe", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters: { pattern: RegExp; resolve: (line: string) => void }[] = [];
  let pending = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (chunk: string) => {
    pending += chunk;
    let newline: number;
    while ((newline = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.pattern.test(line)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    }
  });
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (chunk: string) => (stderr += chunk));
  // A killed worker's stdin may already be closed when the test writes to it.
  child.stdin!.on("error", () => undefined);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stderr })),
  );

  const worker: Worker = {
    child,
    lines,
    waitForLine(pattern) {
      const seen = lines.find((line) => pattern.test(line));
      if (seen !== undefined) return Promise.resolve(seen);
      return new Promise<string>((resolve, reject) => {
        waiters.push({ pattern, resolve });
        void exited.then(({ code, signal, stderr: err }) =>
          reject(new Error(`${script} exited (code ${code}, signal ${signal}) before printing ${pattern}:\n${err}`)),
        );
      });
    },
    go() {
      child.stdin!.write("go\n");
    },
    exited,
    async result<T>() {
      const { code, signal, stderr: err } = await exited;
      const line = lines.find((l) => l.startsWith("result "));
      if (code !== 0 || line === undefined) {
        throw new Error(`${script} ${args.join(" ")} failed (code ${code}, signal ${signal}):\n${err}`);
      }
      return JSON.parse(line.slice("result ".length)) as T;
    },
  };
  return worker;
}

/** Start workers, wait until all printed "ready", then let them go at once. */
export async function startTogether(script: string, argsOf: (index: number) => string[], count: number) {
  const workers = Array.from({ length: count }, (_, i) => startWorker(script, argsOf(i)));
  await Promise.all(workers.map((w) => w.waitForLine(/^ready$/)));
  for (const w of workers) w.go();
  return workers;
}
