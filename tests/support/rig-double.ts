/**
 * One Appium rig and one Gemini wire double per e2e test file: started before the file's tests
 * (the double learns the rig's pages through `knowledge`) and stopped after them.
 */
import { join } from "node:path";
import { startGeminiDouble, type WireDouble } from "../../rig/model-doubles/index.js";
import { rigTarget, startRig, type Rig } from "../../rig/session.js";
import { gemini } from "../../src/providers/index.js";
import { configureAi, resetAi, type AiConfig } from "../../src/runner/index.js";
import { domKnowledge, type DomKnowledge } from "./dom-knowledge.js";

/** What {@link useRigAndDouble} started. */
export interface RigAndDouble {
  rig: Rig;
  double: WireDouble;
  knowledge: DomKnowledge;
}

/**
 * Register beforeAll/afterAll hooks that start the rig and a Gemini double accepting `apiKey`, and
 * hand them to `started` (to keep in the file's own variables) once they are up.
 */
export function useRigAndDouble(apiKey: string, started: (parts: RigAndDouble) => void): void {
  let parts: Partial<RigAndDouble> = {};
  beforeAll(async () => {
    const knowledge = domKnowledge();
    const [rig, double] = await Promise.all([startRig(), startGeminiDouble(knowledge, { apiKey })]);
    parts = { rig, double, knowledge };
    started({ rig, double, knowledge });
  }, 180_000);
  afterAll(async () => {
    resetAi();
    await Promise.allSettled([parts.rig?.stop(), parts.double?.close()]);
  }, 60_000);
}

/**
 * configureAi for a run on the rig: the gemini() provider over HTTP to `double`, each session's own
 * device as the target, mode "auto" and the run's results under `<storageDir>/results` unless
 * `options` says otherwise.
 */
export function configureRig(
  double: WireDouble,
  apiKey: string,
  options: Omit<AiConfig, "channel" | "target"> & { storageDir: string },
): void {
  configureAi({
    channel: gemini({ apiKey, baseUrl: double.baseUrl }),
    target: rigTarget,
    resultsDir: join(options.storageDir, "results"),
    mode: "auto",
    ...options,
  });
}
