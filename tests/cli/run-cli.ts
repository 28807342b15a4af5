/** Runs the tapshot command as a real child process, from source through tsx (no build needed). */
import { execFile } from "node:child_process";
import path from "node:path";

export const REPO = path.resolve(import.meta.dirname, "../..");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: Record<string, string | undefined> = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ["--import", "tsx", path.join(REPO, "src/cli/main.ts"), ...args],
      {
        cwd: REPO,
        // The child must not inherit jest's VM-modules flag or the parent's storage settings.
        env: { ...process.env, NODE_OPTIONS: "", TAPSHOT_STORAGE_DIR: "", TAPSHOT_RESULTS_DIR: "", ...env },
        timeout: 60_000,
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
