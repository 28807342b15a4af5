/** `tapshot show <name|prompt>`: every record of a baseline name or tap prompt, in full. */
import type { ActRecord } from "../core/store/act-record.js";
import { age, printJson, printLines } from "./format.js";
import { allEntries, type StoreEntry, type StoreModel } from "./model.js";
import { entryJson, matchesFilter, type EntryFilter } from "./select.js";
import { EXIT } from "./exit.js";

export interface ShowOptions extends EntryFilter {
  json?: boolean;
}

/**
 * Records whose name or prompt is exactly `query`; when none is, those whose name,
 * prompt or key contains it (ignoring case).
 */
export function findEntries(model: StoreModel, query: string, filter: EntryFilter = {}): StoreEntry[] {
  const candidates = allEntries(model).filter((e) => matchesFilter(e, filter));
  const exact = candidates.filter((e) => e.subject === query);
  if (exact.length) return exact;
  const needle = query.toLowerCase();
  return candidates.filter((e) => e.subject.toLowerCase().includes(needle) || e.key.toLowerCase().includes(needle));
}

export function runShow(model: StoreModel, query: string, options: ShowOptions): number {
  const found = findEntries(model, query, options);
  if (options.json) {
    printJson({ query, entries: found.map(entryJson) });
  } else if (found.length) {
    printLines(found.flatMap((entry, i) => [...(i ? [""] : []), ...describe(entry)]));
  }
  if (!found.length) {
    printLines(
      [
        `tapshot: nothing stored matches "${query}" in ${model.root}. ` +
          `Run "tapshot list" to see the stored names and prompts.`,
      ],
      process.stderr,
    );
    return EXIT.failure;
  }
  return EXIT.ok;
}

function describe(entry: StoreEntry): string[] {
  const r = entry.record;
  const d = r.device;
  const lines = [
    `${entry.kind} "${entry.subject}"`,
    field("key", entry.key),
    field(
      "device",
      `${entry.device} (${d.platform} ${d.model} ${d.osVersion}, ${d.screen.width}x${d.screen.height} @${d.scale}, ${d.orientation})`,
    ),
  ];
  if (r.kind === "tap") {
    lines.push(field("verify", r.verify ?? "-"));
    lines.push(field("point", `(${r.point.x}, ${r.point.y})`));
    lines.push(field("box", rect(r.box)));
    lines.push(field("crop", rect(r.crop)));
  } else if (r.kind === "act") {
    lines.push(field("values", r.valueNames.join(", ") || "-"));
    r.steps.forEach((s, i) => lines.push(field(i ? "" : "steps", actStepText(s))));
  } else if (r.kind === "judgment") {
    lines.push(field("context", r.context ?? "-"));
    lines.push(field("P(true)", String(r.probability)));
    lines.push(field("evidence", `${r.evidenceHash}${r.imageSent ? " (with the image)" : ""}`));
    lines.push(field("judged", r.evidence.split("\n")[0]!));
  } else {
    lines.push(field("prompt", r.prompt));
    lines.push(field("varying", r.varying.length ? r.varying.map(rect).join("; ") : "-"));
  }
  lines.push(field("model", `${r.model}: ${r.reason}`));
  lines.push(field("created", `${r.createdAt} (${age(r.createdAt)})`));
  lines.push(field("stored", `${r.storedAt} (${age(r.storedAt)})`));
  lines.push(field("last used", `${entry.lastUsed.toISOString()} (${age(entry.lastUsed)})`));
  if (r.previous) {
    const p = r.previous;
    const where =
      "point" in p
        ? `point (${p.point.x}, ${p.point.y}), crop ${rect(p.crop)}`
        : "prompt" in p
          ? `prompt "${p.prompt}"`
          : "steps" in p
            ? `${p.steps.length} steps`
            : `P(true) ${p.probability}`;
    lines.push(
      field("healed", `${r.storedAt} (${age(r.storedAt)}); before: ${where}, stored ${p.storedAt} by ${p.model}`),
    );
  }
  lines.push(field("files", entry.files.json));
  lines.push(field("", entry.files.image));
  if (entry.files.previousImage) lines.push(field("", entry.files.previousImage));
  return lines;
}

/** `fill "Email" with value email at (540, 480)`: one stored step of an act, value names only. */
function actStepText(step: ActRecord["steps"][number]): string {
  const on = step.control ? ` "${step.control.label}"` : "";
  const extra = [
    step.value !== undefined ? `with value ${step.value}` : "",
    step.checked !== undefined ? (step.checked ? "on" : "off") : "",
    step.option !== undefined ? `option "${step.option}"` : "",
    step.key ?? "",
    step.direction ?? "",
    step.control ? `at (${step.control.point.x}, ${step.control.point.y})` : "",
  ].filter(Boolean);
  return [`${step.action}${on}`, ...extra].join(" ");
}

function field(name: string, value: string): string {
  return `  ${name.padEnd(10)} ${value}`;
}

function rect(b: { x: number; y: number; width: number; height: number }): string {
  return `${b.width}x${b.height} at (${b.x}, ${b.y})`;
}
