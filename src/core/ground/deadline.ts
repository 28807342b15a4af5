/** A call's time budget and its cancellation, shared by every wait inside the call. */
import { AbortedError, TapshotError, TimeoutError } from "./errors.js";

/** Resolve after `ms`, or reject with {@link AbortedError} as soon as `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal));
    const timer = setTimeout(done, ms);
    function done() {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }
    function onAbort() {
      clearTimeout(timer);
      reject(abortError(signal!));
    }
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * How long after an abort {@link untilAborted} still takes `work`'s own error: a provider that
 * honours the signal rejects within a few event-loop turns with an error naming itself, its model
 * and the status that kept failing, which says more than the bare deadline.
 */
export const ABORT_GRACE_MS = 25;

/**
 * Settle with `work`, or reject once `signal` aborts: with `work`'s own error when it rejects within
 * {@link ABORT_GRACE_MS} of the abort and is a tapshot error, else with the abort reason. A promise that ignores the
 * signal (a runner's own channel, a hung SDK) cannot outlive the deadline by more than the grace,
 * and a value that arrives after the abort is never used.
 */
export function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.reject(abortError(signal));
  }
  return new Promise<T>((resolve, reject) => {
    let grace: NodeJS.Timeout | undefined;
    const onAbort = () => {
      grace = setTimeout(() => reject(abortError(signal)), ABORT_GRACE_MS);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener("abort", onAbort);
        if (grace !== undefined || signal.aborted) {
          clearTimeout(grace);
          reject(abortError(signal));
        } else resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        clearTimeout(grace);
        // After the abort only tapshot's own errors say more than the deadline (an SDK's AbortError does not).
        if (signal.aborted && !(error instanceof TapshotError)) reject(abortError(signal));
        else reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function abortError(signal: AbortSignal): Error {
  if (signal.reason instanceof TimeoutError || signal.reason instanceof AbortedError) return signal.reason;
  return new AbortedError("The call was aborted by its signal.", { cause: signal.reason });
}

/**
 * A signal that aborts with `parent`'s own reason, or after `ms` with `timeout()`; `dispose()` clears the
 * timer and the listener on `parent`. Unlike `AbortSignal.any`, which keeps a listener on each source
 * until the combined signal is collected, nothing stays on `parent` after `dispose()`, however many
 * limits a long call sets on its deadline (an act of many steps).
 */
export function limitedSignal(
  parent: AbortSignal | undefined,
  ms: number,
  timeout: () => Error,
): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(timeout()), ms);
  const onParentAbort = () => controller.abort(parent!.reason);
  if (parent?.aborted) onParentAbort();
  else parent?.addEventListener("abort", onParentAbort, { once: true });
  return {
    signal: controller.signal,
    dispose() {
      clearTimeout(timer);
      parent?.removeEventListener("abort", onParentAbort);
    },
  };
}

/**
 * How a call divides the budget it has left (docs/design.md section 8): the named shares are
 * the only places a flow waits less than the whole deadline, so the model is never starved.
 */
export const BUDGET_SPLIT = {
  /** A replay or comparison that may heal waits this share for a match, keeping the rest for the model. */
  matchBeforeHeal: 1 / 2,
  /** Waiting for the screen to settle before a model looks at it. */
  settleBeforeModel: 1 / 3,
} as const;

/**
 * What a replay or comparison that cannot heal keeps of what is left to count and draw its failure
 * (a full pixel count and diff image of a large screen take about a second): a tenth, at least
 * 1.5 s, at most half. So a screen that keeps changing fails by its timeout, with its diff.
 */
export function failureReserve(remaining: number): number {
  return Math.min(remaining / 2, Math.max(remaining / 10, 1_500));
}

/** A named share of the remaining budget. */
export type BudgetShare = keyof typeof BUDGET_SPLIT;

/** The deadline of one call: an end time and a signal that aborts at it or when the caller aborts. */
export class Deadline {
  readonly end: number;
  readonly signal: AbortSignal;
  private readonly timer: NodeJS.Timeout;
  private readonly callerSignal: AbortSignal | undefined;
  private readonly onCallerAbort: () => void;
  /**
   * Set when the timer fired. Node's timers run on the monotonic clock, so one may fire a millisecond
   * before `Date.now()` reaches {@link end}: the call is past its deadline all the same.
   */
  private timedOut = false;

  constructor(
    readonly timeoutMs: number,
    what: string,
    callerSignal?: AbortSignal,
  ) {
    this.end = Date.now() + timeoutMs;
    const controller = new AbortController();
    this.timer = setTimeout(() => {
      this.timedOut = true;
      controller.abort(new TimeoutError(`${what} did not finish within its ${timeoutMs} ms timeout.`));
    }, timeoutMs);
    this.timer.unref?.();
    this.callerSignal = callerSignal;
    this.onCallerAbort = () =>
      controller.abort(new AbortedError(`${what} was aborted by its signal.`, { cause: callerSignal?.reason }));
    if (callerSignal?.aborted) this.onCallerAbort();
    else callerSignal?.addEventListener("abort", this.onCallerAbort, { once: true });
    this.signal = controller.signal;
  }

  /** Milliseconds left, never negative. */
  remaining(): number {
    return this.timedOut ? 0 : Math.max(0, this.end - Date.now());
  }

  /** The time at which `share` of what is left now will have passed. */
  after(share: BudgetShare): number {
    return Date.now() + this.remaining() * BUDGET_SPLIT[share];
  }

  expired(): boolean {
    return this.timedOut || Date.now() >= this.end;
  }

  /** Throw the abort reason when the call was aborted or timed out. */
  throwIfAborted(): void {
    if (this.signal.aborted) throw abortError(this.signal);
  }

  /** Sleep at most until the deadline. */
  sleep(ms: number): Promise<void> {
    return sleep(Math.min(ms, this.remaining()), this.signal);
  }

  /** Stop the timer and stop listening to the caller's signal (a runner may reuse one signal for many calls). */
  dispose(): void {
    clearTimeout(this.timer);
    this.callerSignal?.removeEventListener("abort", this.onCallerAbort);
  }
}
