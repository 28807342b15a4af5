/** The known name nearest a mistyped one (`storagDir` -> `storageDir`), for "did you mean" hints. */

/** Edit distance of two short strings, case-insensitive. */
function distance(a: string, b: string): number {
  a = a.toLowerCase();
  b = b.toLowerCase();
  let row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length]!;
}

/** The known name `name` begins, or the one within a few edits of `name` (a third of its length, at least 2), or undefined. */
export function nearestName(name: string, known: readonly string[]): string | undefined {
  // A name cut short (`storage` for `storageDir`) is nearest the one it begins.
  const lower = name.toLowerCase();
  const begun = known.find((k) => lower.length >= 4 && k.toLowerCase().startsWith(lower));
  if (begun) return begun;
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const d = distance(name, candidate);
    if (!best || d < best.distance) best = { name: candidate, distance: d };
  }
  return best && best.distance <= Math.max(2, Math.floor(name.length / 3)) ? best.name : undefined;
}

/** `unknown option "storagDir" (did you mean "storageDir"?); known: a, b, c.` */
export function unknownOptionsMessage(unknown: readonly string[], known: readonly string[]): string {
  const named = unknown.map((k) => {
    const near = nearestName(k, known);
    return `"${k}"${near ? ` (did you mean "${near}"?)` : ""}`;
  });
  return `unknown option ${named.join(", ")}; known: ${known.join(", ")}`;
}
