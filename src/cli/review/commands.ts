/** The review commands (`pending`, `accept`, `revert`, `review`), added to the program by main.ts. */
import type { Command } from "commander";
import type { Store } from "../../core/store/store.js";
import type { StoreModel } from "../model.js";
import type { CommonOptions } from "../options.js";
import type { EntryFilter } from "../select.js";
import { runDecide } from "./decide.js";
import { pendingValues, runPending } from "./pending.js";
import { reviewerName } from "./reviewer.js";
import { startReviewServer } from "./server.js";
import { printLines } from "../format.js";
import { UsageError } from "../exit.js";
import { pickRuns, readRuns } from "../runs.js";
import { runAcceptFailed } from "./accept-failed.js";
import { lastFailures } from "./failures.js";

function collectRun(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** What main.ts shares with these commands: its common options and filters, and how it opens the store. */
export interface ProgramParts {
  withCommon(command: Command, json?: boolean): Command;
  withFilters(command: Command): Command;
  common(options: Partial<CommonOptions>): CommonOptions;
  modelOf(options: CommonOptions): Promise<StoreModel>;
  storeOf(options: CommonOptions): Promise<Store>;
  exit(code: number): void;
}

type Flags = Partial<CommonOptions> & EntryFilter & { all?: boolean; by?: string };

export function addReviewCommands(program: Command, parts: ProgramParts): void {
  addPendingCommand(program, parts);
  for (const decision of ["accept", "revert"] as const) addDecideCommand(program, parts, decision);
  addReviewPageCommand(program, parts);
}

function addPendingCommand(program: Command, { withCommon, withFilters, common, modelOf, exit }: ProgramParts): void {
  withFilters(withCommon(program.command("pending")))
    .description("list the new values and heals that await review (a person accepts or reverts them)")
    .option("--fail-on-pending", "exit 1 when anything awaits review (a CI gate)")
    .action(async (flags: Flags & { failOnPending?: boolean }) => {
      const options = common(flags);
      exit(runPending(await modelOf(options), { ...flags, json: options.json }));
    });
}

/** `accept` (with `--failed`: the last run's failed baselines) and `revert`. */
function addDecideCommand(program: Command, parts: ProgramParts, decision: "accept" | "revert"): void {
  const { withCommon, withFilters, common, modelOf, storeOf, exit } = parts;
  const command = withFilters(withCommon(program.command(decision)));
  if (decision === "accept") {
    command
      .option("--failed", "accept each baseline that failed in the last run (or --run) from the screenshot it kept")
      .option("--run <id>", "with --failed: this run folder instead of the last run (repeatable)", collectRun);
  }
  command
    .description(
      decision === "accept"
        ? "accept pending values: they stay as stored, marked accepted with who and when"
        : "revert pending values: a heal gets its previous value back and is not healed to again; a new value is deleted",
    )
    .argument("[name|prompt]", "baseline name or tap prompt (exact, else a case-insensitive part of it)")
    .option("--all", "every pending value (the filters still apply)")
    .option("--by <name>", "who reviews, for the record (default: $TAPSHOT_REVIEWER, else git user.name <user.email>)")
    .action(async (query: string | undefined, flags: Flags & { failed?: boolean; run?: string[] }) => {
      const options = common(flags);
      const by = { name: reviewerName(flags.by), at: new Date().toISOString() };
      if (decision === "accept" && flags.failed) {
        if (query || flags.all) throw new UsageError("--failed accepts a run's failures: give no name or --all.");
        const runs = pickRuns(await readRuns(options.results), flags.run, options.results);
        return exit(await runAcceptFailed(await storeOf(options), runs, by, { json: options.json }));
      }
      if (flags.run?.length) throw new UsageError("--run goes with --failed.");
      const [model, store] = [await modelOf(options), await storeOf(options)];
      exit(await runDecide(model, store, decision, query, { ...flags, ...options }, by));
    });
}

/** `review`: the local page, started only when something awaits review. */
function addReviewPageCommand(program: Command, { withCommon, common, modelOf, storeOf, exit }: ProgramParts): void {
  withCommon(program.command("review"), false)
    .description(
      "open a local page (127.0.0.1 only) to accept or revert pending values and the last run's failures; Ctrl-C stops it",
    )
    .option("--by <name>", "who reviews, for the record (default: $TAPSHOT_REVIEWER, else git user.name <user.email>)")
    .action(async (flags: Flags) => {
      const options = common(flags);
      const store = await storeOf(options);
      const last = await lastFailures(options.results, store);
      const failed = last.failures.length + last.unreadable.length;
      // A store that cannot be listed fails the command, unless there are failures to show (the page says why).
      const pending = await modelOf(options).then(
        (model) => pendingValues(model, {}).length,
        (error: unknown) => (failed ? 0 : Promise.reject(error)),
      );
      if (!pending && !failed) {
        printLines([
          `Nothing awaits review: every stored value is accepted and the last run in ${options.results} had no ` +
            `failure. Run "tapshot pending" to check.`,
        ]);
        return exit(0);
      }
      const server = await startReviewServer({
        store,
        readModel: () => modelOf(options),
        reviewer: reviewerName(flags.by),
        results: options.results,
      });
      printLines([
        `Review pending values${failed ? ` and the last run's ${failed} failure${failed === 1 ? "" : "s"}` : ""} at ${server.url}`,
        "Press Ctrl-C to stop.",
      ]);
      await new Promise<void>((resolve) => process.once("SIGINT", resolve));
      await server.close();
      exit(0);
    });
}
