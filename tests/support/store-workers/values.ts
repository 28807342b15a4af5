/**
 * Values the store workers write: a JSON header naming the writer and the write, then filler
 * bytes derived from both, so a reader can tell one writer's whole value from a mix of two.
 */

/** The value writer `writer` writes on its `n`th write, `size` bytes long. */
export function makeValue(writer: number, n: number, size: number): Buffer {
  const header = Buffer.from(JSON.stringify({ writer, n, size }) + "\n");
  if (header.length > size) throw new Error(`size ${size} is too small for the header`);
  const value = Buffer.alloc(size, (writer * 37 + n * 11 + 1) % 251);
  header.copy(value);
  return value;
}

/** Which writer and write a value is, or `null` when it is not exactly one writer's whole value. */
export function identify(value: Buffer): { writer: number; n: number } | null {
  const end = value.indexOf(0x0a);
  if (end < 0) return null;
  let header: { writer?: unknown; n?: unknown; size?: unknown };
  try {
    header = JSON.parse(value.subarray(0, end).toString("utf8")) as typeof header;
  } catch {
    return null;
  }
  const { writer, n, size } = header;
  if (typeof writer !== "number" || typeof n !== "number" || typeof size !== "number") return null;
  return value.equals(makeValue(writer, n, size)) ? { writer, n } : null;
}
