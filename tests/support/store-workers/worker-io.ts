/** What every store worker shares: its arguments and the start barrier on stdin. */
import { createInterface } from "node:readline";

/** The worker's command-line arguments after the script path. */
export const args = process.argv.slice(2);

/** Print "ready", then resolve when the test writes "go" on stdin, so all workers start together. */
export function ready(): Promise<void> {
  const lines = createInterface({ input: process.stdin });
  process.stdout.write("ready\n");
  return new Promise((resolve) => {
    lines.on("line", (line) => {
      if (line.trim() === "go") {
        lines.close();
        // An open stdin pipe would keep the worker alive after its work.
        process.stdin.destroy();
        resolve();
      }
    });
  });
}

/** One line of JSON on stdout: the worker's result. */
export function report(result: unknown): void {
  process.stdout.write(`result ${JSON.stringify(result)}\n`);
}
