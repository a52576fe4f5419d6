/**
 * Consumer configuration: Kafka's consumer config names in camelCase, with Kafka 4's
 * defaults, on top of the options every client takes (../options.ts).
 */
import type { PartitionAssignor } from '../../assignors/types.js';
import { systemScheduler, type Scheduler } from '../../util/clock.js';
import { silentLogger, type Logger } from '../../util/log.js';
import { ConfigError } from '../errors.js';
import {
  bool, choice, int, resolveCommonOptions, resolveTable, wireString, INT32_MAX,
  type CommonClientOptions, type OptionsOf, type ResolvedCommonOptions, type ResolvedOf,
} from '../options.js';
import { resolveSerdes, type Deserializers } from '../serdes.js';
import { DEFAULT_ASSIGNORS } from './assignor-registry.js';
import type { AnyDeserializers } from './deserialize.js';

export type AutoOffsetReset = 'latest' | 'earliest' | 'none';
/** group.protocol: the classic JoinGroup/SyncGroup protocol, or KIP-848's consumer protocol (ConsumerGroupHeartbeat). */
export type GroupProtocol = 'classic' | 'consumer';
export type IsolationLevel = 'read_uncommitted' | 'read_committed';

const CONSUMER_OPTIONS = {
  /** group.protocol: 'classic' (Kafka's default) or 'consumer' (KIP-848, the broker assigns). */
  groupProtocol: choice<GroupProtocol>('classic', ['classic', 'consumer']),
  sessionTimeoutMs: int(45_000, 1),
  heartbeatIntervalMs: int(3_000, 1),
  /** max.poll.interval.ms: the longest time between polls before the member leaves the group. */
  maxPollIntervalMs: int(300_000, 1),
  /** Sent as JoinGroup's (or ConsumerGroupHeartbeat's) rebalance timeout; defaults to maxPollIntervalMs, as Java. */
  rebalanceTimeoutMs: int(300_000, 1),
  enableAutoCommit: bool(true),
  /** auto.commit.interval.ms (at least 1 ms here: 0 would commit in a busy loop). */
  autoCommitIntervalMs: int(5_000, 1),
  autoOffsetReset: choice<AutoOffsetReset>('latest', ['latest', 'earliest', 'none']),
  maxPollRecords: int(500, 1),
  fetchMinBytes: int(1),
  fetchMaxBytes: int(52_428_800),
  maxPartitionFetchBytes: int(1_048_576),
  fetchMaxWaitMs: int(500),
  isolationLevel: choice<IsolationLevel>('read_uncommitted', ['read_uncommitted', 'read_committed']),
} as const;

/** K, V and H: what the `deserializers` give for keys, values and header values (Buffer without them). */
export interface ConsumerOptions<K = Buffer, V = Buffer, H = Buffer> extends CommonClientOptions, OptionsOf<typeof CONSUMER_OPTIONS> {
  /** key.deserializer / value.deserializer, and one for header values (../serdes.ts); each left out gives Buffers. */
  readonly deserializers?: Deserializers<K, V, H>;
  /** group.id; without it only assign() works and nothing is committed. */
  readonly groupId?: string;
  /** group.instance.id: static membership. */
  readonly groupInstanceId?: string;
  /** partition.assignment.strategy: built-in names or instances (custom assignors), preferred first (classic protocol only). */
  readonly assignors?: readonly (string | PartitionAssignor)[];
  /** group.remote.assignor: the broker-side assignor the consumer protocol asks for ('uniform', 'range'); default: the broker's. */
  readonly groupRemoteAssignor?: string;
  /** client.rack, sent in the subscription. */
  readonly clientRack?: string;
  /** Aborting it closes the consumer. */
  readonly signal?: AbortSignal;
}

