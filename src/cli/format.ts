/**
 * Plain-text output helpers: ages, tables, JSON. Text output goes through {@link printLines}
 * (control characters escaped, see src/core/ground/printable.ts); JSON is written exact.
 */
import { printable } from "../core/ground/printable.js";

/** `3d ago`, `5h ago`, `just now`: how long before `now` a time was. */
export function age(time: Date | string, now = Date.now()): string {
  const ms = now - new Date(time).getTime();
  if (ms < 60_000) return "just now";
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.floor(minutes / 60);
  if (hours < 48) return `${hours}h ago`;
  const days = Math.floor(hours / 24);
  return days < 730 ? `${days}d ago` : `${Math.floor(days / 365)}y ago`;
}

/** The lines of a table: columns padded to their widest (escaped) cell; the last column is not padded. */
export function table(header: string[], rows: string[][]): string[] {
  const cells = [header, ...rows].map((row) => row.map(printable));
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  return cells.map((row) =>
    row
      .map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd(),
  );
}

/** Shorten text for a table cell. */
export function clip(text: string, max = 48): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** Write text output, one line per element: a newline or escape sequence inside a line is escaped, never sent. */
export function printLines(lines: string[], stream: NodeJS.WritableStream = process.stdout): void {
  stream.write(lines.map(printable).join("\n") + "\n");
}

/** Write a value as pretty JSON on stdout. */
export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + "\n");
}
