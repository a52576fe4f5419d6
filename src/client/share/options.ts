/**
 * Share consumer configuration: Kafka's share consumer config names in camelCase with Kafka
 * 4.4's defaults (ShareConsumerConfig), on top of the options every client takes. A share
 * consumer has no offsets, positions or assignor of its own: the broker acquires records
 * for it and the group coordinator assigns partitions.
 */
import { systemScheduler, type Scheduler } from '../../util/clock.js';
import { silentLogger, type Logger } from '../../util/log.js';
import { ConfigError } from '../errors.js';
import {
  choice, int, resolveCommonOptions, resolveTable, wireString, INT32_MAX,
  type CommonClientOptions, type OptionsOf, type ResolvedCommonOptions, type ResolvedOf,
} from '../options.js';
import { resolveSerdes, type Deserializers } from '../serdes.js';
import type { AnyDeserializers } from '../consumer/deserialize.js';
import type { AcknowledgementCommitCallback } from './acknowledgements.js';

/**
 * share.acknowledgement.mode: 'implicit' accepts what a poll() returned at the next poll()
 * or commit; 'explicit' has the application acknowledge() every record.
 */
export type AcknowledgementMode = 'implicit' | 'explicit';

const SHARE_CONSUMER_OPTIONS = {
  acknowledgementMode: choice<AcknowledgementMode>('implicit', ['implicit', 'explicit']),
  /** max.poll.records: at most this many records per poll(), and ShareFetch's MaxRecords. */
  maxPollRecords: int(500, 1),
  fetchMinBytes: int(1),
  fetchMaxBytes: int(52_428_800),
  fetchMaxWaitMs: int(500),
} as const;

export interface ShareConsumerOptions<K = Buffer, V = Buffer, H = Buffer> extends CommonClientOptions, OptionsOf<typeof SHARE_CONSUMER_OPTIONS> {
  /** group.id: the share group (required). */
  readonly groupId: string;
  /** key.deserializer / value.deserializer, and one for header values (../serdes.ts); each left out gives Buffers. */
  readonly deserializers?: Deserializers<K, V, H>;
  /** client.rack, sent when joining. */
  readonly clientRack?: string;
  /** Kafka's AcknowledgementCommitCallback: told the outcome of every acknowledgement sent (also settable later). */
  readonly onAcknowledgementCommit?: AcknowledgementCommitCallback;
  /** Aborting it closes the share consumer. */
  readonly signal?: AbortSignal;
}

export interface ResolvedShareConsumerOptions extends ResolvedCommonOptions, ResolvedOf<typeof SHARE_CONSUMER_OPTIONS> {
  readonly groupId: string;
  readonly clientRack: string | null;
  readonly scheduler: Scheduler;
  readonly logger: Logger;
  readonly signal: AbortSignal | undefined;
  readonly connectionFactory: ShareConsumerOptions['connectionFactory'];
  readonly deserializers: AnyDeserializers | null;
}

let clientSequence = 0;

export function resolveShareConsumerOptions<K, V, H>(o: ShareConsumerOptions<K, V, H>): ResolvedShareConsumerOptions {
  const common = resolveCommonOptions(o, `brook-share-consumer-${++clientSequence}`);
  const own = resolveTable(SHARE_CONSUMER_OPTIONS, o as unknown as Readonly<Record<string, unknown>>);
  const groupId = wireString('groupId', o.groupId);
  if (groupId === null) throw new ConfigError('groupId is required: a share consumer is always a member of a share group');
  if (common.requestTimeoutMs > INT32_MAX - own.fetchMaxWaitMs) throw new ConfigError('requestTimeoutMs + fetchMaxWaitMs must fit in an int32');
  if (o.onAcknowledgementCommit !== undefined && typeof o.onAcknowledgementCommit !== 'function') throw new ConfigError('onAcknowledgementCommit must be a function');
  return {
    ...common,
    ...own,
    groupId,
    clientRack: wireString('clientRack', o.clientRack),
    scheduler: o.scheduler ?? systemScheduler,
    logger: o.logger ?? silentLogger,
    signal: o.signal,
    connectionFactory: o.connectionFactory,
    deserializers: resolveSerdes('deserializers', o.deserializers as AnyDeserializers | undefined),
  };
}
