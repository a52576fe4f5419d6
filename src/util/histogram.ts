/**
 * A histogram with fixed bucket bounds, as Prometheus keeps one: a count per bucket, the
 * sum and the count of what was observed. Recording is a few comparisons and two additions,
 * no allocation, so hot paths (every request, every fsync round) can afford it; the layers
 * that observe (storage, the connection loop) need nothing of the metrics endpoint that
 * exports it.
 */
export interface HistogramSnapshot {
  /** Upper bounds, ascending; the +Inf bucket is implied. */
  readonly bounds: readonly number[];
  /** Observations per bucket (not cumulative); one more entry than `bounds`, for +Inf. */
  readonly counts: readonly number[];
  readonly sum: number;
  readonly count: number;
}

/** Seconds, for request latencies: 0.5 ms to 30 s (a long-poll Fetch, a parked JoinGroup). */
export const REQUEST_SECONDS_BOUNDS: readonly number[] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Seconds, for fsyncs: 50 µs (a cached SSD) to 2.5 s (a disk in trouble). */
export const FSYNC_SECONDS_BOUNDS: readonly number[] = [0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export class Histogram {
  private readonly buckets: Float64Array;
  private total = 0;
  private n = 0;

  constructor(readonly bounds: readonly number[]) {
    for (let i = 1; i < bounds.length; i++) if (!(bounds[i]! > bounds[i - 1]!)) throw new Error('histogram bounds must ascend');
    this.buckets = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.buckets[i]!++;
    this.total += value;
    this.n++;
  }

  /** A copy: it does not change as observations go on. */
  snapshot(): HistogramSnapshot {
    return { bounds: this.bounds, counts: Array.from(this.buckets), sum: this.total, count: this.n };
  }
}
