/** The whole value and every 16-character piece of it (all of it when shorter): what a leak check looks for. */
export function piecesOf(value: string): string[] {
  if (value.length <= 16) return [value];
  const pieces = new Set<string>([value]);
  for (let i = 0; i + 16 <= value.length; i++) pieces.add(value.slice(i, i + 16));
  return [...pieces];
}
