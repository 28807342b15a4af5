/**
 * Which failed calls `tapshot accept --failed` and the review page treat as baselines to accept: only
 * `toMatchScreenshot`'s. A failed tap, find or act is learned again (mode update, autoHeal); a failed
 * toSatisfy is the model's judgment that the statement is false, which no review of a failure changes.
 * Before this rule, every failed entry with a store key but a tap's counted as a baseline, so a failed
 * find, act or toSatisfy was "accepted" against a baseline schema and refused.
 */
import { failuresOf } from "../../src/cli/review/accept-failed.js";
import type { Run, RunEntry } from "../../src/cli/runs.js";

function entry(api: RunEntry["api"], key: string, outcome: RunEntry["outcome"] = "failed"): RunEntry {
  return { api, key, device: "google-pixel-7_14", outcome, prompt: key, at: "2026-12-06T18:00:00.000Z" };
}

const run: Run = {
  id: "run-1",
  dir: "/tmp/run-1",
  unreadableLines: [],
  start: 0,
  end: 1,
  entries: [
    entry("toMatchScreenshot", "screenshots/android/cart/google-pixel-7_14"),
    entry("toMatchScreenshot", "screenshots/android/order/google-pixel-7_14", "matched"),
    entry("tap", "taps/android/google-pixel-7_14/the-checkout-button-1a2b3c4d5e"),
    entry("find", "locators/android/google-pixel-7_14/the-promo-code-field-1a2b3c4d5e"),
    entry("act", "acts/android/sign-in-1a2b3c4d5e/google-pixel-7_14"),
    entry("toSatisfy", "judgments/android/google-pixel-7_14/the-cart-is-empty-1a2b3c4d5e-0123456789ab"),
  ],
};

test("only failed baselines are accepted; failed taps, finds and acts are learned again; toSatisfy is neither", () => {
  const { baselines, taps } = failuresOf([run]);
  expect(baselines.map((b) => b.entry.key)).toEqual(["screenshots/android/cart/google-pixel-7_14"]);
  expect(taps.map((t) => t.api)).toEqual(["tap", "find", "act"]);
});
