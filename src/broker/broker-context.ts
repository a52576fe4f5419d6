/**
 * What every handler may use: configuration, storage, the clock, the logger, the handler
 * table (for ApiVersions), topic auto-creation and the wake-ups that long-poll fetches
 * wait on.
 */
import type { BrokerConfig } from './config.js';
import type { Storage, TopicMetadata } from '../storage/types.js';
import type { ReadBufferPool } from '../storage/read-buffer-pool.js';
import type { Logger } from '../util/log.js';
import type { ApiHandler } from './handler.js';
import type { CoordinatorRuntime } from './coordinator-runtime.js';
import type { TransactionRuntime } from './transaction-runtime.js';
import type { BrokerMetrics } from './metrics/broker-metrics.js';
import type { ListenerInfo } from './listeners.js';
import type { CredentialStore } from './sasl/credential-store.js';
import type { PasswordCheckQueue } from './sasl/password-checks.js';
import type { AclStore } from './authorizer/acl-store.js';

import type { Clock } from '../util/clock.js';

export type { Clock };

export const systemClock: Clock = { nowMs: () => Date.now() };

export interface BrokerContext {
  readonly config: BrokerConfig;
  readonly storage: Storage;
  readonly log: Logger;
  readonly clock: Clock;
  /**
   * Host and port clients should connect to: the advertised address of the listener the
   * request came in on (each listener's connections get their own copy of the context).
   */
  readonly advertisedHost: string;
  readonly advertisedPort: number;
  /** Every listener of the broker (DescribeConfigs reports them). */
  readonly listeners: readonly ListenerInfo[];
  /** Handlers by API key. */
  readonly handlers: ReadonlyMap<number, ApiHandler>;
  /**
   * The topic, created with the broker's defaults when auto-creation allows it.
   * Returns undefined for an unknown topic that may not be created.
   */
  topicForProduceOrMetadata(name: string, allowAutoCreate: boolean): TopicMetadata | undefined;
  /** Long-poll fetches park here; produce calls `notifyAppend` after each append. */
  readonly appends: AppendNotifier;
  /** Fetch reads are copied into these and released once the response is written. */
  readonly readBuffers: ReadBufferPool;
  /** The group coordinator and its runtime (timers, `__consumer_offsets`, parked replies). */
  readonly groups: CoordinatorRuntime;
  /** The transaction coordinator and its runtime (`__transaction_state`, markers, timers). */
  readonly transactions: TransactionRuntime;
  /** Counters the request path keeps (requests per API, traffic per topic). */
  readonly metrics: BrokerMetrics;
  /** The SASL users (SCRAM and PLAIN credentials): the data directory's, or in memory. */
  readonly credentials: CredentialStore;
  /** SASL/PLAIN's password checks, bounded broker-wide (they share libuv's thread pool with the storage). */
  readonly passwordChecks: PasswordCheckQueue;
  /** The ACLs and the authorizer; null when authorization is off (authorizer.class.name unset). */
  readonly acls: AclStore | null;
}

export interface AppendNotifier {
  /** Resolves at the next append to any of the partitions (keys "topic/partition"), or on abort. */
  waitForAppend(keys: readonly string[], signal: AbortSignal): Promise<void>;
  notifyAppend(topic: string, partition: number): void;
}
