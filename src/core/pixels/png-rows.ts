/*
 * Decoding a PNG's rows from the top down to a given row, and no further: the pixel data is
 * inflated chunk by chunk and inflating stops once the last wanted row is out. Rows are then
 * unfiltered from the nearest row above the wanted ones whose filter does not read the row
 * above it (None or Sub; the PNG specification's filters, https://www.w3.org/TR/png-3/#9Filters),
 * and only the columns up to the wanted rectangle's right edge (no filter reads a column to its right).
 *
 * Only what phones and Appium send is read here: 8-bit RGB or RGBA, not interlaced, with no
 * embedded colour profile. Anything else (palette, grey, 16-bit, Adam7, an iCCP or tRNS chunk, a
 * chunk whose CRC is wrong, data zlib rejects) returns `undefined`, and the caller decodes with
 * libvips, which reads every PNG or reports what is wrong with it. Of the ancillary chunks, these
 * two are the ones libvips applies to the decoded pixels: it converts pixels under an embedded
 * profile (a Display P3 screenshot, say) to sRGB, and turns the pixels of a tRNS chunk's colour
 * transparent. Reading them raw here would make the same screen decode differently in a stored
 * crop and in a screenshot. gAMA, cHRM, sRGB, sBIT, bKGD, cICP, mDCv and eXIf leave libvips' raw
 * pixels as they are (tests/hardening/evidence.test.ts checks each against libvips).
 */
import { crc32 } from "node:zlib";
import type { Rect } from "../ground/geometry.js";
import { openInflateInto, type InflateInto } from "./inflate-into.js";
import { hasPngSignature } from "./png.js";

/** What the IHDR chunk and the IDAT chunks of a PNG hold, for the PNGs this module reads. */
export interface PngLayout {
  width: number;
  height: number;
  /** Bytes per pixel: 3 (RGB) or 4 (RGBA). */
  bpp: 3 | 4;
  /** The zlib stream, in the IDAT chunks' order. */
  idat: Buffer[];
}

/** The layout of an 8-bit RGB(A) non-interlaced PNG with no iCCP or tRNS chunk whose chunks' CRCs hold, else `undefined`. */
export function pngLayout(png: Buffer): PngLayout | undefined {
  if (png.length < 33 || !hasPngSignature(png)) return undefined;
  const idat: Buffer[] = [];
  let header: Buffer | undefined;
  for (let at = 8; at + 12 <= png.length;) {
    const length = png.readUInt32BE(at);
    const end = at + 12 + length;
    if (end > png.length) return undefined;
    const type = png.toString("latin1", at + 4, at + 8);
    if (type === "iCCP" || type === "tRNS") return undefined;
    if (type === "IHDR" || type === "IDAT") {
      if (crc32(png.subarray(at + 4, at + 8 + length)) !== png.readUInt32BE(at + 8 + length)) return undefined;
      if (type === "IHDR") header = png.subarray(at + 8, at + 8 + length);
      else idat.push(png.subarray(at + 8, at + 8 + length));
    }
    if (type === "IEND") break;
    at = end;
  }
  if (!header || header.length !== 13 || !idat.length) return undefined;
  const [depth, colour, compression, filter, interlace] = header.subarray(8, 13);
  if (depth !== 8 || (colour !== 2 && colour !== 6) || compression !== 0 || filter !== 0 || interlace !== 0) {
    return undefined;
  }
  const width = header.readUInt32BE(0);
  const height = header.readUInt32BE(4);
  if (!width || !height) return undefined;
  return { width, height, bpp: colour === 6 ? 4 : 3, idat };
}

/** The first room for inflated rows, per decode: grown when the rows kept fill half of it. */
const FIRST_ROOM = 1 << 18;
/** The largest row buffer: once the rows kept fill half of it, the caller decodes with libvips instead. */
const MAX_BUFFER_BYTES = 1 << 26;

/**
 * The filtered rows of a PNG (each with its filter byte first), inflated by Node's zlib as far as
 * the rows asked for, into one buffer for the decode that is reused as rows are released. Node's
 * own zlib calls allocate a new buffer for every 16-256 KB of output, which V8 collects only after
 * tens of megabytes have piled up: ~9 MB per screen inflated that way cost more than the inflating
 * (BENCHMARKS.md, "Latest numbers").
 */
export class InflatedRows {
  /** Rows from `first` on, then part of the next row. */
  private held: Buffer = Buffer.allocUnsafe(FIRST_ROOM);
  private first = 0;
  private filled = 0;
  /** Rows above this one are not asked for again. */
  private keepFrom = 0;
  private part = 0;
  private partAt = 0;
  /** The zlib stream is complete. */
  private ended = false;
  private readonly rowBytes: number;

  private constructor(
    private readonly layout: PngLayout,
    private readonly inflater: InflateInto,
  ) {
    this.rowBytes = layout.width * layout.bpp + 1;
  }

