/**
 * `tapshot pull` and `tapshot push`: copy records between a bucket and the storage folder
 * (docs/device-farms.md). A record is copied only where it is missing: images first, then the
 * JSON written if absent (the commit point), so a copy cut short leaves no record. Records that
 * differ on both sides are listed and left alone, for a person to decide. A key either store
 * refuses (a `..` segment a bucket listed, a symbolic link in the folder) is skipped and reported,
 * and the other records are still copied.
 */
import { StoreError } from "../core/ground/errors.js";
import type { Store } from "../core/store/store.js";
import { printJson, printLines, table } from "./format.js";
import { EXIT } from "./exit.js";
import { inScope, type ScopeFilter } from "./select.js";
import { parseScopedKey } from "../core/store/keys.js";

/** What a copy did with one record. */
interface Copied {
  key: string;
  outcome: "copied" | "same" | "differs" | "skipped";
  /** Why a skipped record was not copied. */
  reason?: string;
}

/**
 * The record keys (without `.json`) of stored taps, locators, baselines, judgments and acts of the older layout, and of
 * every kind under the projects' and apps' folders (docs/storage.md), in `scope`.
 */
async function recordKeys(store: Store, scope: ScopeFilter): Promise<string[]> {
  const keys: string[] = [];
  for (const folder of ["taps", "locators", "screenshots", "judgments", "acts", "apps", "projects"])
    keys.push(...(await store.list(folder)));
  return keys
    .filter((k) => k.endsWith(".json") && inScope(parseScopedKey(k), scope))
    .map((k) => k.slice(0, -".json".length));
}

/** Copy one record; a StoreError (a key a store refuses) skips it with its message. */
async function copyOrSkip(from: Store, to: Store, key: string): Promise<Copied> {
  try {
    return { key, outcome: await copyRecord(from, to, key) };
  } catch (error) {
    if (!(error instanceof StoreError)) throw error;
    return { key, outcome: "skipped", reason: error.message };
  }
}

async function copyRecord(from: Store, to: Store, key: string): Promise<Exclude<Copied["outcome"], "skipped">> {
  const json = await from.read(`${key}.json`);
  if (!json) return "same"; // removed while copying
  const present = await to.read(`${key}.json`);
  if (present) return present.equals(json) ? "same" : "differs";
  for (const image of [`${key}.previous.png`, `${key}.png`]) {
    const data = await from.read(image);
    if (data) await to.write(image, data);
  }
  return (await to.write(`${key}.json`, json, { ifAbsent: true })) ? "copied" : "differs";
}

/** Copy every record `from` has and `to` lacks; exit code 0 unless a record was skipped. */
export async function runSync(from: Store, to: Store, options: { json?: boolean } & ScopeFilter = {}): Promise<number> {
  const results: Copied[] = [];
  for (const key of await recordKeys(from, options)) results.push(await copyOrSkip(from, to, key));
  const copied = results.filter((r) => r.outcome === "copied");
  const differs = results.filter((r) => r.outcome === "differs");
  const skipped = results.filter((r) => r.outcome === "skipped");
  const code = skipped.length ? EXIT.failure : EXIT.ok;
  if (options.json) {
    printJson({
      from: from.location,
      to: to.location,
      copied: copied.map((r) => r.key),
      differs: differs.map((r) => r.key),
      skipped: skipped.map((r) => ({ key: r.key, reason: r.reason })),
    });
    return code;
  }
  const lines = [
    `Copied ${copied.length} record${copied.length === 1 ? "" : "s"} from ${from.location} to ${to.location}` +
      ` (${results.length - copied.length - differs.length - skipped.length} already there).`,
  ];
  if (copied.length)
    lines.push(
      ...table(
        ["COPIED"],
        copied.map((r) => [r.key]),
      ),
    );
  if (differs.length) {
    lines.push(
      `${differs.length} record${differs.length === 1 ? " differs" : "s differ"} in both places and ${differs.length === 1 ? "was" : "were"} left alone` +
        ` (review with tapshot show, then remove the one to drop and copy again):`,
      ...table(
        ["DIFFERS"],
        differs.map((r) => [r.key]),
      ),
    );
  }
  if (skipped.length) {
    lines.push(
      `${skipped.length} record${skipped.length === 1 ? " was" : "s were"} skipped, because a store refused the key:`,
      ...table(
        ["SKIPPED", "WHY"],
        skipped.map((r) => [r.key, r.reason ?? ""]),
      ),
    );
  }
  printLines(lines);
  return code;
}
