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
import type { GroupCoordinatorService } from './group-coordinator-service.js';
import type { TransactionCoordinatorService } from './transaction-coordinator-service.js';
import type { ShareCoordinatorService } from './share-coordinator-service.js';
import type { BrokerMetrics } from './metrics/broker-metrics.js';
import type { ListenerInfo } from './listeners.js';
import type { CredentialStore } from './sasl/credential-store.js';
import type { PasswordCheckQueue } from './sasl/password-checks.js';
import type { AclStore } from './authorizer/acl-store.js';
import type { FetchSessionCache } from './fetch-sessions.js';
import type { SharePartitionManager } from './share/share-partition-manager.js';
import type { GroupConfigStore } from './group-configs/group-config-store.js';
import type { TimelineReader } from './flight-recorder/timeline-entry.js';
import type { RequestControls } from './test-controls/request-controls.js';

import { createSystemScheduler, isScheduler, type Clock, type Scheduler } from '../util/clock.js';

export type { Clock, Scheduler };

/**
 * The broker's one clock: it reads the time and runs every broker-side timer (the
 * coordinators' timers, transaction timeouts and marker retries, retention and the log
 * cleaner). Node's timers, unref'd: nothing pending keeps the process alive. Socket I/O
 * deadlines (connection.ts) and Fetch long-polls (handlers/fetch.ts) keep real time.
 */
export const systemClock: Scheduler = createSystemScheduler({ unref: true });

/** A clock given to Broker.start: a Scheduler as it is; one that only reads the time gets Node's timers (unref'd). */
export function brokerClock(clock: Clock | undefined): Scheduler {
  if (clock === undefined) return systemClock;
  return isScheduler(clock) ? clock : createSystemScheduler({ unref: true, clock });
}

export interface BrokerContext {
  readonly config: BrokerConfig;
  readonly storage: Storage;
  readonly log: Logger;
  /** Time and timers (see systemClock); a test's ManualScheduler drives every broker timer. */
  readonly clock: Scheduler;
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
  /** Incremental fetch sessions (KIP-227), shared by every listener's connections. */
  readonly fetchSessions: FetchSessionCache;
  /** The group coordinator and its runtime (timers, `__consumer_offsets`, parked replies). */
  readonly groups: GroupCoordinatorService;
  /** Share groups' share-partitions and share sessions (ShareFetch, ShareAcknowledge). */
  readonly shares: SharePartitionManager;
  /** The transaction coordinator and its runtime (`__transaction_state`, markers, timers). */
  readonly transactions: TransactionCoordinatorService;
  /** The share coordinator and its runtime (`__share_group_state`): the broker's persister of share-group state. */
  readonly shareState: ShareCoordinatorService;
  /** Counters the request path keeps (requests per API, traffic per topic). */
  readonly metrics: BrokerMetrics;
  /** The SASL users (SCRAM and PLAIN credentials): the data directory's, or in memory. */
  readonly credentials: CredentialStore;
  /** SASL/PLAIN's password checks, bounded broker-wide (they share libuv's thread pool with the storage). */
  readonly passwordChecks: PasswordCheckQueue;
  /** The ACLs and the authorizer; null when authorization is off (authorizer.class.name unset). */
  readonly acls: AclStore | null;
  /** The groups' own configs (IncrementalAlterConfigs on GROUP resources): the data directory's, or in memory. */
  readonly groupConfigs: GroupConfigStore;
  /** The groups' history (the flight recorder): recent timeline entries, and new ones as they are written. */
  readonly timeline: TimelineReader;
  /** Request and response hooks and injected faults (test controls); idle unless a test uses them. */
  readonly controls: RequestControls;
}

export interface AppendNotifier {
  /**
   * Resolves at the next append to any of the partitions (keys "topic/partition"), after
   * `timeoutMs`, or once `stop` calls the wake-up it is given (a request told to answer now).
   * No AbortController, event listener or DOMException per wait: every parked long-poll
   * Fetch waits here.
   */
  waitForAppend(keys: readonly string[], timeoutMs: number, stop?: (wake: () => void) => void): Promise<void>;
  notifyAppend(topic: string, partition: number): void;
}
