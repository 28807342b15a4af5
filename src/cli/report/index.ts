/** `tapshot report`: a static HTML page over the store and the last run's results. */
import { promises as fs } from "node:fs";
import path from "node:path";
import { printJson, printLines } from "../format.js";
import { readStoreModel } from "../model.js";
import { scopeModel, type ScopeFilter } from "../select.js";
import { pickRuns, readRuns } from "../runs.js";
import type { Store } from "../../core/store/store.js";
import { ReportFiles } from "./files.js";
import { renderReport } from "./html.js";
import { buildView } from "./view.js";
import { renderMarkdown } from "./markdown.js";
import { pendingValues } from "../review/pending.js";

export interface ReportOptions extends ScopeFilter {
  /** The store to report on: a storage folder's path, or a store the CLI opened (a bucket). */
  storage: string | Store;
  results: string;
  /** Output folder; default `<results>/report`. */
  out?: string;
  /** Run ids to show instead of the last run. */
  run?: string[];
  json?: boolean;
  /** `html` (default): print the page's path; `markdown`: also write the Markdown summary into `out` and print it. */
  format?: "html" | "markdown";
}

export async function runReport(options: ReportOptions): Promise<number> {
  const allRuns = await readRuns(options.results);
  const runs = pickRuns(allRuns, options.run, options.results);
  const store = scopeModel(await readStoreModel(options.storage, allRuns), options);
  const outDir = path.resolve(options.out ?? path.join(options.results, "report"));
  const files = await ReportFiles.create(outDir);
  const view = await buildView(store, runs, files);
  const page = path.join(outDir, "index.html");
  await fs.writeFile(page, renderReport(view));
  if (options.format === "markdown") {
    const summary = renderMarkdown(view, pendingValues(store));
    await fs.writeFile(`${outDir}/summary.md`, summary);
    process.stdout.write(summary);
  } else if (options.json) {
    printJson({
      report: page,
      runs: runs.map((r) => r.id),
      baselines: store.baselines.length,
      taps: store.taps.length,
      heals: view.heals.length,
      failures: view.failures.length,
      invalid: store.invalid.length,
      totals: view.totals,
    });
  } else {
    printLines([page]);
  }
  return 0;
}