export interface ResolvedConsumerOptions extends ResolvedCommonOptions, ResolvedOf<typeof CONSUMER_OPTIONS> {
  readonly groupId: string | null;
  readonly groupInstanceId: string | null;
  readonly assignors: readonly (string | PartitionAssignor)[];
  readonly groupRemoteAssignor: string | null;
  readonly clientRack: string | null;
  readonly scheduler: Scheduler;
  readonly logger: Logger;
  readonly signal: AbortSignal | undefined;
  readonly connectionFactory: ConsumerOptions['connectionFactory'];
  /** Null without any deserializer: records are given out as decoded, with no extra step. */
  readonly deserializers: AnyDeserializers | null;
}

let clientSequence = 0;

/**
 * Options one group protocol has no use for, refused when given, as Java's ConsumerConfig
 * refuses them (CONSUMER_PROTOCOL_UNSUPPORTED_CONFIGS, CLASSIC_PROTOCOL_UNSUPPORTED_CONFIGS):
 * with the consumer protocol the broker assigns partitions and decides the session timeout
 * and heartbeat interval (group.consumer.session.timeout.ms, group.consumer.heartbeat.interval.ms).
 */
const UNSUPPORTED_OPTIONS: Record<GroupProtocol, readonly (keyof ConsumerOptions<unknown, unknown, unknown>)[]> = {
  classic: ['groupRemoteAssignor'],
  consumer: ['assignors', 'heartbeatIntervalMs', 'sessionTimeoutMs'],
};

export function resolveConsumerOptions<K, V, H>(o: ConsumerOptions<K, V, H>): ResolvedConsumerOptions {
  const common = resolveCommonOptions(o, `brook-consumer-${++clientSequence}`);
  // Only an absent rebalanceTimeoutMs follows maxPollIntervalMs: null is a bad value like any other.
  const own = resolveTable(CONSUMER_OPTIONS, { ...o, rebalanceTimeoutMs: o.rebalanceTimeoutMs === undefined ? o.maxPollIntervalMs : o.rebalanceTimeoutMs });
  const unsupported = UNSUPPORTED_OPTIONS[own.groupProtocol].filter((name) => o[name] !== undefined);
  if (unsupported.length > 0) throw new ConfigError(`${unsupported.join(', ')} cannot be set when groupProtocol is '${own.groupProtocol}'`);
  if (own.heartbeatIntervalMs >= own.sessionTimeoutMs) throw new ConfigError('heartbeatIntervalMs must be lower than sessionTimeoutMs');
  // JoinGroup and SyncGroup wait up to the rebalance timeout for their answer, plus a margin.
  if (own.rebalanceTimeoutMs > INT32_MAX - JOIN_RESPONSE_MARGIN_MS) {
    throw new ConfigError(`rebalanceTimeoutMs must be at most ${INT32_MAX - JOIN_RESPONSE_MARGIN_MS}`);
  }
  if (common.requestTimeoutMs > INT32_MAX - own.fetchMaxWaitMs) throw new ConfigError('requestTimeoutMs + fetchMaxWaitMs must fit in an int32');
  const groupId = wireString('groupId', o.groupId);
  return {
    ...common,
    ...own,
    groupId,
    groupInstanceId: wireString('groupInstanceId', o.groupInstanceId),
    // Without a group there is nothing to auto-commit to (Java refuses the combination; we ignore it).
    enableAutoCommit: own.enableAutoCommit && groupId !== null,
    assignors: o.assignors ?? DEFAULT_ASSIGNORS,
    groupRemoteAssignor: wireString('groupRemoteAssignor', o.groupRemoteAssignor),
    clientRack: wireString('clientRack', o.clientRack),
    scheduler: o.scheduler ?? systemScheduler,
    logger: o.logger ?? silentLogger,
    signal: o.signal,
    connectionFactory: o.connectionFactory,
    deserializers: resolveSerdes('deserializers', o.deserializers as AnyDeserializers | undefined),
  };
}

/** How much longer than the rebalance timeout a JoinGroup or SyncGroup may wait for its response. */
export const JOIN_RESPONSE_MARGIN_MS = 5_000;
