/**
 * Cleanup steps for a test, run last-in first-out from `t.after` even when the test failed;
 * each step bounded, failures reported on stderr and never thrown.
 */
import { within } from './run.js';

export class Cleanup {
  private readonly steps: { what: string; step: () => unknown }[] = [];

  add(what: string, step: () => unknown): void {
    this.steps.push({ what, step });
  }

  async run(): Promise<void> {
    while (this.steps.length > 0) {
      const { what, step } = this.steps.pop()!;
      try {
        await within(10_000, `cleanup: ${what}`, Promise.resolve().then(step));
      } catch (err) {
        process.stderr.write(`cleanup: ${what} failed: ${(err as Error).message}\n`);
      }
    }
  }
}
