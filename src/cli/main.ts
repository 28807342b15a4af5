/**
 * The tapshot command: review and maintain the store (`list`, `show`, `prune`; `pending`,
 * `accept`, `revert`, `review` in review/), and report over it and the last run (`report`).
 * Exit codes (see exit.ts): 0 ok, 1 failure or nothing found, 2 usage error.
 */
import { readFileSync } from "node:fs";
import { Command, CommanderError, Option } from "commander";
import { CommandFailure, EXIT, UsageError } from "./exit.js";
import { printLines } from "./format.js";
import { readStoreModel } from "./model.js";
import { runList } from "./list.js";
import { runShow } from "./show.js";
import { runPrune } from "./prune.js";
import { runReport } from "./report/index.js";
import { openS3Store, openStore } from "./store.js";
import { runSync } from "./sync.js";
import { scopeModel, type ScopeFilter } from "./select.js";
import { addReviewCommands } from "./review/commands.js";
import { addMcpCommand } from "./mcp.js";
import type { Store } from "../core/store/store.js";
import { readRuns } from "./runs.js";
import {
  collect,
  defaultResultsDir,
  defaultStorageDir,
  existingStorageDir,
  parsePlatform,
  parseApp,
  parseProject,
  parseSince,
  type CommonOptions,
} from "./options.js";
import type { Platform } from "../core/device/description.js";
import { printable } from "../core/ground/printable.js";
import { redact } from "../core/ground/secrets.js";

function version(): string {
  // src/cli/main.ts and dist/cli/main.js both sit two folders below package.json.
  try {
    return (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string })
      .version;
  } catch {
    return "unknown";
  }
}

interface FilterFlags {
  project?: string;
  app?: string;
  platform?: Platform;
  device?: string[];
  kind?: "tap" | "baseline" | "judgment" | "act";
}

function withCommon(command: Command, json = true): Command {
  command
    .option("--storage <dir>", "storage root holding _ai_/ (default: $TAPSHOT_STORAGE_DIR or ./storage)")
    .option("--store <s3-url>", "a bucket holding _ai_/ instead, e.g. s3://team-tapshot/storage (docs/device-farms.md)")
    .option("--results <dir>", "run results folder (default: $TAPSHOT_RESULTS_DIR or ./tapshot-results)");
  if (json) command.option("--json", "print JSON on stdout, for scripts");
  return withScope(command);
}

function withFilters(command: Command): Command {
  return command
    .option("--platform <platform>", "only android or ios", parsePlatform)
    .option("--device <slug>", "only this device slug, e.g. google-pixel-7_14 (repeatable)", collect)
    .addOption(
      new Option("--kind <kind>", "only taps, baselines, judgments or acts").choices([
        "tap",
        "baseline",
        "judgment",
        "act",
      ]),
    );
}

/** `--project` and `--app`: every command that reads or changes stored values takes them. */
function withScope(command: Command): Command {
  return command
    .option("--project <name>", "only this project's values (docs/storage.md)", parseProject)
    .option("--app <id>", "only this app's values, e.g. com.example.shop", parseApp);
}

function common(options: Partial<CommonOptions>): CommonOptions {
  const scope = {
    ...(options.json ? { json: true } : {}),
    ...(options.project !== undefined ? { project: options.project } : {}),
    ...(options.app !== undefined ? { app: options.app } : {}),
  };
  if (options.store)
    return { storage: "", store: options.store, results: options.results ?? defaultResultsDir(), ...scope };
  return {
    storage: existingStorageDir(options.storage ?? defaultStorageDir()),
    results: options.results ?? defaultResultsDir(),
    ...scope,
  };
}

async function modelOf(options: CommonOptions) {
  return scopeModel(await readStoreModel(await openStore(options), await readRuns(options.results)), options);
}

function storeOf(options: CommonOptions): Promise<Store> {
  return openStore(options);
}

