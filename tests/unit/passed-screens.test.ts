/** The per-session memory of the last screenshot that passed each comparison (src/core/passed-screens.ts). */
import { passedBefore, rememberPassed } from "../../src/core/passed-screens.js";

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
