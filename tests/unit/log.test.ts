import { jest } from "@jest/globals";
import { HEALED_MESSAGE, consoleLogger, formatLogLine, type LogEntry } from "../../src/core/ground/log.js";

const tap: LogEntry = {
  api: "tap",
  prompt: "the checkout button",
  device: "google-pixel-7_14",
  outcome: "learned",
  aiCalls: 2,
  models: ["test-double:scripted", "test-double:scripted"],
  durationMs: 1234.4,
};

describe("formatLogLine", () => {
  test("a tap line names the prompt, device, outcome, AI calls and duration", () => {
    expect(formatLogLine(tap)).toBe(
      'tapshot tap "the checkout button" [google-pixel-7_14] learned, 2 AI calls, 1234 ms',
    );
  });

  test("a screenshot line names the baseline, and one AI call is singular", () => {
    const entry: LogEntry = {
      api: "toMatchScreenshot",
      name: "cart-page",
      device: "iphone-15-pro_17.5",
      outcome: "stored",
      aiCalls: 1,
      models: ["test-double:scripted"],
      durationMs: 10,
    };
    expect(formatLogLine(entry)).toBe('tapshot screenshot "cart-page" [iphone-15-pro_17.5] stored, 1 AI call, 10 ms');
  });

  test("the detail follows a dash", () => {
    const line = formatLogLine({ ...tap, outcome: "healed", detail: `${HEALED_MESSAGE}: taps/x.json` });
    expect(line).toMatch(/healed, 2 AI calls, 1234 ms - tapshot healed a stored value: taps\/x\.json$/);
  });
});

describe("consoleLogger", () => {
  test("writes one line on stderr: warn for outcomes, error for failures without their reason (the thrown error has it)", () => {
    const warn = jest.spyOn(console, "warn").mockImplementation(() => undefined);
    const error = jest.spyOn(console, "error").mockImplementation(() => undefined);
    try {
      consoleLogger({ ...tap, outcome: "replayed", aiCalls: 0 });
      consoleLogger({ ...tap, outcome: "failed", detail: "no match" });
      expect(warn.mock.calls).toEqual([[formatLogLine({ ...tap, outcome: "replayed", aiCalls: 0 })]]);
      expect(error.mock.calls).toEqual([
        [formatLogLine({ ...tap, outcome: "failed", detail: "the thrown error says why" })],
      ]);
      expect(String(error.mock.calls[0]![0])).not.toContain("no match");
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  });
});
