/*
 * Comparing two PNGs row by row as zlib inflates them, with pixelmatch's count
 * (src/core/pixels/pixel-diff.ts), and stopping as soon as the verdict is known: a very different
 * screen is decided near its first differing rows, not after two whole decodes.
 *
 * Two screenshots of one device come from one encoder, which filters equal rows alike. While a
 * row's filtered bytes are equal in both PNGs and every row above was equal, the row is equal:
 * it is neither unfiltered nor looked at pixel by pixel. Only where the images differ are rows
 * unfiltered, from the nearest row above that does not read the row above it (as
 * src/core/pixels/png-rows.ts does for a crop), and compared, with the two rows above and below each
 * differing row that the anti-aliasing detector reads. Rows another encoder filtered otherwise
 * are unfiltered in both and compared, still stopping at the verdict. PNGs of two encoders (an
 * RGB PNG against an RGBA one, or many equal rows filtered otherwise) are left to libvips, which
 * decodes the two in parallel on its threads faster than rows are unfiltered here.
 */
import type { Rect } from "../ground/geometry.js";
import { DiffCounter, type DiffCount, type DiffCounting } from "./pixel-diff.js";
import { InflatedRows, pngLayout, readsRowAbove, rgbToRgba, RowUnfilter, type PngLayout } from "./png-rows.js";

/**
 * Equal rows filtered otherwise that mark two encoders, once they are also half the rows seen.
 * One encoder filters an equal row otherwise only beside a difference (its choice reads the row above).
 */
const MAX_OTHER_FILTERS = 64;
/** How far the anti-aliasing detector reads above and below a pixel, in rows. */
const REACH = 2;

/**
 * Count the differing pixels of two PNGs outside `masks` as {@link DiffCounter} does on their
 * decoded pixels, stopping once more than `stopAbove` differ. `undefined` when either PNG is not
 * one the row decoder reads (src/core/pixels/png-rows.ts), their sizes or colour types differ, or the
 * data is corrupt: the caller then decodes both with libvips, which reads every PNG or says what is wrong.
 */
export function comparePngRows(
  a: Buffer,
  b: Buffer,
  { threshold, masks = [], stopAbove = Infinity }: DiffCounting,
): DiffCount | undefined {
  const la = pngLayout(a);
  const lb = pngLayout(b);
  if (!la || !lb || la.width !== lb.width || la.height !== lb.height || la.bpp !== lb.bpp) return undefined;
  const sa = InflatedRows.open(la);
  const sb = sa && InflatedRows.open(lb);
  try {
    return sa && sb ? new RowPair(la, threshold, masks, stopAbove).run(sa, sb) : undefined;
  } finally {
    sa?.close();
    sb?.close();
  }
}

/** The state of one comparison, advanced row by row as both PNGs' rows are inflated. */
class RowPair {
  private readonly height: number;
  private readonly ua: RowUnfilter;
  private readonly ub: RowUnfilter;
  /** The first row not yet unfiltered in `a`: rows from here to the current one were equal and skipped. */
  private unfilteredTo = 0;
  /** Rows still to unfilter in both images after a differing row, for the detector's reach below it. */
  private forceBoth = 0;
  /** Equal rows that were filtered otherwise in the two PNGs. */
  private otherFilters = 0;
  /** Differing rows whose count waits for the rows below them. */
  private readonly waiting: number[] = [];
  private window?: PixelWindow;
  private y = 0;

  constructor(
    private readonly la: PngLayout,
    private readonly threshold: number,
    private readonly masks: readonly Rect[],
    private readonly stopAbove: number,
  ) {
    this.height = la.height;
    this.ua = new RowUnfilter(la.width * la.bpp, la.bpp);
    this.ub = new RowUnfilter(la.width * la.bpp, la.bpp);
  }

  /** Compare row by row until the verdict is known; `undefined` when a PNG is corrupt or short, or two encoders made them. */
  run(sa: InflatedRows, sb: InflatedRows): DiffCount | undefined {
    for (; this.y < this.height; this.y++) {
      // `a`'s rows from the restart point on are unfiltered when a difference comes; `b` continues from `a`.
      sa.release(Math.min(this.unfilteredTo, this.y - 1));
      sb.release(this.y);
      const fa = sa.row(this.y);
      const fb = sb.row(this.y);
      // A PNG whose data ended early, that zlib rejected or with an unknown filter: libvips says what is wrong.
      if (!fa || !fb || fa[0]! > 4 || fb[0]! > 4) return undefined;
      const sameFiltered = Buffer.compare(fa, fb) === 0;
      if (this.forceBoth === 0 && sameFiltered) {
        this.skip(sa);
        continue;
      }
      if (!this.unfilterBoth(sa, fa, fb, sameFiltered)) return this.result(false);
      // Another encoder: libvips decodes both on its threads faster than rows are unfiltered here.
      if (this.otherFilters > MAX_OTHER_FILTERS && this.otherFilters * 2 > this.y) return undefined;
    }
    return this.result(this.countWaiting(this.height));
  }

  /** Row `y` is equal in both and was skipped; move the restart point down when the row above allows. */
  private skip(rows: InflatedRows): void {
    // A later difference needs the raw rows from two above it: the restart may move to the row above this one.
    const above = this.y - 1;
    if (above > this.unfilteredTo && !readsRowAbove(rows.row(above)![0]!)) this.unfilteredTo = above;
  }

