/*
 * The one place tapshot uses a Node internal: inflating a zlib stream into a buffer the caller
 * owns. No public Node API does that; Node's own zlib calls hand out a new buffer for every
 * 16-256 KB of output, whose collection cost more than the inflating (docs/design.md section 5).
 *
 * The fallback sits beside it: where a runtime lacks the internals, {@link openInflateInto}
 * answers `undefined` and the row paths (src/core/pixels/png-rows.ts) answer "not read here", so
 * libvips decodes: slower, never wrong. tests/unit/png-rows.test.ts fails on a Node release
 * without them, and .ci/run runs it on every tested line (scripts/node-lines.txt), so that is seen.
 */
import { constants, createInflate, type Inflate } from "node:zlib";
import { types } from "node:util";

/**
 * Node's zlib handle under an inflate stream (Node's lib/zlib.js): `writeSync` inflates into the
 * buffer and range it is given and leaves the bytes of output room and of input left in the
 * stream's `_writeState`. The stream and `inflateSync` call it with a new buffer for every chunk
 * of output; called directly, one buffer serves a whole decode. Node keeps these for the npm
 * packages that use them, and Bun provides them too.
 */
interface ZlibHandle {
  writeSync(
    flush: number,
    input: Uint8Array,
    inAt: number,
    inLength: number,
    out: Uint8Array,
    outAt: number,
    outLength: number,
  ): void;
}

/** An inflate stream's handle and write state, or `undefined` where Node's zlib has no such internals. */
export function zlibInternals(stream: object): { handle: ZlibHandle; state: Uint32Array } | undefined {
  const { _handle: handle, _writeState: state } = stream as { _handle?: Partial<ZlibHandle>; _writeState?: unknown };
  // Not `instanceof`: under a test runner's VM context (Jest's) Node's arrays come from another realm.
  if (typeof handle?.writeSync !== "function" || !types.isUint32Array(state) || state.length < 2) return undefined;
  return { handle: handle as ZlibHandle, state };
}

/** One write of {@link InflateInto}: input from `inAt` on, output into `out` from `outAt`, at most `room` bytes. */
export interface InflateWrite {
  input: Uint8Array;
  inAt: number;
  out: Uint8Array;
  outAt: number;
  room: number;
  /** The last input: finish the stream. */
  last: boolean;
}

/** A zlib inflater that writes into the caller's buffer. */
export interface InflateInto {
  /**
   * Inflate as much as fits; the bytes of room and of input left afterwards, or `undefined` when
   * zlib rejected the data or the inflater was closed (nothing may be written after that).
   */
  write(step: InflateWrite): { roomLeft: number; inputLeft: number } | undefined;
  /** Free zlib's state. */
  close(): void;
}

/** An inflater into the caller's buffers, or `undefined` where this runtime lacks the internals (use libvips). */
export function openInflateInto(): InflateInto | undefined {
  // Its own output buffer goes unused: the smallest zlib allows.
  const stream: Inflate = createInflate({ chunkSize: constants.Z_MIN_CHUNK });
  // zlib's error is read from `destroyed`; Node also emits it as an event.
  stream.on("error", () => {});
  const zlib = zlibInternals(stream);
  if (!zlib) {
    stream.close();
    return undefined;
  }
  return {
    write({ input, inAt, out, outAt, room, last }) {
      // Writing to a closed handle aborts the process: Node destroys the stream on zlib's error and on close().
      if (stream.destroyed) return undefined;
      const flush = last ? constants.Z_FINISH : constants.Z_NO_FLUSH;
      zlib.handle.writeSync(flush, input, inAt, input.length - inAt, out, outAt, room);
      if (stream.destroyed) return undefined;
      const [roomLeft, inputLeft] = zlib.state;
      return { roomLeft: roomLeft!, inputLeft: inputLeft! };
    },
    close() {
      stream.close();
    },
  };
}
