/*
 * `toSatisfyAi`: tapshot's `toSatisfy` (docs/api.md, "Semantic assertions") as a matcher for
 * expect-webdriverio and Jest/Vitest. The received value is a browser (the screen), a WebdriverIO
 * element (awaited or not) or a selector string (on the worker's global `browser`); `.not` runs the
 * negated assertion, which passes only when P(false) reaches the threshold. It runs the session's
 * `aiSatisfy` command (added by the service or by `addAiCommands`), on every instance of a
 * multiremote browser.
 */
import { elementDriver } from "../appium/element-rects.js";
import type { SatisfyOptions, SatisfyResult } from "../core/engine/options.js";
import { InputError, TapshotError } from "../core/ground/errors.js";
import { printable } from "../core/ground/printable.js";
import type { MatcherContext, MatcherResult, MatcherStyle } from "./matcher-types.js";

interface Subject {
  label: string;
  session: WebdriverIO.Browser;
  extra: { element?: object; selector?: string };
}

async function subjectsOf(received: unknown): Promise<Subject[]> {
  if (typeof received === "string") {
    const global = (globalThis as { browser?: WebdriverIO.Browser }).browser;
    if (!global) {
      throw new InputError(
        `expect("${received}").toSatisfyAi needs the WDIO testrunner's global browser; outside it, pass an element.`,
      );
    }
    return fanOut(global, { selector: received });
  }
  const value = received && typeof (received as PromiseLike<unknown>).then === "function" ? await received : received;
  const driver = elementDriver(value);
  if (driver) return fanOut(driver as WebdriverIO.Browser, { element: value as object });
  return fanOut(value as WebdriverIO.Browser, {});
}

function fanOut(session: WebdriverIO.Browser, extra: Subject["extra"]): Subject[] {
  const value = session as unknown as Partial<WebdriverIO.MultiRemoteBrowser> | null;
  if (value && Array.isArray(value.instances) && typeof value.getInstance === "function") {
    return value.instances.map((name) => ({ label: name, session: value.getInstance!(name), extra }));
  }
  const subject = { label: "", session, extra };
  if (typeof (session as Partial<WebdriverIO.Browser> | null)?.aiSatisfy !== "function") {
    throw new InputError(
      "expect(...).toSatisfyAi needs a WebdriverIO browser (or its element) with tapshot's commands. In the WDIO " +
        "testrunner add [TapshotService, {...}] from tapshot/wdio to services in wdio.conf.ts; with remote(), call " +
        "addAiCommands(browser) from tapshot/wdio first.",
    );
  }
  return [subject];
}

function failureMessage(style: MatcherStyle, context: MatcherContext, statement: string, failures: string[]): string {
  const body = failures.join("\n\n");
  const not = context.isNot ? "not " : "";
  if (style === "wdio") return `Expect ${not}to satisfy ${JSON.stringify(statement)}\n\n${body}`;
  const hint =
    context.utils?.matcherHint?.(`${context.isNot ? ".not" : ""}.toSatisfyAi`, "received", JSON.stringify(statement)) ??
    `expect(received).${not ? "not." : ""}toSatisfyAi(${JSON.stringify(statement)})`;
  return `${hint}\n\n${body}`;
}

/** The `toSatisfyAi` matcher of a matchers object in `style`. */
export function toSatisfyAi(style: MatcherStyle) {
  return async function (
    this: MatcherContext,
    received: unknown,
    statement: string,
    options?: SatisfyOptions,
  ): Promise<MatcherResult> {
    const not = !!this.isNot;
    const failures: string[] = [];
    const results: SatisfyResult[] = [];
    for (const { label, session, extra } of await subjectsOf(received)) {
      try {
        results.push(await session.aiSatisfy(statement, { ...options, ...extra, not }));
      } catch (error) {
        if (!(error instanceof TapshotError)) throw error;
        const text = `${label ? `${label}: ` : ""}${error.name} (${error.code}): ${error.message}`;
        failures.push(text.split("\n").map(printable).join("\n"));
      }
    }
    const held = failures.length === 0;
    const message = () =>
      held
        ? `${JSON.stringify(statement)} was ${not ? "judged false" : "judged true"} ` +
          `(P(true) ${results.map((r) => r.probability.toFixed(2)).join(", ")}).`
        : failureMessage(style, this, statement, failures);
    // Under .not the runner inverts `pass`: the negated assertion that held is reported as pass=false.
    return { pass: not ? !held : held, message };
  };
}
