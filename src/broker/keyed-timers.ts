/**
 * The coordinators' timers on Node's clock. A coordinator (a pure state machine) asks for a
 * timer by key at an absolute time, or for its cancellation; scheduling a key again replaces
 * its timer. Each timer is unref'd (a pending expiry never keeps the process alive) and, once
 * stopped, none fires again.
 */
import type { Clock } from '../util/clock.js';

/** setTimeout's largest delay (about 24.8 days); a later time fires then, and the coordinator finds nothing due. */
const MAX_TIMER_DELAY_MS = 2_147_483_647;

export class KeyedTimers<K> {
  private readonly timers = new Map<K, NodeJS.Timeout>();
  private stopped = false;

  constructor(private readonly clock: Clock, private readonly fire: (key: K) => void) {}

  schedule(key: K, atMs: number): void {
    if (this.stopped) return;
    this.cancel(key);
    const delay = Math.min(MAX_TIMER_DELAY_MS, Math.max(0, atMs - this.clock.nowMs()));
    const timer = setTimeout(() => {
      if (this.timers.get(key) !== timer) return;
      this.timers.delete(key);
      if (!this.stopped) this.fire(key);
    }, delay);
    timer.unref();
    this.timers.set(key, timer);
  }

  cancel(key: K): void {
    const timer = this.timers.get(key);
    if (timer === undefined) return;
    clearTimeout(timer);
    this.timers.delete(key);
  }

  /** Cancels every pending timer; later schedules work as before. */
  clear(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  /** Clears every timer; later schedules are ignored. */
  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
