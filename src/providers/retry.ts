/**
 * Retries with exponential backoff and jitter, inside the call's deadline: the signal
 * ends the wait as well as the request, so a retry never outlives the tapshot call.
 */
import { sleep } from "../core/ground/deadline.js";
import { TapshotError } from "../core/ground/errors.js";
import { abortedError, failureError, type Failure, type ProviderIdentity } from "./failure.js";
import type { RetryOptions } from "./options.js";

/** The wait before retry number `retry` (1-based): doubling from the initial delay, jittered, capped. */
export function backoffMs(retry: number, options: Required<RetryOptions>, retryAfterMs?: number): number {
  const exponential = options.initialDelayMs * 2 ** (retry - 1);
  const jittered = exponential * (0.5 + Math.random() / 2);
  return Math.min(options.maxDelayMs, Math.max(jittered, retryAfterMs ?? 0));
}

/**
 * Run `attempt` until it succeeds, a failure is not retryable, the attempts run out, or
 * the signal aborts. `classify` turns whatever the SDK threw into a {@link Failure}.
 */
export async function withRetries<T>(
  id: ProviderIdentity,
  options: RetryOptions | undefined,
  signal: AbortSignal,
  classify: (error: unknown) => Failure,
  attempt: () => Promise<T>,
): Promise<T> {
  const resolved: Required<RetryOptions> = {
    attempts: Math.max(1, options?.attempts ?? 4),
    initialDelayMs: options?.initialDelayMs ?? 500,
    maxDelayMs: options?.maxDelayMs ?? 8000,
  };
  let last: Failure | undefined;
  for (let n = 1; ; n++) {
    if (signal.aborted) throw abortedError(id, signal, last, n - 1);
    try {
      return await attempt();
    } catch (error) {
      if (signal.aborted) throw abortedError(id, signal, last, n);
      // Refusals and malformed answers are already tapshot errors, and retrying will not change them.
      if (error instanceof TapshotError) throw error;
      const failure = classify(error);
      if (failure.aborted) throw abortedError(id, signal, last, n);
      last = failure;
      if (!failure.retryable || n >= resolved.attempts) throw failureError(id, failure, n);
      try {
        await sleep(backoffMs(n, resolved, failure.retryAfterMs), signal);
      } catch {
        throw abortedError(id, signal, last, n);
      }
    }
  }
}
