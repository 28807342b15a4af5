/**
 * An AI channel double for unit tests. It is not a model and says so: every answer
 * names `test-double:scripted` as its model, so any record it produces is marked.
 * Tests script each kind's answer as a function of the request.
 */
import type { AiAnswer, AiAnswers, AiChannel, AiKind, AiRequest, AiRequestOf } from "../../src/core/contract.js";
import type { FakeDevice } from "./fake-device.js";

export const SCRIPTED_MODEL = "test-double:scripted";

type Script = { [K in AiKind]?: (request: AiRequestOf<K>) => unknown | Promise<unknown> };

export class ScriptedChannel implements AiChannel {
  readonly requests: AiRequest[] = [];
  /** Delay before each answer, to hold a lock open in concurrency tests. */
  delayMs = 0;

  constructor(public script: Script = {}) {}

  count(kind?: AiKind): number {
    return kind ? this.requests.filter((r) => r.kind === kind).length : this.requests.length;
  }

  async request(request: AiRequest, { signal }: { signal: AbortSignal }): Promise<AiAnswer> {
    this.requests.push(request);
    if (this.delayMs) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(resolve, this.delayMs);
        signal.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(signal.reason);
        });
      });
    }
    const answer = (this.script[request.kind] as ((r: AiRequest) => unknown) | undefined)?.(request);
    if (answer === undefined) throw new Error(`ScriptedChannel has no script for "${request.kind}"`);
    return (await answer) as AiAnswer;
  }
}

/** A `locate` script that finds a fake element by the id the prompt names (e.g. "the checkout button" -> `checkout`). */
export function locateOnDevice(device: FakeDevice): (r: AiRequestOf<"locate">) => AiAnswers["locate"] {
  return (request) => {
    const element = device.scene.elements.find((e) => request.prompt.includes(e.id));
    if (!element) return { found: false, reason: `no element named in "${request.prompt}"`, model: SCRIPTED_MODEL };
    const { x, y, width, height } = element;
    return { found: true, box: { x, y, width, height }, reason: `element ${element.id}`, model: SCRIPTED_MODEL };
  };
}
