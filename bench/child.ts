/**
 * Runs a benchmark script in a fresh Node process (through tsx), so its memory is its own, and
 * returns the JSON object its last line of output holds.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Run `script` (a file beside this one) with `args`; `label` names the child in errors. */
export function runJsonChild<T>(script: string, args: string[], label: string): Promise<T> {
  const file = fileURLToPath(new URL(script, import.meta.url));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", file, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => (out += c.toString()));
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    child.once("error", reject);
    child.once("exit", (code) => {
      const line = out.trim().split("\n").at(-1) ?? "";
      if (code === 0 && line.startsWith("{")) return resolve(JSON.parse(line) as T);
      reject(new Error(`${label} exited with ${code}:\n${err.slice(-2000)}`));
    });
  });
}
