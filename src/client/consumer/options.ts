/**
 * Consumer configuration: Kafka's consumer config names in camelCase, with Kafka 4's defaults.
 */
import type { PartitionAssignor } from '../../assignors/types.js';
import { systemScheduler, type Scheduler } from '../../util/clock.js';
import { silentLogger, type Logger } from '../../util/log.js';
import type { BrokerConnection, ConnectionOptions } from '../connection.js';
import { DEFAULT_ASSIGNORS } from './assignor-registry.js';

export type AutoOffsetReset = 'latest' | 'earliest' | 'none';
export type IsolationLevel = 'read_uncommitted' | 'read_committed';

export interface ConsumerOptions {
  /** bootstrap.servers: "host:port[,host:port...]". */
  readonly bootstrapServers: string;
  /** group.id; without it only assign() works and nothing is committed. */
  readonly groupId?: string;
  /** group.instance.id: static membership. */
  readonly groupInstanceId?: string;
  readonly clientId?: string;
  readonly sessionTimeoutMs?: number;
  readonly heartbeatIntervalMs?: number;
  readonly maxPollIntervalMs?: number;
  /** Defaults to maxPollIntervalMs, as Java. */
  readonly rebalanceTimeoutMs?: number;
  readonly enableAutoCommit?: boolean;
  readonly autoCommitIntervalMs?: number;
  readonly autoOffsetReset?: AutoOffsetReset;
  readonly maxPollRecords?: number;
  readonly fetchMinBytes?: number;
  readonly fetchMaxBytes?: number;
  readonly maxPartitionFetchBytes?: number;
  readonly fetchMaxWaitMs?: number;
  readonly isolationLevel?: IsolationLevel;
  /** partition.assignment.strategy: names from the registry or instances, preferred first. */
  readonly assignors?: readonly (string | PartitionAssignor)[];
  readonly requestTimeoutMs?: number;
  readonly retryBackoffMs?: number;
  /** metadata.max.age.ms: how often the leader re-reads metadata to notice new partitions and topics. */
  readonly metadataMaxAgeMs?: number;
  /** client.rack, sent in the subscription. */
  readonly clientRack?: string;
  readonly scheduler?: Scheduler;
  readonly logger?: Logger;
  /** Aborting it closes the consumer. */
  readonly signal?: AbortSignal;
  /** For tests: how connections are opened (default: TCP). */
  readonly connectionFactory?: (options: ConnectionOptions) => Promise<BrokerConnection>;
}

export interface ResolvedConsumerOptions {
  readonly bootstrapServers: string;
  readonly groupId: string | null;
  readonly groupInstanceId: string | null;
  readonly clientId: string;
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly maxPollIntervalMs: number;
  readonly rebalanceTimeoutMs: number;
  readonly enableAutoCommit: boolean;
  readonly autoCommitIntervalMs: number;
  readonly autoOffsetReset: AutoOffsetReset;
  readonly maxPollRecords: number;
  readonly fetchMinBytes: number;
  readonly fetchMaxBytes: number;
  readonly maxPartitionFetchBytes: number;
  readonly fetchMaxWaitMs: number;
  readonly isolationLevel: IsolationLevel;
  readonly assignors: readonly (string | PartitionAssignor)[];
  readonly requestTimeoutMs: number;
  readonly retryBackoffMs: number;
  readonly metadataMaxAgeMs: number;
  readonly clientRack: string | null;
  readonly scheduler: Scheduler;
  readonly logger: Logger;
  readonly signal: AbortSignal | undefined;
  readonly connectionFactory: ConsumerOptions['connectionFactory'];
}

function positive(name: string, value: number | undefined, fallback: number, min = 1): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v < min) throw new RangeError(`${name} must be a number >= ${min}, got ${String(value)}`);
  return v;
}

let clientSequence = 0;

export function resolveConsumerOptions(o: ConsumerOptions): ResolvedConsumerOptions {
  const maxPollIntervalMs = positive('maxPollIntervalMs', o.maxPollIntervalMs, 300_000);
  const reset = o.autoOffsetReset ?? 'latest';
  if (!['latest', 'earliest', 'none'].includes(reset)) throw new RangeError(`autoOffsetReset must be latest, earliest or none, got ${reset}`);
  const isolation = o.isolationLevel ?? 'read_uncommitted';
  if (!['read_uncommitted', 'read_committed'].includes(isolation)) throw new RangeError(`isolationLevel must be read_uncommitted or read_committed`);
  const sessionTimeoutMs = positive('sessionTimeoutMs', o.sessionTimeoutMs, 45_000);
  const heartbeatIntervalMs = positive('heartbeatIntervalMs', o.heartbeatIntervalMs, 3_000);
  if (heartbeatIntervalMs >= sessionTimeoutMs) throw new RangeError('heartbeatIntervalMs must be lower than sessionTimeoutMs');
  return {
    bootstrapServers: o.bootstrapServers,
    groupId: o.groupId ?? null,
    groupInstanceId: o.groupInstanceId ?? null,
    clientId: o.clientId ?? `brook-consumer-${++clientSequence}`,
    sessionTimeoutMs,
    heartbeatIntervalMs,
    maxPollIntervalMs,
    rebalanceTimeoutMs: positive('rebalanceTimeoutMs', o.rebalanceTimeoutMs, maxPollIntervalMs),
    // Without a group there is nothing to auto-commit to (Java refuses the combination; we ignore it).
    enableAutoCommit: (o.enableAutoCommit ?? true) && o.groupId !== undefined,
    autoCommitIntervalMs: positive('autoCommitIntervalMs', o.autoCommitIntervalMs, 5_000),
    autoOffsetReset: reset,
    maxPollRecords: positive('maxPollRecords', o.maxPollRecords, 500),
    fetchMinBytes: positive('fetchMinBytes', o.fetchMinBytes, 1, 0),
    fetchMaxBytes: positive('fetchMaxBytes', o.fetchMaxBytes, 52_428_800),
    maxPartitionFetchBytes: positive('maxPartitionFetchBytes', o.maxPartitionFetchBytes, 1_048_576),
    fetchMaxWaitMs: positive('fetchMaxWaitMs', o.fetchMaxWaitMs, 500, 0),
    isolationLevel: isolation,
    assignors: o.assignors ?? DEFAULT_ASSIGNORS,
    requestTimeoutMs: positive('requestTimeoutMs', o.requestTimeoutMs, 30_000),
    retryBackoffMs: positive('retryBackoffMs', o.retryBackoffMs, 100, 0),
    metadataMaxAgeMs: positive('metadataMaxAgeMs', o.metadataMaxAgeMs, 300_000),
    clientRack: o.clientRack ?? null,
    scheduler: o.scheduler ?? systemScheduler,
    logger: o.logger ?? silentLogger,
    signal: o.signal,
    connectionFactory: o.connectionFactory,
  };
}