  /** Rows of `layout`, or `undefined` where Node's zlib lacks the internals used (callers then use libvips). */
  static open(layout: PngLayout): InflatedRows | undefined {
    const inflater = openInflateInto();
    return inflater && new InflatedRows(layout, inflater);
  }

  /**
   * Row `y` (not released), inflating as far as it; `undefined` when zlib rejected the data or it
   * ended above row `y`. Its bytes stay valid until a row not yet inflated is asked for.
   */
  row(y: number): Uint8Array | undefined {
    if (y < this.keepFrom) throw new Error(`row ${y} was released`);
    const { rowBytes } = this;
    while (this.filled < (y + 1 - this.first) * rowBytes) if (!this.inflateMore()) return undefined;
    const at = (y - this.first) * rowBytes;
    return this.held.subarray(at, at + rowBytes);
  }

  /** Rows above `y` will not be asked for: their room is reused. */
  release(y: number): void {
    if (y > this.keepFrom) this.keepFrom = y;
  }

  /** Free zlib's state; the rows out so far stay readable. */
  close(): void {
    this.inflater.close();
  }

  /** Inflate into the room after the rows kept; false when nothing more comes out. */
  private inflateMore(): boolean {
    const { idat } = this.layout;
    if (this.ended || this.part === idat.length || !this.makeRoom()) return false;
    const input = idat[this.part]!;
    const last = this.part === idat.length - 1;
    const room = this.held.length - this.filled;
    const step = { input, inAt: this.partAt, out: this.held, outAt: this.filled, room, last };
    const left = this.inflater.write(step);
    // zlib rejected the data, or the inflater was closed.
    if (!left) return false;
    const { roomLeft, inputLeft } = left;
    this.filled += room - roomLeft;
    this.partAt = input.length - inputLeft;
    if (inputLeft === 0 && !last) [this.part, this.partAt] = [this.part + 1, 0];
    else if (roomLeft !== 0) this.ended = true; // the zlib stream is complete
    return room !== roomLeft || !this.ended;
  }

  /** Move the rows kept to the front of the buffer; grow it when they fill half of it, up to {@link MAX_BUFFER_BYTES}. */
  private makeRoom(): boolean {
    // Released rows not inflated yet are dropped once they are out.
    const dropRows = Math.min(this.keepFrom - this.first, Math.floor(this.filled / this.rowBytes));
    if (dropRows > 0) {
      const drop = dropRows * this.rowBytes;
      this.held.copyWithin(0, drop, this.filled);
      this.filled -= drop;
      this.first += dropRows;
    }
    if (this.filled * 2 > this.held.length) {
      if (this.held.length * 2 > MAX_BUFFER_BYTES) return false;
      const grown = Buffer.allocUnsafe(this.held.length * 2);
      this.held.copy(grown, 0, 0, this.filled);
      this.held = grown;
    }
    return true;
  }
}

/**
 * Called with each unfiltered row from `firstWanted` down, bytes `[0, n)` valid (the buffer is
 * reused for the row after next: copy what is kept); return false to stop decoding.
 */
export type RowSink = (y: number, row: Uint8Array) => boolean;

/**
 * Inflate and unfilter `layout`'s rows in order, handing each row from `firstWanted` on to
 * `sink`, bytes `[0, n)` of it, until `sink` returns false or the last row. Rows above
 * `firstWanted` are unfiltered only from the nearest one that does not read the row above.
 * False when the data is corrupt (a filter type over 4, a zlib error, too few rows), when more
 * than `maxRowsAbove` rows above `firstWanted` would need unfiltering, or when Node's zlib lacks
 * what {@link InflatedRows} uses.
 */
export function streamRows(
  layout: PngLayout,
  n: number,
  firstWanted: number,
  sink: RowSink,
  maxRowsAbove = Infinity,
): boolean {
  const rows = InflatedRows.open(layout);
  if (!rows) return false;
  try {
    const unfilter = new RowUnfilter(n, layout.bpp);
    // The latest row above the wanted ones that does not read the row above (row 0 reads zeros).
    let restart = 0;
    for (let y = 0; y < layout.height; y++) {
      const line = rows.row(y);
      if (!line || line[0]! > 4) return false;
      if (y < firstWanted) {
        if (!readsRowAbove(line[0]!)) restart = y;
        // Rows more than `maxRowsAbove` above the wanted ones are never unfiltered: a decode that would need them fails.
        rows.release(Math.min(y, Math.max(restart, firstWanted - maxRowsAbove)));
        continue;
      }
      if (y === firstWanted) {
        if (y - restart > maxRowsAbove) return false;
        for (let r = restart; r < y; r++) unfilter.next(rows.row(r)!);
      }
      if (!sink(y, unfilter.next(line))) return true;
      rows.release(y + 1);
    }
    return true;
  } finally {
    rows.close();
  }
}

/** Reverses the filters of consecutive rows, bytes `[0, n)`, keeping the previous row. */
export class RowUnfilter {
  private previous: Uint8Array;
  private current: Uint8Array;

