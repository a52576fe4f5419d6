/**
 * Time as an injectable dependency. Code with timing logic (heartbeats, session and poll
 * timeouts, auto-commit, linger; on the broker the coordinators' timers, transaction
 * timeouts and the periodic work) takes a `Scheduler`, which reads the time and schedules
 * and cancels timers, instead of calling Date.now and setTimeout, so tests drive it with a
 * ManualScheduler and advance time instead of sleeping.
 */

export interface Clock {
  /** Milliseconds since the epoch (or any fixed origin for manual clocks). */
  nowMs(): number;
}

export interface TimerHandle {
  /** Cancels the timer; harmless when it already fired. */
  cancel(): void;
}

export interface Scheduler extends Clock {
  /** Runs `fn` once after `delayMs` (clamped to >= 0). */
  schedule(delayMs: number, fn: () => void): TimerHandle;
  /** Resolves after `delayMs`, or rejects with the signal's reason when aborted first. */
  sleep(delayMs: number, signal?: AbortSignal): Promise<void>;
}

export function isScheduler(clock: Clock): clock is Scheduler {
  return typeof (clock as Partial<Scheduler>).schedule === 'function' && typeof (clock as Partial<Scheduler>).sleep === 'function';
}

/** setTimeout's largest delay (about 24.8 days); longer waits are re-armed. */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

export interface SystemSchedulerOptions {
  /**
   * Timers do not keep the process alive (the broker's: a pending session expiry or
   * retention check must not hold a process that has nothing else to do).
   */
  readonly unref?: boolean;
  /** Where the time comes from (default Date.now); the timers wait real milliseconds. */
  readonly clock?: Clock;
}

class NodeTimer implements TimerHandle {
  constructor(private readonly timer: NodeJS.Timeout) {}

  cancel(): void {
    clearTimeout(this.timer);
  }
}

/** A scheduler on Node's timers. */
export function createSystemScheduler(options: SystemSchedulerOptions = {}): Scheduler {
  const unref = options.unref ?? false;
  const clock = options.clock;
  const scheduler: Scheduler = {
    nowMs: clock === undefined ? () => Date.now() : () => clock.nowMs(),
    schedule(delayMs, fn) {
      if (delayMs <= MAX_TIMER_DELAY_MS) {
        // The common case, one handle and no closure: per-heartbeat timers are a hot path.
        const timer = setTimeout(fn, Math.max(0, delayMs));
        if (unref) timer.unref();
        return new NodeTimer(timer);
      }
      const due = Date.now() + delayMs;
      let timer: NodeJS.Timeout;
      const arm = (): void => {
        const remaining = due - Date.now();
        timer = setTimeout(remaining > MAX_TIMER_DELAY_MS ? arm : fn, Math.min(Math.max(0, remaining), MAX_TIMER_DELAY_MS));
        if (unref) timer.unref();
      };
      arm();
      return { cancel: () => clearTimeout(timer) };
    },
    sleep: (delayMs, signal) => sleepWith(scheduler, delayMs, signal),
  };
  return scheduler;
}

/** The client's default: timers on Node's clock that keep the process alive while pending. */
export const systemScheduler: Scheduler = createSystemScheduler();

function sleepWith(scheduler: Scheduler, delayMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      handle.cancel();
      reject(signal?.reason);
    };
    const handle = scheduler.schedule(delayMs, () => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

interface ManualTimer {
  readonly dueMs: number;
  readonly seq: number;
  readonly fn: () => void;
  cancelled: boolean;
}

/**
 * A scheduler whose time moves only when told. Timers fire in due-time order (ties in
 * scheduling order); `advance` lets promise callbacks settle between timers so code that
 * awaits inside timer callbacks behaves as it would with real time.
 */
export class ManualScheduler implements Scheduler {
  private now: number;
  private seq = 0;
  private readonly timers: ManualTimer[] = [];
  private readonly runDueTimers: boolean;
  private dueRunQueued = false;

  /**
   * `runDueTimers`: a timer scheduled to fire at the current time (a delay of 0) fires on its
   * own, in a macrotask, as it would on a real clock; only time passing waits for `advance`.
   */
  constructor(startMs = 0, options: { readonly runDueTimers?: boolean } = {}) {
    this.now = startMs;
    this.runDueTimers = options.runDueTimers ?? false;
  }

  nowMs(): number {
    return this.now;
  }

  schedule(delayMs: number, fn: () => void): TimerHandle {
    const timer: ManualTimer = { dueMs: this.now + Math.max(0, delayMs), seq: this.seq++, fn, cancelled: false };
    this.timers.push(timer);
    if (this.runDueTimers && timer.dueMs <= this.now && !this.dueRunQueued) {
      this.dueRunQueued = true;
      setImmediate(() => {
        this.dueRunQueued = false;
        void this.advance(0);
      });
    }
    return { cancel: () => { timer.cancelled = true; } };
  }

  sleep(delayMs: number, signal?: AbortSignal): Promise<void> {
    return sleepWith(this, delayMs, signal);
  }

  /** Number of timers still waiting to fire. */
  get pendingTimers(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }

  /** Moves time forward by `ms`, firing due timers in order and settling promises between them. */
  async advance(ms: number): Promise<void> {
    const target = this.now + ms;
    await settle();
    for (;;) {
      const next = this.nextDue();
      if (!next || next.dueMs > target) break;
      this.timers.splice(this.timers.indexOf(next), 1);
      this.now = Math.max(this.now, next.dueMs);
      next.fn();
      await settle();
    }
    // Never back: another advance may have moved the clock further meanwhile.
    this.now = Math.max(this.now, target);
    await settle();
  }

  private nextDue(): ManualTimer | undefined {
    let best: ManualTimer | undefined;
    for (let i = this.timers.length - 1; i >= 0; i--) {
      const t = this.timers[i];
      if (t.cancelled) {
        this.timers.splice(i, 1);
        continue;
      }
      if (!best || t.dueMs < best.dueMs || (t.dueMs === best.dueMs && t.seq < best.seq)) best = t;
    }
    return best;
  }
}

/** Lets every already-resolved promise chain run (a few macrotask turns). */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
