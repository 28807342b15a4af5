/* The parts of a Jest / expect-webdriverio matcher that tapshot's matchers read and return. */

/** How failure messages read: Jest's `expect(received).matcher(expected)` hint, or expect-webdriverio's `Expect ... to ...`. */
export type MatcherStyle = "jest" | "wdio";

/** The parts of a Jest / expect-webdriverio matcher context this matcher reads. */
export interface MatcherContext {
  isNot?: boolean;
  currentTestName?: string;
  utils?: { matcherHint?: (name: string, received?: string, expected?: string) => string };
}

/** What a matcher returns to `expect`. */
export interface MatcherResult {
  pass: boolean;
  message: () => string;
}
