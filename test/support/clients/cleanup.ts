/**
 * Cleanup steps for a test, run last-in first-out from `t.after` even when the test failed;
 * each step bounded, failures reported on stderr and never thrown.
 */
import { within } from './run.js';

/**
 * The bound of one step: longer than the longest stop that bounds itself, Apache Kafka's
 * (test/support/kafka: SIGTERM, SIGKILL 20 s later; the first stop on a machine also writes
 * the JVM's class-data archive, over 10 s on a loaded machine). A step cut short goes on
 * behind the test's back, and a Kafka JVM still exiting then keeps the test file alive,
 * which fails it (scripts/test-preload.mjs).
 */
const STEP_BOUND_MS = 30_000;

export class Cleanup {
  private readonly steps: { what: string; step: () => unknown }[] = [];

  add(what: string, step: () => unknown): void {
    this.steps.push({ what, step });
  }

  async run(): Promise<void> {
    while (this.steps.length > 0) {
      const { what, step } = this.steps.pop()!;
      try {
        await within(STEP_BOUND_MS, `cleanup: ${what}`, Promise.resolve().then(step));
      } catch (err) {
        process.stderr.write(`cleanup: ${what} failed: ${(err as Error).message}\n`);
      }
    }
  }
}
