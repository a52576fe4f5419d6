/**
 * Summary statistics for benchmark samples: medians across runs, percentiles of latencies.
 * Percentiles use the nearest-rank method (the value at rank ceil(p/100 * n)), as most
 * latency tools report them, so p99 of 100 samples is the 99th smallest.
 */

export function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Nearest-rank percentile of `values` (0 < p <= 100); NaN for no values. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const s = sorted(values);
  const rank = Math.min(s.length, Math.max(1, Math.ceil((p / 100) * s.length)));
  return s[rank - 1]!;
}

/** The median; for an even count, the mean of the two middle values. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const s = sorted(values);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
  runs: number[];
}

/** Median and range of one metric over several runs. */
export function spread(runs: readonly number[]): Spread {
  const s = sorted(runs);
  return { median: median(s), min: s[0] ?? Number.NaN, max: s[s.length - 1] ?? Number.NaN, runs: [...runs] };
}
