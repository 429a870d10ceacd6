/** The `reach` exit codes: one table, so scripts and docs can rely on them. */
export const EXIT = {
  /** The command did what was asked. */
  ok: 0,
  /** An API answered with an error, or could not be reached (printed as `code: message`). */
  error: 1,
  /** The command line was wrong; nothing was called. */
  usage: 2,
  /** A followed run ended `failed` or `aborted`. */
  runFailed: 3,
  /** `reach verify`: a proposition of the seed does not hold on the live system. */
  verifyFailed: 4,
} as const;

/** A mistake on the command line: printed with the usage and a suggestion, exit 2, no API call made. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  /**
   * @param usage the usage line of the command concerned (null: the whole CLI)
   * @param hint e.g. `did you mean "agents"?`
   */
  constructor(
    message: string,
    readonly usage: string | null = null,
    readonly hint: string | null = null,
  ) {
    super(message);
  }
}

/** True for a {@link UsageError} (told apart by name, not instanceof, so copies across bundles agree). */
export const isUsageError = (error: unknown): error is UsageError =>
  error instanceof Error && error.name === 'UsageError';