  constructor(
    private readonly n: number,
    /** Bytes per pixel. */
    readonly bpp: number,
  ) {
    // Whole words, so Up adds four bytes at a time; the row above the first is zeros, as the specification says.
    const bytes = Math.ceil(n / 4) * 4;
    this.previous = new Uint8Array(bytes);
    this.current = new Uint8Array(bytes);
  }

  /** Go on from the row `other` unfiltered last, as if this had unfiltered the same rows (same `n`). */
  continueFrom(other: RowUnfilter): void {
    this.current.set(other.current);
  }

  /** The unfiltered bytes of `line` (filter byte first), valid until the row after next. */
  next(line: Uint8Array): Uint8Array {
    const { n, bpp } = this;
    const [cur, prev] = [this.previous, this.current];
    this.previous = prev;
    this.current = cur;
    cur.set(line.subarray(1, 1 + n));
    const filter = line[0]!;
    if (filter === 1) {
      for (let i = bpp; i < n; i++) cur[i] = cur[i]! + cur[i - bpp]!;
    } else if (filter === 2) {
      addBytewise(cur, prev);
    } else if (filter === 3) {
      for (let i = 0; i < bpp; i++) cur[i] = cur[i]! + (prev[i]! >> 1);
      for (let i = bpp; i < n; i++) cur[i] = cur[i]! + ((cur[i - bpp]! + prev[i]!) >> 1);
    } else if (filter === 4) {
      for (let i = 0; i < bpp; i++) cur[i] = cur[i]! + prev[i]!;
      for (let i = bpp; i < n; i++) {
        const a = cur[i - bpp]!;
        const b = prev[i]!;
        const c = prev[i - bpp]!;
        const pa = b > c ? b - c : c - b;
        const pb = a > c ? a - c : c - a;
        const pc = a + b > c + c ? a + b - c - c : c + c - a - b;
        cur[i] = cur[i]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
      }
    }
    return cur;
  }
}

/** `target[i] += source[i]` modulo 256 for every byte, four at a time (both whole words long). */
function addBytewise(target: Uint8Array, source: Uint8Array): void {
  const t = new Uint32Array(target.buffer, target.byteOffset, target.length >> 2);
  const s = new Uint32Array(source.buffer, source.byteOffset, source.length >> 2);
  for (let j = 0; j < t.length; j++) {
    const a = t[j]!;
    const b = s[j]!;
    // Add the low 7 bits of each byte without carries between bytes, then set each top bit by XOR.
    t[j] = ((a & 0x7f7f7f7f) + (b & 0x7f7f7f7f)) ^ ((a ^ b) & 0x80808080);
  }
}

/** Whether `filter` reads the row above (Up, Average, Paeth). */
export function readsRowAbove(filter: number): boolean {
  return filter >= 2;
}

/**
 * At most this many bytes are unfiltered for one rectangle, else libvips decodes it: ~400 rows of a
 * 1179 px RGB screen, where the row decoder and libvips' region decode cost about the same
 * (BENCHMARKS.md section 7, the low-crop figure).
 */
const MAX_UNFILTERED_BYTES = 400 * 1179 * 3;

/**
 * The pixels of `rect` in `png` as RGBA, decoding only the rows down to its bottom edge, or
 * `undefined` when the PNG is not one this module reads (see the module comment) or `rect`
 * does not fit it.
 */
export function decodePngRect(png: Buffer, rect: Rect): Buffer | undefined {
  const layout = pngLayout(png);
  if (!layout) return undefined;
  const { x, y, width: w, height: h } = rect;
  if (x < 0 || y < 0 || w < 1 || h < 1 || x + w > layout.width || y + h > layout.height) return undefined;
  const { bpp } = layout;
  // Own memory at offset 0, so whole pixels can be written as words.
  const out = Buffer.from(new ArrayBuffer(w * h * 4));
  const out32 = new Uint32Array(out.buffer, 0, w * h);
  const bottom = y + h;
  // Unfiltering in JavaScript is ~2x slower than libvips': with a long chain of rows above, libvips wins.
  const maxRowsAbove = Math.max(0, Math.floor(MAX_UNFILTERED_BYTES / ((x + w) * bpp)) - h);
  const ok = streamRows(
    layout,
    (x + w) * bpp,
    y,
    (row, line) => {
      const target = (row - y) * w;
      if (bpp === 4) out.set(line.subarray(x * 4, (x + w) * 4), target * 4);
      else rgbToRgba(line, x * 3, out32, target, w);
      return row + 1 < bottom;
    },
    maxRowsAbove,
  );
  return ok ? out : undefined;
}

/** `count` RGB pixels of `line` from byte `from` into `out` from pixel `at`, opaque, as little-endian RGBA words. */
export function rgbToRgba(line: Uint8Array, from: number, out: Uint32Array, at: number, count: number): void {
  for (let i = 0, s = from; i < count; i++, s += 3) {
    out[at + i] = (line[s]! | (line[s + 1]! << 8) | (line[s + 2]! << 16) | 0xff000000) >>> 0;
  }
}
