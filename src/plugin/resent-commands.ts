/*
 * A failed tapshot command sent again by the client is answered with the same failure, without
 * running it again (docs/plugin.md "Errors"). WebdriverIO 9 re-sends every request that failed
 * (`connectionRetryCount`, 3 by default), any W3C error but a few included, waiting 0, 0.5, 1, 2,
 * 4 s... between tries (the `_request` method of the `webdriver` package's request class, 9.33);
 * run again, a failing `tapshot: tap` would locate, tap and ask the model four times.
 *
 * What counts as the same command: the same session, the same script and the same arguments
 * (compared as JSON with sorted keys), arriving within {@link RESENT_WINDOW_MS} of the failure's
 * first answer, with no other tapshot command of that session in between. Appium runs one command
 * of a session at a time, so a copy sent while the first still runs waits, and arrives after it.
 */

/** How long a failure is remembered after it was first answered, in ms. */
export const RESENT_WINDOW_MS = 5000;

/** The last failed tapshot command of a session. */
interface Failed {
  key: string;
  error: unknown;
  answeredAt: number;
}

/** The key two copies of one command share: its script and arguments, as JSON with sorted keys. */
export function commandKey(script: string, args: unknown): string {
  return JSON.stringify([script, args], (_, value: unknown) =>
    value && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}

/** Options of {@link ResentCommands}: the clock (tests move it instead of waiting). */
export interface ResentCommandsOptions {
  now?: () => number;
}

/** The last failure of each session, to answer a re-sent copy of its command. */
export class ResentCommands {
  private readonly failed = new Map<string, Failed>();
  private readonly now: () => number;

  constructor(options: ResentCommandsOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Run `work` for a session's command, or throw the failure it had when the same command
   * failed within the window; remember a new failure, and forget the old one otherwise.
   */
  async run<T>(sessionId: string, key: string, work: () => Promise<T>): Promise<T> {
    const last = this.failed.get(sessionId);
    if (last && last.key === key && this.now() - last.answeredAt <= RESENT_WINDOW_MS) throw last.error;
    this.failed.delete(sessionId);
    try {
      return await work();
    } catch (error) {
      this.failed.set(sessionId, { key, error, answeredAt: this.now() });
      throw error;
    }
  }

  /** Forget a session (deleted or ended). */
  forget(sessionId: string): void {
    this.failed.delete(sessionId);
  }
}
