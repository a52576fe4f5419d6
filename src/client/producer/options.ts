/** Producer options in Kafka's names (camelCased) with Kafka 4's defaults, and their checks. */
import { CompressionType } from '../../protocol/records/compression.js';
import type { Scheduler } from '../../util/clock.js';
import type { Logger } from '../../util/log.js';
import type { BrokerConnection, ConnectionOptions } from '../connection.js';
import { ProducerConfigError } from './errors.js';
import type { PartitionerFunction } from './partitioner.js';

export type CompressionName = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
export type Acks = 0 | 1 | -1 | 'all';

export interface ProducerOptions {
  /** `bootstrap.servers`: "host:port[,host:port...]". */
  readonly bootstrapServers: string;
  readonly clientId?: string;
  /** `acks`: 0, 1 or all (-1). Default all. */
  readonly acks?: Acks;
  /** `linger.ms`, default 5. */
  readonly lingerMs?: number;
  /** `batch.size`, default 16384. */
  readonly batchSize?: number;
  /** `compression.type`, default none. */
  readonly compression?: CompressionName;
  /** gzip (1-9) or zstd level. */
  readonly compressionLevel?: number;
  /** `enable.idempotence`: default true when acks is all (as Kafka 3+, which turns it off silently otherwise). */
  readonly idempotent?: boolean;
  /** `retries`, default 2147483647. */
  readonly retries?: number;
  /** `retry.backoff.ms`, default 100; doubles per attempt up to `retry.backoff.max.ms` (1000). */
  readonly retryBackoffMs?: number;
  readonly retryBackoffMaxMs?: number;
  /** `delivery.timeout.ms`, default 120000. */
  readonly deliveryTimeoutMs?: number;
  /** `request.timeout.ms`, default 30000. */
  readonly requestTimeoutMs?: number;
  /** `max.in.flight.requests.per.connection`, default 5 (at most 5 with idempotence). */
  readonly maxInFlightRequestsPerConnection?: number;
  /** `buffer.memory`, default 33554432. */
  readonly bufferMemory?: number;
  /** `max.block.ms`, default 60000: how long send() waits for metadata and buffer space. */
  readonly maxBlockMs?: number;
  /** `max.request.size`, default 1048576. */
  readonly maxRequestSize?: number;
  /** A custom partitioner for records without an explicit partition. */
  readonly partitioner?: PartitionerFunction;
  readonly scheduler?: Scheduler;
  readonly logger?: Logger;
  /** For tests: how connections are opened (default: TCP), as for the consumer. */
  readonly connectionFactory?: (options: ConnectionOptions) => Promise<BrokerConnection>;
}

export interface ResolvedOptions {
  readonly acks: number;
  readonly lingerMs: number;
  readonly batchSize: number;
  readonly compression: CompressionType;
  readonly compressionLevel: number | undefined;
  readonly idempotent: boolean;
  readonly retries: number;
  readonly retryBackoffMs: number;
  readonly retryBackoffMaxMs: number;
  readonly deliveryTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly maxInFlight: number;
  readonly bufferMemory: number;
  readonly maxBlockMs: number;
  readonly maxRequestSize: number;
}

const CODECS: Record<CompressionName, CompressionType> = {
  none: CompressionType.None, gzip: CompressionType.Gzip, snappy: CompressionType.Snappy, lz4: CompressionType.Lz4, zstd: CompressionType.Zstd,
};

export function compressionFromName(name: string): CompressionType {
  const type = CODECS[name as CompressionName];
  if (type === undefined) throw new ProducerConfigError(`unknown compression '${name}' (none, gzip, snappy, lz4, zstd)`);
  return type;
}

export function parseAcks(acks: Acks | string | undefined): number {
  if (acks === undefined || acks === 'all' || acks === -1 || acks === '-1') return -1;
  if (acks === 0 || acks === '0') return 0;
  if (acks === 1 || acks === '1') return 1;
  throw new ProducerConfigError(`acks must be all, -1, 0 or 1, not '${String(acks)}'`);
}

function nonNegative(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < 0) throw new ProducerConfigError(`${name} must be a non-negative integer, not ${v}`);
  return v;
}

export function resolveOptions(o: ProducerOptions): ResolvedOptions {
  const acks = parseAcks(o.acks);
  const maxInFlight = nonNegative('maxInFlightRequestsPerConnection', o.maxInFlightRequestsPerConnection, 5);
  const retries = nonNegative('retries', o.retries, 2147483647);
  // Kafka: idempotence is on by default but silently off when acks/retries/in-flight
  // settings conflict and it was not asked for; asked for explicitly, a conflict is an error.
  const compatible = acks === -1 && retries > 0 && maxInFlight <= 5;
  if (o.idempotent === true && !compatible) {
    throw new ProducerConfigError('idempotence needs acks=all, retries > 0 and maxInFlightRequestsPerConnection <= 5');
  }
  const lingerMs = nonNegative('lingerMs', o.lingerMs, 5);
  const requestTimeoutMs = nonNegative('requestTimeoutMs', o.requestTimeoutMs, 30_000);
  const deliveryTimeoutMs = nonNegative('deliveryTimeoutMs', o.deliveryTimeoutMs, 120_000);
  if (deliveryTimeoutMs < lingerMs + requestTimeoutMs) {
    throw new ProducerConfigError(`deliveryTimeoutMs (${deliveryTimeoutMs}) must be at least lingerMs + requestTimeoutMs (${lingerMs + requestTimeoutMs})`);
  }
  if (maxInFlight < 1) throw new ProducerConfigError('maxInFlightRequestsPerConnection must be at least 1');
  return {
    acks,
    lingerMs,
    batchSize: Math.max(1, nonNegative('batchSize', o.batchSize, 16_384)),
    compression: compressionFromName(o.compression ?? 'none'),
    compressionLevel: o.compressionLevel,
    idempotent: o.idempotent ?? compatible,
    retries,
    retryBackoffMs: nonNegative('retryBackoffMs', o.retryBackoffMs, 100),
    retryBackoffMaxMs: nonNegative('retryBackoffMaxMs', o.retryBackoffMaxMs, 1000),
    deliveryTimeoutMs,
    requestTimeoutMs,
    maxInFlight,
    bufferMemory: nonNegative('bufferMemory', o.bufferMemory, 33_554_432),
    maxBlockMs: nonNegative('maxBlockMs', o.maxBlockMs, 60_000),
    maxRequestSize: nonNegative('maxRequestSize', o.maxRequestSize, 1_048_576),
  };
}
