/**
 * A duty cycle for background work on a thread of its own (the log cleaner's worker): after
 * `workMs` of work the thread sleeps `restMs`, so it holds a core at most
 * workMs / (workMs + restMs) of the time.
 *
 * Why the cleaner needs one on top of its low priority (nice 10): the event loop and the
 * clients' threads wake up about once a millisecond at 1,000 commits/s, and a woken thread
 * waits for a core when both are busy, one of them with the cleaner; the scheduler lets the
 * running thread finish a time slice of a few milliseconds first, whatever its nice value. A
 * thread that is asleep most of the time leaves a core free when they wake (the commit tail,
 * BENCHMARKS.md scenario 7b). Kafka's cleaner has a bytes-per-second throttle for the same
 * reason (log.cleaner.io.max.bytes.per.second), unlimited by default, on machines with more cores.
 *
 * `now` and `sleep` are injected so that tests run it on a manual clock.
 */
export interface DutyCycleOptions {
  readonly workMs: number;
  readonly restMs: number;
  readonly now: () => number;
  /** Blocks the thread for `ms` (or less: an abort may cut the rest short). */
  readonly sleep: (ms: number) => void;
}

export class DutyCycle {
  private sliceStarted: number;

  constructor(private readonly options: DutyCycleOptions) {
    this.sliceStarted = options.now();
  }

  /** Work starts after idle time (which counts as rest): a fresh slice. */
  begin(): void {
    this.sliceStarted = this.options.now();
  }

  /** Called between units of work: rests once the current slice has been used up. */
  pace(): void {
    if (this.options.now() - this.sliceStarted < this.options.workMs) return;
    this.options.sleep(this.options.restMs);
    this.sliceStarted = this.options.now();
  }
}
