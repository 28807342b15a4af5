/*
 * Failure images and heals in `@wdio/allure-reporter`, when it is installed and used: each artifact
 * (expected, actual, diff, composite) becomes an attachment of the running test, and each heal a
 * step with Allure's `broken` status, its warning colour, so it is reviewed rather than hidden.
 */
import type { ArtifactReporter } from "../core/ground/artifacts.js";
import { HEALED_MESSAGE } from "../core/ground/log.js";
import type { CommandResult } from "./commands.js";

/** The two calls of `@wdio/allure-reporter`'s runtime API that tapshot uses. */
export interface AllureApi {
  addAttachment(name: string, content: Buffer, type: string): unknown;
  addStep(title: string, attachment?: { name?: string; content: string; type?: string }, status?: string): unknown;
}

/** `@wdio/allure-reporter`'s API, or `undefined` when it is not installed. */
export async function loadAllure(): Promise<AllureApi | undefined> {
  try {
    const loaded = (await import("@wdio/allure-reporter")) as unknown as { default?: AllureApi } & AllureApi;
    const api = typeof loaded.addAttachment === "function" ? loaded : loaded.default;
    return typeof api?.addAttachment === "function" ? api : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a WDIO `reporters` list uses the Allure reporter (by name or as the reporter class). */
export function usesAllure(reporters: unknown): boolean {
  if (!Array.isArray(reporters)) return false;
  return reporters.some((entry) => {
    const reporter: unknown = Array.isArray(entry) ? entry[0] : entry;
    const name = typeof reporter === "string" ? reporter : (reporter as { name?: string } | null)?.name;
    return typeof name === "string" && /allure/i.test(name);
  });
}

/**
 * An artifact reporter that attaches each image to the running Allure test. It names no place: the
 * run folder's copy (`tapshot-results/<run>/`, kept whatever the reporter) is what the error names.
 */
export function allureArtifactReporter(allure: AllureApi): ArtifactReporter {
  return async (artifact) => {
    await allure.addAttachment(`tapshot ${artifact.role}: ${artifact.name}`, artifact.data, artifact.mimeType);
  };
}

/** Report a healed command as a warning step. */
export async function reportHeal(allure: AllureApi, done: CommandResult): Promise<void> {
  if (done.result.outcome !== "healed") return;
  const verb = done.api === "toMatchScreenshot" ? "screenshot" : done.api === "toSatisfy" ? "judgment" : done.api;
  const what = `${verb} "${done.subject}"`;
  await allure.addStep(
    `${HEALED_MESSAGE}: ${what}`,
    {
      name: "what to review",
      type: "text/plain",
      content:
        `The model re-assessed ${what} and the stored value was replaced; the previous value is kept beside it. ` +
        "Review the diff of storage/_ai_/ before merging.",
    },
    "broken",
  );
}
