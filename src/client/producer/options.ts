/** Producer options in Kafka's names (camelCased) with Kafka 4's defaults, on top of the options every client takes. */
import { CompressionType } from '../../protocol/records/compression.js';
import { ConfigError } from '../errors.js';
import {
  choice, int, resolveCommonOptions, resolveTable, wireString, INT32_MAX,
  type CommonClientOptions, type OptionsOf, type ResolvedCommonOptions,
} from '../options.js';
import type { Serializers } from '../serdes.js';
import type { PartitionerFunction } from './partitioner.js';

export type CompressionName = 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
export type Acks = 0 | 1 | -1 | 'all';

export const DEFAULT_BATCH_SIZE = 1_000_000;
/** Unkeyed records stick to a partition for this many bytes (Java: batch.size, whose default this is), or batchSize if smaller. */
export const STICKY_PARTITION_BYTES = 16_384;

const PRODUCER_OPTIONS = {
  /** linger.ms. */
  lingerMs: int(5),
  /**
   * batch.size: Brook's default is 1,000,000 bytes (librdkafka's; franz-go's is 1,000,012),
   * not Java's 16,384: a batch buffer grows only as records come, so the larger limit costs
   * memory only where records pile up, and under load one request then carries far more per
   * partition (fewer requests, fewer fsyncs on the broker). Unkeyed records still switch
   * partitions every STICKY_PARTITION_BYTES, as with Java's default.
   */
  batchSize: int(DEFAULT_BATCH_SIZE, 1),
  compression: choice<CompressionName>('none', ['none', 'gzip', 'snappy', 'lz4', 'zstd']),
  /** retries. */
  retries: int(INT32_MAX),
  /** retry.backoff.max.ms: the backoff doubles per attempt up to this. */
  retryBackoffMaxMs: int(1_000),
  /** delivery.timeout.ms. */
  deliveryTimeoutMs: int(120_000),
  /** max.in.flight.requests.per.connection (at most 5 with idempotence). */
  maxInFlightRequestsPerConnection: int(5, 1),
  /** buffer.memory. */
  bufferMemory: int(33_554_432, 0, Number.MAX_SAFE_INTEGER),
  /** max.block.ms: how long send() waits for metadata and buffer space. */
  maxBlockMs: int(60_000, 0, Number.MAX_SAFE_INTEGER),
  /** max.request.size. */
  maxRequestSize: int(1_048_576, 1),
  /** transaction.timeout.ms: the coordinator aborts a transaction left open longer than this. */
  transactionTimeoutMs: int(60_000, 1),
} as const;

/** K, V and H: what the `serializers` take for keys, values and header values (Buffer or string without them). */
export interface ProducerOptions<K = Buffer | string, V = Buffer | string, H = Buffer | string> extends CommonClientOptions, OptionsOf<typeof PRODUCER_OPTIONS> {
  /** key.serializer / value.serializer, and one for header values (../serdes.ts); each left out sends Buffers or strings as they are. */
  readonly serializers?: Serializers<K, V, H>;
  /** acks: 0, 1 or all (-1). Default all. */
  readonly acks?: Acks;
  /** gzip (1-9) or zstd level. */
  readonly compressionLevel?: number;
  /** enable.idempotence: default true when acks is all (as Kafka 3+, which turns it off silently otherwise). */
  readonly idempotent?: boolean;
  /** A custom partitioner for records without an explicit partition. */
  readonly partitioner?: PartitionerFunction;
  /**
   * transactional.id: makes the producer transactional (initTransactions, beginTransaction,
   * commitTransaction...; see transactions.ts). Implies idempotence.
   */
  readonly transactionalId?: string;
}

export interface ResolvedOptions extends ResolvedCommonOptions {
  readonly acks: number;
  readonly lingerMs: number;
  readonly batchSize: number;
  readonly compression: CompressionType;
  readonly compressionLevel: number | undefined;
  readonly idempotent: boolean;
  readonly retries: number;
  readonly retryBackoffMaxMs: number;
  readonly deliveryTimeoutMs: number;
  readonly maxInFlight: number;
  readonly bufferMemory: number;
  readonly maxBlockMs: number;
  readonly maxRequestSize: number;
  /** null without transactions. */
  readonly transactionalId: string | null;
  readonly transactionTimeoutMs: number;
}

const CODECS: Record<CompressionName, CompressionType> = {
  none: CompressionType.None, gzip: CompressionType.Gzip, snappy: CompressionType.Snappy, lz4: CompressionType.Lz4, zstd: CompressionType.Zstd,
};

export function compressionFromName(name: string): CompressionType {
  const type = CODECS[name as CompressionName];
  if (type === undefined) throw new ConfigError(`unknown compression '${name}' (none, gzip, snappy, lz4, zstd)`);
  return type;
}

export function parseAcks(acks: Acks | string | undefined): number {
  if (acks === undefined || acks === 'all' || acks === -1 || acks === '-1') return -1;
  if (acks === 0 || acks === '0') return 0;
  if (acks === 1 || acks === '1') return 1;
  throw new ConfigError(`acks must be all, -1, 0 or 1, not '${String(acks)}'`);
}

export function resolveOptions<K, V, H>(o: ProducerOptions<K, V, H>): ResolvedOptions {
  const common = resolveCommonOptions(o, 'brook-producer');
  const own = resolveTable(PRODUCER_OPTIONS, o as unknown as Readonly<Record<string, unknown>>);
  const acks = parseAcks(o.acks);
  if (o.idempotent !== undefined && typeof o.idempotent !== 'boolean') throw new ConfigError('idempotent must be true or false');
  if (o.compressionLevel !== undefined && !Number.isInteger(o.compressionLevel)) throw new ConfigError('compressionLevel must be an integer');
  const maxInFlight = own.maxInFlightRequestsPerConnection;
  // Kafka: idempotence is on by default but silently off when acks/retries/in-flight
  // settings conflict and it was not asked for; asked for explicitly, a conflict is an error.
  const compatible = acks === -1 && own.retries > 0 && maxInFlight <= 5;
  const transactionalId = wireString('transactionalId', o.transactionalId);
  // As Kafka: a transactional id turns idempotence on and cannot go without it.
  if ((o.idempotent === true || transactionalId !== null) && !compatible) {
    throw new ConfigError(`idempotence${transactionalId !== null ? ' (implied by transactionalId)' : ''} needs acks=all, retries > 0 and maxInFlightRequestsPerConnection <= 5`);
  }
  if (transactionalId !== null && o.idempotent === false) throw new ConfigError('transactionalId needs idempotence: idempotent cannot be false');
  if (own.deliveryTimeoutMs < own.lingerMs + common.requestTimeoutMs) {
    throw new ConfigError(`deliveryTimeoutMs (${own.deliveryTimeoutMs}) must be at least lingerMs + requestTimeoutMs (${own.lingerMs + common.requestTimeoutMs})`);
  }
  return {
    ...common,
    acks,
    lingerMs: own.lingerMs,
    batchSize: own.batchSize,
    compression: compressionFromName(own.compression),
    compressionLevel: o.compressionLevel,
    idempotent: transactionalId !== null || (o.idempotent ?? compatible),
    retries: own.retries,
    retryBackoffMaxMs: own.retryBackoffMaxMs,
    deliveryTimeoutMs: own.deliveryTimeoutMs,
    maxInFlight,
    bufferMemory: own.bufferMemory,
    maxBlockMs: own.maxBlockMs,
    maxRequestSize: own.maxRequestSize,
    transactionalId,
    transactionTimeoutMs: own.transactionTimeoutMs,
  };
}

