/**
 * The coordinators' timers on the broker's clock. A coordinator (a pure state machine) asks
 * for a timer by key at an absolute time, or for its cancellation; scheduling a key again
 * replaces its timer. The clock decides when a timer fires (the system clock's timers are
 * unref'd: a pending expiry never keeps the process alive; a manual clock fires them when a
 * test advances it) and, once stopped, none fires again.
 */
import type { Scheduler, TimerHandle } from '../util/clock.js';

export class KeyedTimers<K> {
  private readonly timers = new Map<K, TimerHandle>();
  private stopped = false;

  constructor(private readonly clock: Scheduler, private readonly fire: (key: K) => void) {}

  schedule(key: K, atMs: number): void {
    if (this.stopped) return;
    this.cancel(key);
    const handle: TimerHandle = this.clock.schedule(atMs - this.clock.nowMs(), () => {
      if (this.timers.get(key) !== handle) return;
      this.timers.delete(key);
      if (!this.stopped) this.fire(key);
    });
    this.timers.set(key, handle);
  }

  cancel(key: K): void {
    const handle = this.timers.get(key);
    if (handle === undefined) return;
    handle.cancel();
    this.timers.delete(key);
  }

  /** Cancels every pending timer; later schedules work as before. */
  clear(): void {
    for (const handle of this.timers.values()) handle.cancel();
    this.timers.clear();
  }

  /** Clears every timer; later schedules are ignored. */
  stop(): void {
    this.stopped = true;
    this.clear();
  }
}
