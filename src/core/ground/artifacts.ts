/** Failure artifacts: images a failed call reports so a person can see what went wrong. */
import { appendFileSync, mkdirSync, promises as fs } from "node:fs";
import path from "node:path";

/** One image a failed call reports. */
export interface Artifact {
  /** File name that says which call produced it, e.g. `tap-the-checkout-button-1a2b3c__expected.png`. */
  name: string;
  /** What the image shows. */
  role: "expected" | "actual" | "diff" | "screenshot" | "composite";
  mimeType: "image/png";
  data: Buffer;
  /** The API call that produced it. */
  api: "tap" | "toMatchScreenshot" | "toSatisfy" | "act";
  /** The tap prompt or the baseline name. */
  subject: string;
  /** Device slug. */
  device: string;
}

/**
 * A runner's receiver of a failure's artifacts (`configureAi({ reportArtifact })`). Return where the
 * artifact went (a path or a URL) so the error message can name it; runners upload it to their own
 * report. It gets each image besides the copy kept in the run folder (see {@link keepArtifact}).
 */
export type ArtifactReporter = (artifact: Artifact) => string | void | Promise<string | void>;

/** A run id for the results folder: timestamp plus process id, unique across parallel workers. */
export const RUN_ID = process.env.TAPSHOT_RUN_ID ?? `${new Date().toISOString().replace(/[:.]/g, "-")}_${process.pid}`;

/**
 * Keep an artifact in the run folder, `<resultsDir>/<run>/`, and return its path: what
 * `tapshot accept --failed`, the review page and the report read, whatever reporter the runner has.
 * A name already written in this run (a retried test failing again) gets a number,
 * `..__expected-crop-2.png`, so each failure's log entry keeps pointing at its own images.
 */
export async function keepArtifact(resultsDir: string, artifact: Artifact): Promise<string> {
  const dir = path.resolve(resultsDir, RUN_ID);
  await fs.mkdir(dir, { recursive: true });
  const stem = artifact.name.replace(/\.png$/i, "");
  for (let n = 1; ; n++) {
    const file = path.join(dir, n === 1 ? `${stem}.png` : `${stem}-${n}.png`);
    try {
      await fs.writeFile(file, artifact.data, { flag: "wx" });
      return file;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
}

/** Append a call's log entry to `<resultsDir>/<run>/calls.jsonl`, for the report. Best effort. */
export function recordCall(resultsDir: string, entry: object): void {
  try {
    const dir = path.resolve(resultsDir, RUN_ID);
    mkdirSync(dir, { recursive: true });
    appendFileSync(path.join(dir, "calls.jsonl"), JSON.stringify({ ...entry, at: new Date().toISOString() }) + "\n");
  } catch {
    // Results are for people reviewing a run; failing to write them must not fail the test step.
  }
}
