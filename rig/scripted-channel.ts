/**
 * An AI channel double for tests and benchmarks. It is not a model and says so: every answer
 * names `test-double:scripted` as its model, so any record it produces is marked.
 * Each kind's answer is scripted as a function of the request.
 */
import type { AiAnswer, AiChannel, AiKind, AiRequest } from "tapshot/runner";

/** The request of one kind. */
export type AiRequestOf<K extends AiKind> = Extract<AiRequest, { kind: K }>;

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