  /** Unfilter row `y` in both images, write and compare it; false once more than `stopAbove` differ. */
  private unfilterBoth(rowsA: InflatedRows, fa: Uint8Array, fb: Uint8Array, sameFiltered: boolean): boolean {
    const { y } = this;
    const window = (this.window ??= new PixelWindow(this.la, this.threshold, this.masks));
    if (this.unfilteredTo < y) {
      // Rows skipped as equal: unfilter them in `a` only, writing the two above this one to both images.
      for (let r = this.unfilteredTo; r < y; r++) {
        const raw = this.ua.next(rowsA.row(r)!);
        if (r >= y - REACH) window.writeBoth(r, raw);
      }
      this.ub.continueFrom(this.ua);
    }
    this.unfilteredTo = y + 1;
    if (window.write(y, this.ua.next(fa), this.ub.next(fb))) {
      if (this.forceBoth > 0) this.forceBoth--;
      if (!sameFiltered) this.otherFilters++;
    } else {
      this.waiting.push(y);
      this.forceBoth = REACH;
    }
    return this.countWaiting(y - REACH + 1);
  }

  /** Count the waiting rows above `below`; false once more than `stopAbove` differ. */
  private countWaiting(below: number): boolean {
    const { waiting } = this;
    while (waiting.length && waiting[0]! < below) {
      if (!this.window!.countRow(waiting.shift()!, this.stopAbove)) return false;
    }
    return true;
  }

  private result(complete: boolean): DiffCount {
    return { diffPixels: this.window?.diffPixels ?? 0, complete };
  }
}

/** Rows of both images kept as RGBA pixels at once: enough for a differing row and the detector's reach. */
const WINDOW_ROWS = 64;

/**
 * A band of rows of both images, as RGBA pixels, moving down as rows are written. Only rows near
 * differences are written; a moved band keeps the rows a waiting count still reads. Its memory
 * is two bands of {@link WINDOW_ROWS} rows for the call, however tall the screen.
 */
class PixelWindow {
  /** Differing pixels counted so far. */
  diffPixels = 0;
  /** The image row the band's first row holds. */
  private top = 0;
  private readonly a: Buffer;
  private readonly b: Buffer;
  private readonly a32: Uint32Array;
  private readonly b32: Uint32Array;
  private counter?: DiffCounter;

  private readonly width: number;
  private readonly height: number;
  private readonly bpp: number;

  constructor(
    { width, height, bpp }: PngLayout,
    private readonly threshold: number,
    private readonly masks: readonly Rect[],
  ) {
    this.width = width;
    this.height = height;
    this.bpp = bpp;
    const pixels = width * Math.min(WINDOW_ROWS, height);
    this.a = Buffer.alloc(pixels * 4);
    this.b = Buffer.alloc(pixels * 4);
    this.a32 = new Uint32Array(this.a.buffer, this.a.byteOffset, pixels);
    this.b32 = new Uint32Array(this.b.buffer, this.b.byteOffset, pixels);
  }

  /** Write row `y` of both images; true when the two rows are equal. */
  write(y: number, rawA: Uint8Array, rawB: Uint8Array): boolean {
    const at = this.rowAt(y);
    this.writeRgba(this.a, this.a32, at, rawA);
    this.writeRgba(this.b, this.b32, at, rawB);
    const start = at * this.width * 4;
    const end = start + this.width * 4;
    return this.a.compare(this.b, start, end, start, end) === 0;
  }

  /** Write row `y`, equal in both images. */
  writeBoth(y: number, raw: Uint8Array): void {
    const at = this.rowAt(y);
    this.writeRgba(this.a, this.a32, at, raw);
    this.a.copy(this.b, at * this.width * 4, at * this.width * 4, (at + 1) * this.width * 4);
  }

  /** Count row `y`'s differing pixels (rows y - 2 to y + 2 written); false once more than `stopAbove` differ. */
  countRow(y: number, stopAbove: number): boolean {
    if (!this.counter) {
      const { width, top } = this;
      const rows = { width, height: Math.min(WINDOW_ROWS, this.height - top) };
      const shifted = this.masks.map((m) => ({ ...m, y: m.y - top }));
      this.counter = new DiffCounter(
        { data: this.a, ...rows },
        { data: this.b, ...rows },
        this.threshold,
        shifted,
        top,
      );
      this.counter.diffPixels = this.diffPixels;
    }
    const ok = this.counter.countRows(y - this.top, y - this.top + 1, stopAbove);
    this.diffPixels = this.counter.diffPixels;
    return ok;
  }

  /** An unfiltered row into row `at` of `target` as RGBA. */
  private writeRgba(target: Buffer, target32: Uint32Array, at: number, raw: Uint8Array): void {
    const { width } = this;
    if (this.bpp === 4) target.set(raw.subarray(0, width * 4), at * width * 4);
    else rgbToRgba(raw, 0, target32, at * width, width);
  }

  /** The band's row for image row `y`, moving the band down when `y` is below it. */
  private rowAt(y: number): number {
    if (y - this.top < WINDOW_ROWS) return y - this.top;
    // Keep the rows a waiting count may read: the row two above `y` waits, and it reads two rows above itself.
    const top = y - 2 * REACH;
    const rowBytes = this.width * 4;
    this.a.copyWithin(0, (top - this.top) * rowBytes, (y - this.top) * rowBytes);
    this.b.copyWithin(0, (top - this.top) * rowBytes, (y - this.top) * rowBytes);
    this.top = top;
    this.counter = undefined;
    return y - top;
  }
}
