/**
 * The producer's metrics (Java's producer-metrics, in camelCase), over a window on the
 * producer's clock; `Producer.metrics()` returns a snapshot. The sender records batches as
 * the broker acknowledges them or they fail for good, and every Produce request's latency.
 */
import { WindowedStat } from '../metrics.js';
import type { Clock } from '../../util/clock.js';

export interface ProducerMetrics {
  /** The window the rates, averages and maxima cover. */
  readonly windowMs: number;
  /** Records acknowledged by the broker (or written, with acks=0). */
  readonly recordSendRate: number;
  readonly recordSendTotal: number;
  /** Bytes of the record batches those records went in (compressed size, as sent). */
  readonly byteSendRate: number;
  readonly byteSendTotal: number;
  /** Records that failed for good (their send rejected). */
  readonly recordErrorRate: number;
  readonly recordErrorTotal: number;
  /** Records sent again after a retriable error. */
  readonly recordRetryTotal: number;
  /** Produce requests per second and their latency, from sending to the response. */
  readonly requestRate: number;
  readonly requestTotal: number;
  readonly requestLatencyAvgMs: number | null;
  readonly requestLatencyMaxMs: number | null;
  /** Size in bytes of the batches sent. */
  readonly batchSizeAvg: number | null;
  readonly batchSizeMax: number | null;
}

export class ProducerMetricsRecorder {
  private readonly records: WindowedStat;
  private readonly bytes: WindowedStat;
  private readonly errors: WindowedStat;
  private readonly requests: WindowedStat;
  private retries = 0;

  constructor(clock: Clock, windowMs?: number) {
    this.records = new WindowedStat(clock, windowMs);
    this.bytes = new WindowedStat(clock, windowMs);
    this.errors = new WindowedStat(clock, windowMs);
    this.requests = new WindowedStat(clock, windowMs);
  }

  /** A batch acknowledged: the bytes stat's samples are batch sizes. */
  batchSent(records: number, bytes: number): void {
    this.records.record(records);
    this.bytes.record(bytes);
  }

  batchFailed(records: number): void {
    this.errors.record(records);
  }

  batchRetried(records: number): void {
    this.retries += records;
  }

  requestCompleted(latencyMs: number): void {
    this.requests.record(latencyMs);
  }

  snapshot(): ProducerMetrics {
    const latency = this.requests.avgMax();
    const batches = this.bytes.avgMax();
    return {
      windowMs: this.records.windowMs,
      recordSendRate: this.records.ratePerSecond(),
      recordSendTotal: this.records.total,
      byteSendRate: this.bytes.ratePerSecond(),
      byteSendTotal: this.bytes.total,
      recordErrorRate: this.errors.ratePerSecond(),
      recordErrorTotal: this.errors.total,
      recordRetryTotal: this.retries,
      requestRate: this.requests.countPerSecond(),
      requestTotal: this.requests.count,
      requestLatencyAvgMs: latency.avg,
      requestLatencyMaxMs: latency.max,
      batchSizeAvg: batches.avg,
      batchSizeMax: batches.max,
    };
  }
}
