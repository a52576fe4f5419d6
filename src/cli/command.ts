/** One `brook` sub-command: parses its own arguments, returns the exit code. */
export interface Command {
  readonly name: string;
  /**
   * How long after the first SIGINT/SIGTERM the command may take to stop gracefully before
   * the process exits anyway; null: as long as it needs (the broker flushes its logs).
   */
  readonly gracefulStopMs: number | null;
  run(args: string[], context: CommandContext): Promise<number>;
}

export interface CommandContext {
  /** Aborted by the first SIGINT or SIGTERM: stop, finishing what can be finished quickly. */
  readonly interrupted: AbortSignal;
}

/** What a client command allows itself for closing after an interrupt (the process exits soon after regardless). */
export const INTERRUPTED_CLOSE_TIMEOUT_MS = 2_000;
