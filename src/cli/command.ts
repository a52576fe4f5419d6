/** One `brook` sub-command: parses its own arguments, returns the exit code. */
export interface Command {
  readonly name: string;
  readonly summary: string;
  run(args: string[]): Promise<number>;
}
