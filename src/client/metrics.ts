/**
 * Windowed statistics for the clients' metrics() snapshots, on the client's injected clock
 * (so tests drive them with a ManualScheduler). As Java's metrics, a rate is what happened
 * in the last `windowMs` divided by the time covered (less than the window while the
 * client is younger than it), and avg/max describe the samples of that window.
 *
 * The window is a ring of buckets: recording is O(1) with no allocation; samples leave the
 * window a bucket at a time.
 */
import type { Clock } from '../util/clock.js';

/** Java's metrics.sample.window.ms × metrics.num.samples is 2 × 30 s; one 30 s window of 1 s buckets here. */
export const DEFAULT_METRICS_WINDOW_MS = 30_000;
const BUCKETS = 30;

export class WindowedStat {
  private readonly bucketMs: number;
  /** Per ring slot: which bucket (time / bucketMs) it holds, and that bucket's samples. */
  private readonly ids = new Float64Array(BUCKETS).fill(-Infinity);
  private readonly counts = new Float64Array(BUCKETS);
  private readonly sums = new Float64Array(BUCKETS);
  private readonly maxes = new Float64Array(BUCKETS);
  private readonly createdMs: number;
  /** Every sample ever recorded. */
  total = 0;
  count = 0;

  constructor(private readonly clock: Clock, readonly windowMs = DEFAULT_METRICS_WINDOW_MS) {
    this.bucketMs = Math.max(1, windowMs / BUCKETS);
    this.createdMs = clock.nowMs();
  }

  record(value: number): void {
    const id = Math.floor(this.clock.nowMs() / this.bucketMs);
    const slot = id % BUCKETS;
    if (this.ids[slot] !== id) {
      this.ids[slot] = id;
      this.counts[slot] = 0;
      this.sums[slot] = 0;
      this.maxes[slot] = -Infinity;
    }
    this.counts[slot]++;
    this.sums[slot] += value;
    if (value > this.maxes[slot]!) this.maxes[slot] = value;
    this.total += value;
    this.count++;
  }

  /** Sum, count and max of the samples in the window ending now. */
  window(): { sum: number; count: number; max: number; coveredMs: number } {
    const now = this.clock.nowMs();
    const oldest = Math.floor(now / this.bucketMs) - BUCKETS + 1;
    let sum = 0;
    let count = 0;
    let max = -Infinity;
    for (let i = 0; i < BUCKETS; i++) {
      if (this.ids[i]! < oldest) continue;
      sum += this.sums[i]!;
      count += this.counts[i]!;
      if (this.maxes[i]! > max) max = this.maxes[i]!;
    }
    const coveredMs = Math.min(now - this.createdMs, now - oldest * this.bucketMs);
    return { sum, count, max, coveredMs };
  }

  /** Sum of the window's samples per second (records/s, bytes/s). */
  ratePerSecond(): number {
    const { sum, coveredMs } = this.window();
    return coveredMs > 0 ? (sum * 1000) / coveredMs : 0;
  }

  /** Samples per second. */
  countPerSecond(): number {
    const { count, coveredMs } = this.window();
    return coveredMs > 0 ? (count * 1000) / coveredMs : 0;
  }

  /** Average and maximum of the window's samples; null without samples. */
  avgMax(): { avg: number | null; max: number | null } {
    const { sum, count, max } = this.window();
    return count === 0 ? { avg: null, max: null } : { avg: sum / count, max };
  }
}
