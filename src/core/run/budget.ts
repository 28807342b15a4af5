/*
 * The model request budget (`maxAiCalls`, docs/configuration.md): every request sent to a model
 * server (each retried attempt and a refinement pass included) claims a place first.
 *
 * Per run (the default), a claim appends one line to `<resultsDir>/<run>/ai-calls.log` (a project's
 * to `<resultsDir>/<run>/projects/<project>/ai-calls.log`: each project has a budget of its own); the
 * line's place in the file is the request's number in the run. Appends to one file are ordered by
 * the file system (O_APPEND), so worker processes sharing the run folder (one `TAPSHOT_RUN_ID`)
 * share one budget without a lock, and a crashed worker leaves nothing locked. A claim that cannot
 * be confirmed is refused (fails closed): its line is missing when read back (the file was
 * truncated, removed, or a network file system emulating O_APPEND overwrote it), or a line this
 * process claimed earlier is gone. Per session (`maxAiCallsPer: "session"`, the Appium plugin),
 * each device session counts its own requests in this process.
 */
import { randomUUID } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import { RUN_ID } from "../ground/artifacts.js";
import { BudgetError } from "../ground/errors.js";

/** Name of the claims file in the run folder. */
export const BUDGET_FILE = "ai-calls.log";

/** What one budget covers: the whole run (shared by its workers) or one device session. */
export type BudgetScope = "run" | "session";

/** Requests claimed by this process per project (`""` for none) when results are not recorded (no run folder to share). */
const claimedHere = new Map<string, number>();
/** Requests claimed per device session (scope `session`). */
let claimedBySession = new WeakMap<object, number>();
/** The lines this process appended to each claims file, in order, to notice a file that lost them. */
const ownLines = new Map<string, string[]>();

/** Where and how much: the call's resolved settings, and the session it runs on. */
export interface BudgetSettings {
  maxAiCalls: number | undefined;
  resultsDir: string | undefined;
  /** Default `run`. */
  maxAiCallsPer?: BudgetScope;
  /** The device session of the call (the key of a `session` budget). */
  session: object;
  /** The call's project: a project has a run budget of its own (`<run>/projects/<project>/`). */
  project?: string | undefined;
}

/** The claims file of a run's budget: the run's own, or its project's. */
function budgetFile(resultsDir: string, project: string | undefined): string {
  const run = path.resolve(resultsDir, RUN_ID);
  return project ? path.join(run, "projects", project, BUDGET_FILE) : path.join(run, BUDGET_FILE);
}

/**
 * Claim one model request, or throw a {@link BudgetError} when the budget is spent or the claim
 * cannot be confirmed. Call it before each request is sent; a claimed request counts even if it
 * then fails.
 */
export async function claimAiCall(settings: BudgetSettings): Promise<void> {
  const { maxAiCalls, resultsDir, maxAiCallsPer = "run", session, project } = settings;
  if (maxAiCalls === undefined) return;
  if (maxAiCallsPer === "session") {
    const number = (claimedBySession.get(session) ?? 0) + 1;
    claimedBySession.set(session, number);
    return checkNumber(maxAiCalls, number, "counted for this device session, in this process");
  }
  if (!resultsDir) {
    const number = (claimedHere.get(project ?? "") ?? 0) + 1;
    claimedHere.set(project ?? "", number);
    return checkNumber(
      maxAiCalls,
      number,
      "counted in this process: resultsDir is off, so workers do not share the count",
    );
  }
  const file = budgetFile(resultsDir, project);
  const claim = await claimInFile(file);
  if (claim.refusal !== undefined) {
    throw new BudgetError(
      `This call needs a model request, but tapshot could not confirm its claim on the run's AI budget ` +
        `(maxAiCalls ${maxAiCalls}) in ${file}: ${claim.refusal}. The request was not sent. Keep the run folder on a ` +
        `local disk while the run lasts (a network file system may not append whole lines), and do not prune ` +
        `or edit it during the run.`,
      { maxAiCalls, made: Math.min(claim.made, maxAiCalls) },
    );
  }
  checkNumber(maxAiCalls, claim.number, `counted in ${file}, shared by every worker with this run folder`);
}

