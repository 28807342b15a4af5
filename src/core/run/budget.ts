/*
 * The run's model request budget (`maxAiCalls`, docs/configuration.md). Each request claims a
 * place before it is sent by appending one line to `<resultsDir>/<run>/ai-calls.log`; the line's
 * place in the file is the request's number in the run. Appends to one file are ordered by the
 * file system (O_APPEND), so worker processes sharing the run folder (one `TAPSHOT_RUN_ID`) share
 * one budget without a lock, and a crashed worker leaves nothing locked.
 */
import { randomUUID } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { RUN_ID } from "../ground/artifacts.js";
import { BudgetError } from "../ground/errors.js";

/** Name of the claims file in the run folder. */
export const BUDGET_FILE = "ai-calls.log";

/** Requests claimed by this process when results are not recorded (no run folder to share). */
let claimedHere = 0;

/** Where and how much: the call's resolved settings. */
export interface BudgetSettings {
  maxAiCalls: number | undefined;
  resultsDir: string | undefined;
}

/**
 * Claim one model request of the run, or throw a {@link BudgetError} when the budget is spent.
 * Call it before the channel is asked; a claimed request counts even if it then fails.
 */
export async function claimAiCall({ maxAiCalls, resultsDir }: BudgetSettings): Promise<void> {
  if (maxAiCalls === undefined) return;
  let number: number;
  let where: string;
  if (resultsDir) {
    const dir = path.resolve(resultsDir, RUN_ID);
    const file = path.join(dir, BUDGET_FILE);
    const token = `${process.pid} ${randomUUID()}`;
    await fs.mkdir(dir, { recursive: true });
    // One short write in append mode: it lands whole, after every line appended before it.
    await fs.appendFile(file, `${token}\n`);
    const lines = (await fs.readFile(file, "utf8")).split("\n");
    number = lines.indexOf(token) + 1;
    where = `counted in ${file}, shared by every worker with this run folder`;
  } else {
    number = ++claimedHere;
    where = "counted in this process: resultsDir is off, so workers do not share the count";
  }
  if (number > maxAiCalls) {
    throw new BudgetError(
      `This call needs a model request, but the run's AI budget is spent: maxAiCalls is ${maxAiCalls} and the run ` +
        `has made ${maxAiCalls} model request${maxAiCalls === 1 ? "" : "s"} (${where}). The request was not sent. ` +
        `Raise maxAiCalls in configureAi (or TAPSHOT_MAX_AI_CALLS), or commit the values learned so far under ` +
        `_ai_/ so the next run replays them without a model.`,
      { maxAiCalls, made: maxAiCalls },
    );
  }
}

/** Forget this process's claims (tests of the resultsDir-less count). */
export function resetClaims(): void {
  claimedHere = 0;
}
