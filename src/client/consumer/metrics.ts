/**
 * The consumer's metrics (Java's consumer-fetch-manager and consumer-coordinator metrics,
 * in camelCase): what the fetcher gave out, commits and rebalances, over a window on the
 * consumer's clock; lag per assigned partition from the last Fetch response's high
 * watermark. `Consumer.metrics()` returns a snapshot.
 */
import { WindowedStat } from '../metrics.js';
import type { Clock } from '../../util/clock.js';
import type { SubscriptionState } from './subscription-state.js';
import { sortPartitions } from './subscription-state.js';

export interface PartitionLag {
  readonly topic: string;
  readonly partition: number;
  /** Offset of the next record poll() gives out; null until known. */
  readonly position: bigint | null;
  /** From the last Fetch response for the partition; null before one arrived. */
  readonly highWatermark: bigint | null;
  /** highWatermark − position (Java's records-lag); null while either is unknown. */
  readonly lag: bigint | null;
}

export interface ConsumerMetrics {
  /** The window the rates, averages and maxima cover. */
  readonly windowMs: number;
  /** Records poll() (or the iterator) gave out. */
  readonly recordsConsumedRate: number;
  readonly recordsConsumedTotal: number;
  /** Bytes of the record batches those records came in (compressed size, as fetched). */
  readonly bytesConsumedRate: number;
  readonly bytesConsumedTotal: number;
  /** Offset commits per second, and their latency (failed ones included). */
  readonly commitRate: number;
  readonly commitTotal: number;
  readonly commitErrorTotal: number;
  readonly commitLatencyAvgMs: number | null;
  readonly commitLatencyMaxMs: number | null;
  /** Rebalances this member completed (a new assignment applied), and how long they took. */
  readonly rebalanceTotal: number;
  readonly rebalanceLatencyAvgMs: number | null;
  readonly rebalanceLatencyMaxMs: number | null;
  /** One entry per assigned partition. */
  readonly partitions: readonly PartitionLag[];
}

export class ConsumerMetricsRecorder {
  readonly records: WindowedStat;
  readonly bytes: WindowedStat;
  readonly commits: WindowedStat;
  readonly rebalances: WindowedStat;
  commitErrors = 0;

  constructor(clock: Clock, windowMs?: number) {
    this.records = new WindowedStat(clock, windowMs);
    this.bytes = new WindowedStat(clock, windowMs);
    this.commits = new WindowedStat(clock, windowMs);
    this.rebalances = new WindowedStat(clock, windowMs);
  }

  consumed(records: number, bytes: number): void {
    if (records > 0) this.records.record(records);
    if (bytes > 0) this.bytes.record(bytes);
  }

  committed(durationMs: number, failed: boolean): void {
    this.commits.record(durationMs);
    if (failed) this.commitErrors++;
  }

  snapshot(subscriptions: SubscriptionState): ConsumerMetrics {
    const commits = this.commits.avgMax();
    const rebalances = this.rebalances.avgMax();
    const partitions: PartitionLag[] = [];
    for (const s of subscriptions.states()) {
      const highWatermark = s.highWatermark >= 0n ? s.highWatermark : null;
      const position = s.position;
      const lag = highWatermark !== null && position !== null ? (highWatermark > position ? highWatermark - position : 0n) : null;
      partitions.push({ topic: s.topic, partition: s.partition, position, highWatermark, lag });
    }
    return {
      windowMs: this.records.windowMs,
      recordsConsumedRate: this.records.ratePerSecond(),
      recordsConsumedTotal: this.records.total,
      bytesConsumedRate: this.bytes.ratePerSecond(),
      bytesConsumedTotal: this.bytes.total,
      commitRate: this.commits.countPerSecond(),
      commitTotal: this.commits.count,
      commitErrorTotal: this.commitErrors,
      commitLatencyAvgMs: commits.avg,
      commitLatencyMaxMs: commits.max,
      rebalanceTotal: this.rebalances.count,
      rebalanceLatencyAvgMs: rebalances.avg,
      rebalanceLatencyMaxMs: rebalances.max,
      partitions: sortPartitions(partitions),
    };
  }
}