/** A claim in the file: its number, or why it is refused with how many requests are known to be sent. */
type FileClaim =
  { number: number; made?: undefined; refusal?: undefined } | { number?: undefined; made: number; refusal: string };

/**
 * Append one claim line and read the file back: the claim's number, or why it is refused when the
 * file does not hold it (or an earlier claim of this process) any more.
 */
async function claimInFile(file: string): Promise<FileClaim> {
  const token = `${process.pid} ${randomUUID()}`;
  const earlier = ownLines.get(file) ?? [];
  let lines: string[];
  try {
    await fs.mkdir(path.dirname(file), { recursive: true });
    // One short write in append mode: it lands whole, after every line appended before it.
    await fs.appendFile(file, `${token}\n`);
    lines = (await fs.readFile(file, "utf8")).split("\n");
  } catch (error) {
    const refusal = `the file could not be written and read back (${(error as Error).message})`;
    return { made: earlier.length, refusal };
  }
  const index = lines.indexOf(token);
  // What is sure to have been sent: the claims this process was granted, or those the file shows before this one.
  if (index < 0) {
    const refusal = "the line it appended is not in the file when read back";
    return { made: Math.max(earlier.length, lines.filter(Boolean).length), refusal };
  }
  const lost = earlier.filter((line) => !lines.includes(line)).length;
  if (lost) {
    return {
      made: Math.max(earlier.length, index),
      refusal: `${lost} earlier claim${lost === 1 ? "" : "s"} of this process ${lost === 1 ? "is" : "are"} gone from the file (it was truncated, replaced or removed during the run)`,
    };
  }
  ownLines.set(file, [...earlier, token]);
  return { number: index + 1 };
}

/** Throw the spent-budget error when request `number` is over `maxAiCalls`. */
function checkNumber(maxAiCalls: number, number: number, where: string): void {
  if (number <= maxAiCalls) return;
  throw new BudgetError(
    `This call needs a model request, but the AI budget is spent: maxAiCalls is ${maxAiCalls} and ` +
      `${maxAiCalls} model request${maxAiCalls === 1 ? " was" : "s were"} sent (${where}; each retry and ` +
      `refinement request counts). The request was not sent. Raise maxAiCalls in configureAi (or ` +
      `TAPSHOT_MAX_AI_CALLS), or commit the values learned so far under _ai_/ so the next run replays them ` +
      `without a model.`,
    { maxAiCalls, made: maxAiCalls },
  );
}

/**
 * Start a run's budget afresh: a claims file left in the run folder by an earlier run with the
 * same `TAPSHOT_RUN_ID` is moved aside (renamed `ai-calls.<time>.log`, kept for reading), so the
 * new run does not inherit its spent count. Called where a run starts, before its workers claim
 * anything (`startRun` of tapshot/runner, which the WDIO launcher calls). Returns where the old
 * file went, `undefined` when there was none.
 */
export async function startRunBudget(resultsDir: string | undefined): Promise<string | undefined> {
  if (!resultsDir) return undefined;
  const projects = path.join(path.resolve(resultsDir, RUN_ID), "projects");
  const names = await fs.readdir(projects).catch(() => [] as string[]);
  for (const project of names) await moveAside(budgetFile(resultsDir, project));
  return moveAside(budgetFile(resultsDir, undefined));
}

/** Rename a claims file aside (`ai-calls.<time>.log`); where it went, `undefined` when there was none. */
async function moveAside(file: string): Promise<string | undefined> {
  const aside = file.replace(/\.log$/, `.${new Date().toISOString().replace(/[:.]/g, "-")}.log`);
  try {
    await fs.rename(file, aside);
    ownLines.delete(file);
    return aside;
  } catch {
    return undefined;
  }
}

/** Forget this process's claims (tests of the in-process counts). */
export function resetClaims(): void {
  claimedHere.clear();
  claimedBySession = new WeakMap();
  ownLines.clear();
}
