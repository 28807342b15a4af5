/** Exit codes of the tapshot command, stable across versions so scripts can rely on them. */
export const EXIT = {
  /** The command did what it was asked. */
  ok: 0,
  /** The command ran but failed, or `show` found nothing. */
  failure: 1,
  /** The command line was wrong: unknown command or option, missing or invalid argument, missing directory. */
  usage: 2,
} as const;

/** A wrong command line or argument: exits with {@link EXIT.usage}. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** The command ran and failed (or found nothing): exits with {@link EXIT.failure}. */
export class CommandFailure extends Error {
  override name = "CommandFailure";
}
