/**
 * The coordinators' timers on the broker's clock. A coordinator (a pure state machine) asks
 * for a timer by key at an absolute time, or for its cancellation; scheduling a key again
 * replaces its timer. The clock decides when a timer fires (the system clock's timers are
 * unref'd: a pending expiry never keeps the process alive; a manual clock fires them when a
 * test advances it) and, once stopped, none fires again.
 *
 * Every heartbeat pushes its member's session timeout further out: rescheduling a key to a
 * later time only moves its due time, and the clock's timer, when it fires early, is armed
 * again for the rest (a timer wheel's trick), instead of a cancel and a new timer per
 * heartbeat. A key moved earlier gets a new timer at once.
 */
import type { Scheduler, TimerHandle } from '../util/clock.js';

interface Entry<K> {
  readonly key: K;
  /** When the key is due. */
  dueMs: number;
  /** When the clock's timer fires (at or before dueMs). */
  armedAtMs: number;
  handle: TimerHandle;
}

export class KeyedTimers<K> {
  private readonly timers = new Map<K, Entry<K>>();
  private stopped = false;

  constructor(private readonly clock: Scheduler, private readonly fire: (key: K) => void) {}

  schedule(key: K, atMs: number): void {
    if (this.stopped) return;
    const entry = this.timers.get(key);
    if (entry !== undefined && entry.armedAtMs <= atMs) {
      entry.dueMs = atMs;
      return;
    }
    entry?.handle.cancel();
    const next: Entry<K> = { key, dueMs: atMs, armedAtMs: atMs, handle: null! };
    this.arm(next);
    this.timers.set(key, next);
  }

  cancel(key: K): void {
    const entry = this.timers.get(key);
    if (entry === undefined) return;
    entry.handle.cancel();
    this.timers.delete(key);
  }

  /** Cancels every pending timer; later schedules work as before. */
  clear(): void {
    for (const entry of this.timers.values()) entry.handle.cancel();
    this.timers.clear();
  }

  /** Clears every timer; later schedules are ignored. */
  stop(): void {
    this.stopped = true;
    this.clear();
  }

  private arm(entry: Entry<K>): void {
    entry.armedAtMs = entry.dueMs;
    entry.handle = this.clock.schedule(entry.dueMs - this.clock.nowMs(), () => this.expired(entry));
  }

  private expired(entry: Entry<K>): void {
    if (this.timers.get(entry.key) !== entry) return;
    if (this.clock.nowMs() < entry.dueMs) {
      // Moved later since it was armed.
      this.arm(entry);
      return;
    }
    this.timers.delete(entry.key);
    if (!this.stopped) this.fire(entry.key);
  }
}
