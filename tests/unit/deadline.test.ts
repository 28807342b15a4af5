import { jest } from "@jest/globals";
import { getEventListeners } from "node:events";
import { Deadline, limitedSignal, sleep, untilAborted } from "../../src/core/ground/deadline.js";
import { AbortedError, TimeoutError } from "../../src/core/ground/errors.js";

describe("sleep", () => {
  test("resolves after the time", async () => {
    await expect(sleep(5)).resolves.toBeUndefined();
  });

  test("rejects with an AbortedError when the signal aborts, and stops listening", async () => {
    const controller = new AbortController();
    const sleeping = sleep(60_000, controller.signal);
    controller.abort(new Error("stop"));
    const error = await sleeping.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AbortedError);
    expect((error as AbortedError).cause).toEqual(new Error("stop"));
  });

  test("rejects at once on an aborted signal", async () => {
    await expect(sleep(60_000, AbortSignal.abort())).rejects.toThrow(AbortedError);
  });

  test("passes a TimeoutError reason through", async () => {
    const controller = new AbortController();
    controller.abort(new TimeoutError("out of time"));
    await expect(sleep(10, controller.signal)).rejects.toThrow(new TimeoutError("out of time"));
  });

  test("removes its abort listener when it resolves", async () => {
    const controller = new AbortController();
    await sleep(1, controller.signal);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });
});

describe("Deadline", () => {
  test("its signal aborts with a TimeoutError naming the call when the time is up", async () => {
    const deadline = new Deadline(30, 'tap "the button"');
    await new Promise<void>((resolve) => deadline.signal.addEventListener("abort", () => resolve()));
    expect(deadline.signal.reason).toBeInstanceOf(TimeoutError);
    expect((deadline.signal.reason as Error).message).toBe('tap "the button" did not finish within its 30 ms timeout.');
    expect(deadline.expired()).toBe(true);
    expect(deadline.remaining()).toBe(0);
    expect(() => deadline.throwIfAborted()).toThrow(TimeoutError);
    deadline.dispose();
  });

  test("the caller's signal aborts it with an AbortedError", () => {
    const controller = new AbortController();
    const deadline = new Deadline(60_000, "screenshot cart", controller.signal);
    expect(deadline.signal.aborted).toBe(false);
    expect(() => deadline.throwIfAborted()).not.toThrow();
    controller.abort("user stop");
    expect(deadline.signal.reason).toBeInstanceOf(AbortedError);
    expect((deadline.signal.reason as Error).message).toBe("screenshot cart was aborted by its signal.");
    expect((deadline.signal.reason as AbortedError).cause).toBe("user stop");
    deadline.dispose();
  });

  test("an already aborted caller signal aborts it at once", () => {
    const deadline = new Deadline(60_000, "x", AbortSignal.abort());
    expect(() => deadline.throwIfAborted()).toThrow(AbortedError);
    deadline.dispose();
  });

  test("remaining counts down from the timeout", () => {
    const deadline = new Deadline(60_000, "x");
    expect(deadline.remaining()).toBeGreaterThan(0);
    expect(deadline.remaining()).toBeLessThanOrEqual(60_000);
    expect(deadline.end - deadline.timeoutMs).toBeLessThanOrEqual(Date.now());
    expect(deadline.expired()).toBe(false);
    deadline.dispose();
  });

  test("sleep never outlasts the deadline: it ends at the deadline, not before and not after", async () => {
    // Jest's clock, so "at the deadline" is exact: the sleep asked for a minute and the deadline is 50 ms away.
    jest.useFakeTimers();
    try {
      const deadline = new Deadline(50, "x");
      let outcome: unknown = "pending";
      void deadline.sleep(60_000).then(
        () => (outcome = "slept"),
        (e: unknown) => (outcome = e),
      );
      await jest.advanceTimersByTimeAsync(49);
      expect(outcome).toBe("pending");
      await jest.advanceTimersByTimeAsync(1);
      // The sleep cut to the deadline and the deadline's abort fire at the same time: either may settle it.
      expect(outcome === "slept" || outcome instanceof TimeoutError).toBe(true);
      deadline.dispose();
    } finally {
      jest.useRealTimers();
    }
  });

  test("dispose stops the timer and stops listening to the caller's signal", async () => {
    const controller = new AbortController();
    const deadline = new Deadline(20, "x", controller.signal);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(1);
    deadline.dispose();
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
    await new Promise((r) => setTimeout(r, 60));
    expect(deadline.signal.aborted).toBe(false);
  });
});

describe("untilAborted", () => {
  test("settles with the work when it ends first, and stops listening", async () => {
    const controller = new AbortController();
    await expect(untilAborted(Promise.resolve(7), controller.signal)).resolves.toBe(7);
    expect(getEventListeners(controller.signal, "abort")).toHaveLength(0);
  });

  test("rejects with the signal's TimeoutError while the work never settles", async () => {
    const controller = new AbortController();
    const racing = untilAborted(new Promise(() => undefined), controller.signal);
    controller.abort(new TimeoutError("out of time"));
    await expect(racing).rejects.toThrow(new TimeoutError("out of time"));
  });

  test("passes the work's own failure through", async () => {
    await expect(untilAborted(Promise.reject(new Error("boom")), new AbortController().signal)).rejects.toThrow("boom");
  });
});

describe("limitedSignal", () => {
  test("leaves no listener on its parent once disposed, however many limits a call sets", () => {
    const parent = new AbortController().signal;
    for (let i = 0; i < 50; i++) {
      const limit = limitedSignal(parent, 5_000, () => new TimeoutError("step"));
      expect(getEventListeners(parent, "abort")).toHaveLength(1);
      limit.dispose();
    }
    expect(getEventListeners(parent, "abort")).toHaveLength(0);
  });

  test("aborts with the parent's own reason, or with its timeout's", async () => {
    const parent = new AbortController();
    const limit = limitedSignal(parent.signal, 5_000, () => new TimeoutError("step"));
    const reason = new TimeoutError("the call's deadline");
    parent.abort(reason);
    expect(limit.signal.reason).toBe(reason);
    limit.dispose();
    const timed = limitedSignal(undefined, 5, () => new TimeoutError("the step took too long"));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(timed.signal.reason).toEqual(new TimeoutError("the step took too long"));
    timed.dispose();
  });
});
