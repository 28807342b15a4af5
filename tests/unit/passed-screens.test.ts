/** The per-session memory of the last screenshot that passed each comparison (src/core/run/passed-screens.ts). */
import { decodedStored, passedBefore, rememberPassed } from "../../src/core/run/passed-screens.js";
import type { RawImage } from "../../src/core/pixels/image-decode.js";

const png = (text: string) => Buffer.from(text);

test("a screenshot with the same bytes passes the same comparison again, with its result", () => {
  const session = {};
  rememberPassed(session, "tap a", png("screen 1"), 0.004);
  expect(passedBefore(session, "tap a", png("screen 1"))).toBe(0.004);
});

test("other bytes, another comparison or another session are not passed", () => {
  const session = {};
  rememberPassed(session, "tap a", png("screen 1"), 0);
  expect(passedBefore(session, "tap a", png("screen 2"))).toBeUndefined();
  expect(passedBefore(session, "tap a", png("screen 1 "))).toBeUndefined();
  expect(passedBefore(session, "tap b", png("screen 1"))).toBeUndefined();
  expect(passedBefore({}, "tap a", png("screen 1"))).toBeUndefined();
});

test("each comparison remembers its own last passed screenshot; a new pass replaces only that one", () => {
  const session = {};
  rememberPassed(session, "tap a", png("screen 1"), 0);
  rememberPassed(session, "baseline b", png("screen 1"), 12);
  rememberPassed(session, "tap c", png("screen 2"), 0);
  expect(passedBefore(session, "tap a", png("screen 1"))).toBe(0);
  expect(passedBefore(session, "baseline b", png("screen 1"))).toBe(12);
  expect(passedBefore(session, "tap c", png("screen 2"))).toBe(0);
  rememberPassed(session, "tap a", png("screen 3"), 0.002);
  expect(passedBefore(session, "tap a", png("screen 1"))).toBeUndefined();
  expect(passedBefore(session, "tap a", png("screen 3"))).toBe(0.002);
});

test("a session forgets the least recently passed comparisons beyond 64", () => {
  const session = {};
  for (let i = 0; i < 65; i++) rememberPassed(session, `tap ${i}`, png(`screen ${i}`), 0);
  expect(passedBefore(session, "tap 0", png("screen 0"))).toBeUndefined();
  expect(passedBefore(session, "tap 1", png("screen 1"))).toBe(0);
  expect(passedBefore(session, "tap 64", png("screen 64"))).toBe(0);
});

describe("decoded stored crops", () => {
  /** A decoder that counts its calls and marks each result with the bytes it read. */
  function countingDecoder() {
    const calls: string[] = [];
    const decode = async (bytes: Buffer): Promise<RawImage> => {
      calls.push(bytes.toString());
      return { data: Buffer.from(bytes), width: bytes.length, height: 1 };
    };
    return { calls, decode };
  }

  test("the same crop bytes are decoded once per session; other bytes or sessions decode their own", async () => {
    const { calls, decode } = countingDecoder();
    const session = {};
    const first = await decodedStored(session, png("crop a"), decode);
    expect(await decodedStored(session, png("crop a"), decode)).toBe(first);
    expect((await decodedStored(session, png("crop b"), decode)).data.toString()).toBe("crop b");
    await decodedStored({}, png("crop a"), decode);
    expect(calls).toEqual(["crop a", "crop b", "crop a"]);
  });

  test("at most eight crops are kept, the least recently used forgotten first", async () => {
    const { calls, decode } = countingDecoder();
    const session = {};
    for (let i = 0; i < 9; i++) await decodedStored(session, png(`crop ${i}`), decode);
    await decodedStored(session, png("crop 8"), decode);
    await decodedStored(session, png("crop 0"), decode);
    expect(calls.filter((c) => c === "crop 0")).toHaveLength(2);
    expect(calls.filter((c) => c === "crop 8")).toHaveLength(1);
  });

  test("a failed decode is not kept: the next call decodes again", async () => {
    const session = {};
    let fail = true;
    const decode = async (bytes: Buffer): Promise<RawImage> => {
      if (fail) throw new Error("corrupt");
      return { data: bytes, width: bytes.length, height: 1 };
    };
    await expect(decodedStored(session, png("crop"), decode)).rejects.toThrow("corrupt");
    fail = false;
    expect((await decodedStored(session, png("crop"), decode)).width).toBe(4);
  });
});
