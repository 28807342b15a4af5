/**
 * `toMatchAiScreenshot`: one matcher for expect-webdriverio (WDIO's `expect`) and Jest/Vitest's
 * `expect.extend`. It runs the session's `aiMatchScreenshot` command (added by the service or by
 * `addAiCommands`), on every instance of a multiremote browser, and reports a tapshot failure as a
 * failed expectation in the runner's own message style.
 */
import { InputError, TapshotError } from "../core/ground/errors.js";
import type { ScreenshotOptions, ScreenshotResult } from "../core/engine/options.js";
import { printable } from "../core/ground/printable.js";
import { defaultBaselineName, runningTestTitle } from "./test-title.js";
import { toSatisfyAi } from "./to-satisfy-ai.js";

import type { MatcherContext, MatcherResult, MatcherStyle } from "./matcher-types.js";

export type { MatcherContext, MatcherResult, MatcherStyle } from "./matcher-types.js";

type Session = WebdriverIO.Browser;

interface Subject {
  label: string;
  session: Session;
}

function subjectsOf(received: unknown): Subject[] {
  const value = received as Partial<WebdriverIO.MultiRemoteBrowser> | null;
  if (value && Array.isArray(value.instances) && typeof value.getInstance === "function") {
    return value.instances.map((name) => ({ label: name, session: value.getInstance!(name) }));
  }
  return [{ label: "", session: received as Session }];
}

function checkSession(subject: Subject): void {
  if (typeof (subject.session as Partial<Session> | null)?.aiMatchScreenshot === "function") return;
  throw new InputError(
    "expect(...).toMatchAiScreenshot needs a WebdriverIO browser with tapshot's commands, got " +
      `${subject.session === null ? "null" : typeof subject.session}${subject.label ? ` (${subject.label})` : ""} ` +
      "without them. In the WDIO testrunner add [TapshotService, {...}] from tapshot/wdio to services in " +
      "wdio.conf.ts; with remote(), call addAiCommands(browser) from tapshot/wdio first.",
  );
}

/** Split `(name?, prompt, options?)`. */
function argumentsOf(args: unknown[]): { name: string | undefined; prompt: unknown; options: unknown } {
  if (typeof args[1] === "string") return { name: args[0] as string, prompt: args[1], options: args[2] };
  return { name: undefined, prompt: args[0], options: args[1] };
}

function failureMessage(style: MatcherStyle, context: MatcherContext, name: string, failures: string[]): string {
  const body = failures.join("\n\n");
  if (style === "wdio") return `Expect browser to match AI screenshot "${name}"\n\n${body}`;
  const hint =
    context.utils?.matcherHint?.(".toMatchAiScreenshot", "driver", JSON.stringify(name)) ??
    `expect(driver).toMatchAiScreenshot(${JSON.stringify(name)})`;
  return `${hint}\n\n${body}`;
}

/**
 * The matchers object for `expect.extend`: `toMatchAiScreenshot` and `toSatisfyAi`. The WDIO service extends WDIO's `expect` with style
 * `wdio`; for Jest or Vitest: `expect.extend(aiMatchers())`.
 */
export function aiMatchers(options: { style?: MatcherStyle } = {}) {
  const style = options.style ?? "jest";
  return {
    toSatisfyAi: toSatisfyAi(style),
    async toMatchAiScreenshot(this: MatcherContext, received: unknown, ...args: unknown[]): Promise<MatcherResult> {
      if (this.isNot) {
        throw new InputError(
          "toMatchAiScreenshot has no .not: a baseline records what should be on the screen. To check that " +
            "something is absent, describe the screen without it in the prompt.",
        );
      }
      const parsed = argumentsOf(args);
      const name = parsed.name ?? defaultBaselineName(this.currentTestName ?? runningTestTitle());
      const subjects = subjectsOf(received);
      subjects.forEach(checkSession);
      const failures: string[] = [];
      const results: ScreenshotResult[] = [];
      for (const { label, session } of subjects) {
        try {
          results.push(
            await session.aiMatchScreenshot(name, parsed.prompt as string, parsed.options as ScreenshotOptions),
          );
        } catch (error) {
          if (!(error instanceof TapshotError)) throw error;
          const text = `${label ? `${label}: ` : ""}${error.name} (${error.code}): ${error.message}`;
          // Each line made printable on its own: the message's line breaks (its artifact list) stay.
          failures.push(text.split("\n").map(printable).join("\n"));
        }
      }
      const pass = failures.length === 0;
      return {
        pass,
        message: () =>
          pass
            ? `The screen matched the baseline "${name}" (${results.map((r) => r.outcome).join(", ")}).`
            : failureMessage(style, this, name, failures),
      };
    },
  };
}
