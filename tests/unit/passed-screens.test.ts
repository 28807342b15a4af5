/** The per-session memory of the last screenshot that passed a comparison (src/core/passed-screens.ts). */
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

test("one screenshot remembers every comparison it passed; a new one replaces it", () => {
  const session = {};
  rememberPassed(session, "tap a", png("screen 1"), 0);
  rememberPassed(session, "baseline b", png("screen 1"), 12);
  expect(passedBefore(session, "tap a", png("screen 1"))).toBe(0);
  expect(passedBefore(session, "baseline b", png("screen 1"))).toBe(12);
  rememberPassed(session, "tap c", png("screen 2"), 0);
  expect(passedBefore(session, "tap a", png("screen 1"))).toBeUndefined();
  expect(passedBefore(session, "tap c", png("screen 2"))).toBe(0);
});
