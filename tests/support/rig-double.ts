/**
 * One Appium rig and one Gemini wire double per e2e test file: started before the file's tests
 * (the double learns the rig's pages through `knowledge`) and stopped after them.
 */
import { startGeminiDouble, type WireDouble } from "../../rig/model-doubles/index.js";
import { startRig, type Rig } from "../../rig/session.js";
import { resetAi } from "../../src/runner/index.js";
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