/** The program; `exit` receives the exit code of a subcommand. */
export function buildProgram(exit: (code: number) => void): Command {
  const program = new Command("tapshot")
    .description(
      "Review the taps and screenshot baselines tapshot stored, and what the last run did. " +
        "Errors are one line; --debug (or DEBUG set) adds the stack trace.",
    )
    .version(version())
    .showHelpAfterError('(run "tapshot help <command>" for its options)')
    // Commander's errors repeat what was typed (an unknown command or option): escape it line by line.
    .configureOutput({ outputError: (text, write) => write(text.split("\n").map(printable).join("\n")) })
    .exitOverride();

  withFilters(withCommon(program.command("list")))
    .description("list stored taps and baselines per platform and device, with age, last heal and last use")
    .action(async (flags: Partial<CommonOptions> & FilterFlags) => {
      const options = common(flags);
      exit(runList(await modelOf(options), { ...flags, json: options.json }));
    });

  withFilters(withCommon(program.command("show")))
    .description("show every record of a baseline name or tap prompt (exact, else a case-insensitive part of it)")
    .argument("<name|prompt>", "baseline name or tap prompt")
    .action(async (query: string, flags: Partial<CommonOptions> & FilterFlags) => {
      const options = common(flags);
      exit(runShow(await modelOf(options), query, { ...flags, json: options.json }));
    });

  withFilters(withCommon(program.command("prune")))
    .description("remove records not used since a date, or of devices no longer in use (filters combine with AND)")
    .option("--unused-since <date|age>", "last used before this date (2026-01-31) or age (90d, 12w, 48h)", (v) =>
      parseSince(v),
    )
    .option("--dry-run", "only print what would be removed")
    .action(async (flags: Partial<CommonOptions> & FilterFlags & { unusedSince?: Date; dryRun?: boolean }) => {
      const options = common(flags);
      exit(await runPrune(await modelOf(options), { ...flags, json: options.json }));
    });

  withCommon(program.command("report"))
    .description("write a static HTML report over the store and the last run's results")
    .option("--out <dir>", "output folder (default: <results>/report)")
    .option("--run <id>", "show this run folder instead of the last run (repeatable)", collect)
    .addOption(
      new Option("--format <format>", "markdown: also print a summary (for $GITHUB_STEP_SUMMARY)").choices([
        "html",
        "markdown",
      ]),
    )
    .action(async (flags: Partial<CommonOptions> & { out?: string; run?: string[]; format?: "html" | "markdown" }) => {
      const options = common(flags);
      exit(await runReport({ ...flags, ...options, storage: await openStore(options) }));
    });

  withScope(program.command("pull"))
    .description("copy records a bucket has and the storage folder lacks into the folder, to review and commit")
    .requiredOption("--from <s3-url>", "the bucket, e.g. s3://team-tapshot/storage")
    .option("--storage <dir>", "storage root holding _ai_/ (default: $TAPSHOT_STORAGE_DIR or ./storage)")
    .option("--json", "print JSON on stdout, for scripts")
    .action(async (flags: { from: string; storage?: string; json?: boolean } & ScopeFilter) => {
      const bucket = openS3Store(flags.from);
      exit(await runSync(bucket, await openStore({ storage: flags.storage }), flags));
    });

  withScope(program.command("push"))
    .description("copy records the storage folder has and a bucket lacks into the bucket (seed it from git)")
    .requiredOption("--to <s3-url>", "the bucket, e.g. s3://team-tapshot/storage")
    .option("--storage <dir>", "storage root holding _ai_/ (default: $TAPSHOT_STORAGE_DIR or ./storage)")
    .option("--json", "print JSON on stdout, for scripts")
    .action(async (flags: { to: string; storage?: string; json?: boolean } & ScopeFilter) => {
      const bucket = openS3Store(flags.to);
      exit(await runSync(await openStore({ storage: flags.storage }), bucket, flags));
    });

  addReviewCommands(program, { withCommon, withFilters, common, modelOf, storeOf, exit });
  addMcpCommand(program);
  return program;
}

/** Run the command line; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  let code: number = EXIT.ok;
  const program = buildProgram((c) => (code = c));
  if (argv.length <= 2) {
    program.outputHelp();
    return EXIT.usage;
  }
  // --debug (or DEBUG set) adds the stack trace to an error's one line; anywhere on the command line.
  const debug = argv.slice(2).includes("--debug") || !!process.env.DEBUG;
  try {
    await program.parseAsync(argv.filter((arg, i) => i < 2 || arg !== "--debug"));
    return code;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and --version are not errors; commander already printed the message.
      if (["commander.helpDisplayed", "commander.version", "commander.help"].includes(error.code)) return EXIT.ok;
      return EXIT.usage;
    }
    if (error instanceof UsageError) {
      printLines([`tapshot: ${redact(error.message)}`], process.stderr);
      return EXIT.usage;
    }
    printLines(
      [`tapshot: ${error instanceof CommandFailure ? "" : "error: "}${redact((error as Error).message)}`],
      process.stderr,
    );
    if (debug && error instanceof Error && error.stack) process.stderr.write(`${redact(error.stack)}\n`);
    return EXIT.failure;
  }
}

process.exitCode = await main(process.argv);
