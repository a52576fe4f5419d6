import type { ConsumerGroupMigrationPolicy } from '../coordinator/types.js';
import type { ListenerList } from './listener-config.js';
import type { BrokerSslConfig } from './ssl-config.js';
import { DEFAULT_SASL_MAX_RECEIVE_SIZE } from './sasl/sasl-config.js';

/**
 * The broker's settings, named after Kafka's where one exists, with Kafka's defaults.
 */
export type FlushPolicy = 'always' | 'never' | { readonly intervalMs: number };

export interface BrokerConfig {
  /** Address to listen on, when `listeners` is not given. */
  readonly host: string;
  /** Port to listen on, when `listeners` is not given; 0 lets the OS choose (tests). */
  readonly port: number;
  /**
   * Kafka's `listeners`, e.g. `PLAINTEXT://0.0.0.0:9092` or `['PLAINTEXT://:9092',
   * 'LOCAL://127.0.0.1:0']` (an empty host: every interface; port 0: one the OS picks). When
   * given it replaces `host` and `port`. PLAINTEXT, SSL, SASL_PLAINTEXT and SASL_SSL listeners are served (listener-config.ts).
   */
  readonly listeners?: ListenerList;
  /** Kafka's `ssl.*` settings of the SSL listeners (ssl-config.ts). */
  readonly ssl?: BrokerSslConfig;
  /** Kafka's `listener.name.<name>.ssl.*`: per listener (by listener name), over `ssl`. */
  readonly listenerSsl?: Readonly<Record<string, BrokerSslConfig>>;
  /**
   * Kafka's `sasl.enabled.mechanisms` of the SASL_PLAINTEXT and SASL_SSL listeners: some of
   * PLAIN, SCRAM-SHA-256, SCRAM-SHA-512. No default: a SASL listener needs it (sasl/sasl-config.ts).
   */
  readonly saslEnabledMechanisms?: string | readonly string[];
  /** Kafka's `listener.name.<name>.sasl.enabled.mechanisms`: per listener (by listener name). */
  readonly listenerSaslEnabledMechanisms?: Readonly<Record<string, string | readonly string[]>>;
  /**
   * Kafka's `listener.name.<name>.<mechanism>.sasl.jaas.config`, by listener name, then
   * mechanism (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512): PLAIN's `user_<name>="<password>"`
   * options are users of that listener; SCRAM's is only checked (sasl/sasl-config.ts).
   */
  readonly listenerSaslJaasConfig?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  /** Kafka's `sasl.mechanism.inter.broker.protocol`: checked; no effect on a single broker. */
  readonly saslMechanismInterBrokerProtocol?: string;
  /** Kafka's `sasl.server.max.receive.size`: the largest request read before a SASL client has authenticated. */
  readonly saslServerMaxReceiveSize: number;
  /** Kafka's `advertised.listeners`: what Metadata names for each listener; defaults to `listeners`. */
  readonly advertisedListeners?: ListenerList;
  /** Kafka's `listener.security.protocol.map` (`NAME:PROTOCOL,...`); default: each protocol's own name. */
  readonly listenerSecurityProtocolMap?: string | Readonly<Record<string, string>>;
  /** Kafka's old `advertised.host.name`: the PLAINTEXT listener's advertised host, unless `advertisedListeners` is given. */
  readonly advertisedHost?: string;
  /** Directory of the file engine; null keeps everything in memory. */
  readonly dataDir: string | null;
  /** Kafka's `node.id`. */
  readonly nodeId: number;
  /** Kafka's `auto.create.topics.enable`. */
  readonly autoCreateTopics: boolean;
  /** Kafka's `num.partitions`: partitions of auto-created topics. */
  readonly numPartitions: number;
  /** Kafka's `group.initial.rebalance.delay.ms`. */
  readonly groupInitialRebalanceDelayMs: number;
  /** Kafka's `group.min.session.timeout.ms`. */
  readonly groupMinSessionTimeoutMs: number;
  /** Kafka's `group.max.session.timeout.ms`. */
  readonly groupMaxSessionTimeoutMs: number;
  /** Kafka's `group.max.size`. */
  readonly groupMaxSize: number;
  /**
   * Kafka's `group.coordinator.rebalance.protocols`: `classic` (required, as in Kafka) and
   * `consumer` (KIP-848: ConsumerGroupHeartbeat and ConsumerGroupDescribe answer
   * UNSUPPORTED_VERSION without it). Kafka also accepts `streams` and `share`, which Brook
   * takes and ignores (it has neither).
   */
  readonly groupCoordinatorRebalanceProtocols: readonly string[];
  /** Kafka's `group.consumer.session.timeout.ms`. */
  readonly groupConsumerSessionTimeoutMs: number;
  /** Kafka's `group.consumer.min.session.timeout.ms` (bounds the session timeout). */
  readonly groupConsumerMinSessionTimeoutMs: number;
  /** Kafka's `group.consumer.max.session.timeout.ms`. */
  readonly groupConsumerMaxSessionTimeoutMs: number;
  /** Kafka's `group.consumer.heartbeat.interval.ms`. */
  readonly groupConsumerHeartbeatIntervalMs: number;
  /** Kafka's `group.consumer.min.heartbeat.interval.ms` (bounds the heartbeat interval). */
  readonly groupConsumerMinHeartbeatIntervalMs: number;
  /** Kafka's `group.consumer.max.heartbeat.interval.ms`. */
  readonly groupConsumerMaxHeartbeatIntervalMs: number;
  /** Kafka's `group.consumer.max.size`. */
  readonly groupConsumerMaxSize: number;
  /**
   * Kafka's `group.consumer.assignment.interval.ms` (KIP-1263, Kafka 4.4): a consumer group
   * computes a new target assignment at most this often.
   */
  readonly groupConsumerAssignmentIntervalMs: number;
  /** Kafka's `group.consumer.min.assignment.interval.ms` (bounds the assignment interval). */
  readonly groupConsumerMinAssignmentIntervalMs: number;
  /** Kafka's `group.consumer.max.assignment.interval.ms`. */
  readonly groupConsumerMaxAssignmentIntervalMs: number;
  /** Kafka's `group.consumer.assignors`: built-in names (`uniform`, `range`); the first is the default. */
  readonly groupConsumerAssignors: readonly string[];
  /**
   * Kafka's `group.consumer.migration.policy`: which online conversions between classic and
   * consumer groups with members are allowed (`bidirectional`, the default, `upgrade`,
   * `downgrade`, `disabled`).
   */
  readonly groupConsumerMigrationPolicy: ConsumerGroupMigrationPolicy;
  /** Kafka's `offsets.retention.minutes`, in milliseconds. */
  readonly offsetsRetentionMs: number;
  /** Kafka's `offsets.retention.check.interval.ms`. */
  readonly offsetsRetentionCheckIntervalMs: number;
  /**
   * Kafka's `offsets.topic.segment.bytes` (Kafka: 100 MiB). Brook: 10 MiB. The cleaner
   * never touches the active segment, so smaller segments let `__consumer_offsets` shrink
   * sooner; below 1 MiB (tests) it becomes the topic's internal.segment.bytes.
   */
  readonly offsetsTopicSegmentBytes: number;
  /** Kafka's `transaction.max.timeout.ms`: the longest transaction.timeout.ms a producer may ask for. */
  readonly transactionMaxTimeoutMs: number;
  /**
   * Kafka's `add.partitions.to.txn.retry.backoff.ms` and `.max.ms`: a transaction-version-2
   * Produce whose partitions cannot join the transaction yet (CONCURRENT_TRANSACTIONS: the
   * previous transaction's markers are still being written) is retried by the broker every
   * `retryBackoffMs` for up to `retryBackoffMaxMs`, before the producer hears of it (and
   * would retry only after its retry.backoff.ms).
   */
  readonly addPartitionsToTxnRetryBackoffMs: number;
  readonly addPartitionsToTxnRetryBackoffMaxMs: number;
  /** Kafka's `transactional.id.expiration.ms`: idle transactional ids are forgotten after this. */
  readonly transactionalIdExpirationMs: number;
  /** Kafka's `transaction.abort.timed.out.transaction.cleanup.interval.ms`. */
  readonly transactionAbortTimedOutTransactionCleanupIntervalMs: number;
  /** Kafka's `transaction.remove.expired.transaction.cleanup.interval.ms`. */
  readonly transactionRemoveExpiredTransactionCleanupIntervalMs: number;
  /** Kafka's `transaction.state.log.num.partitions` (partitions of `__transaction_state` when created). */
  readonly transactionStateLogNumPartitions: number;
  /** Kafka's `transaction.state.log.segment.bytes` (Kafka: 100 MiB; Brook: 10 MiB, as offsets.topic.segment.bytes). */
  readonly transactionStateLogSegmentBytes: number;
  /** Kafka's `log.cleaner.enable`. */
  readonly logCleanerEnable: boolean;
  /** Kafka's `log.cleaner.backoff.ms`: the pause between passes of the log cleaner. */
  readonly logCleanerBackoffMs: number;
  /** Kafka's `socket.request.max.bytes`. */
  readonly maxRequestBytes: number;
  /** Kafka's `connections.max.idle.ms`. */
  readonly connectionsMaxIdleMs: number;
  /** Kafka's `max.connections`: more connections are closed at once (counted, logged). */
  readonly maxConnections: number;
  /**
   * Kafka's `socket.listen.backlog.size`: connections the kernel completes and queues before
   * the broker accepts them (capped by the kernel's net.core.somaxconn). Kafka: 50. Brook:
   * 511, Node's default: a burst of connections beyond the queue waits for the client's SYN
   * retransmission (1 s, then 3 s, ...).
   */
  readonly listenBacklog: number;
  /** When appended data is fsynced; 'always' makes acks=all wait for the disk. */
  readonly flush: FlushPolicy;
  /** Kafka's `log.retention.check.interval.ms`. */
  readonly retentionCheckIntervalMs: number;
  /** Broker-level defaults for topic configs (e.g. retention.ms), by topic config name. */
  readonly topicDefaults: Readonly<Record<string, string>>;
  /**
   * Port of the HTTP endpoint for operators (GET /metrics in Prometheus's format, GET /health)
   * on `host`; 0 lets the OS choose; null (the default) serves none.
   */
  readonly metricsPort: number | null;
  /**
   * Kafka's `authorizer.class.name`: `org.apache.kafka.metadata.authorizer.StandardAuthorizer`
   * turns authorization on (ACLs, authorizer/); null or '' (the default) allows everything.
   */
  readonly authorizerClassName: string | null;
  /** Kafka's `super.users`: principals allowed everything, `User:a;User:b` (or a list). */
  readonly superUsers: string | readonly string[];
  /** Kafka's `allow.everyone.if.no.acl.found`: allow what no ACL applies to (default false). */
  readonly allowEveryoneIfNoAclFound: boolean;
}

export const DEFAULT_BROKER_CONFIG: BrokerConfig = {
  host: '127.0.0.1',
  port: 9092,
  dataDir: './data',
  nodeId: 1,
  autoCreateTopics: true,
  numPartitions: 1,
  groupInitialRebalanceDelayMs: 3000,
  groupMinSessionTimeoutMs: 6000,
  groupMaxSessionTimeoutMs: 1_800_000,
  groupMaxSize: 2_147_483_647,
  groupCoordinatorRebalanceProtocols: ['classic', 'consumer'],
  groupConsumerSessionTimeoutMs: 45_000,
  groupConsumerMinSessionTimeoutMs: 45_000,
  groupConsumerMaxSessionTimeoutMs: 60_000,
  groupConsumerHeartbeatIntervalMs: 5000,
  groupConsumerMinHeartbeatIntervalMs: 5000,
  groupConsumerMaxHeartbeatIntervalMs: 15_000,
  groupConsumerMaxSize: 2_147_483_647,
  groupConsumerAssignmentIntervalMs: 1000,
  groupConsumerMinAssignmentIntervalMs: 0,
  groupConsumerMaxAssignmentIntervalMs: 15_000,
  groupConsumerAssignors: ['uniform', 'range'],
  groupConsumerMigrationPolicy: 'bidirectional',
  offsetsRetentionMs: 10_080 * 60_000,
  offsetsRetentionCheckIntervalMs: 600_000,
  offsetsTopicSegmentBytes: 10 * 1024 * 1024,
  transactionMaxTimeoutMs: 900_000,
  addPartitionsToTxnRetryBackoffMs: 20,
  addPartitionsToTxnRetryBackoffMaxMs: 100,
  transactionalIdExpirationMs: 604_800_000,
  transactionAbortTimedOutTransactionCleanupIntervalMs: 10_000,
  transactionRemoveExpiredTransactionCleanupIntervalMs: 3_600_000,
  transactionStateLogNumPartitions: 50,
  transactionStateLogSegmentBytes: 10 * 1024 * 1024,
  logCleanerEnable: true,
  logCleanerBackoffMs: 15_000,
  maxRequestBytes: 100 * 1024 * 1024,
  saslServerMaxReceiveSize: DEFAULT_SASL_MAX_RECEIVE_SIZE,
  connectionsMaxIdleMs: 10 * 60 * 1000,
  maxConnections: 10_000,
  listenBacklog: 511,
  flush: 'always',
  retentionCheckIntervalMs: 5 * 60 * 1000,
  topicDefaults: {},
  metricsPort: null,
  authorizerClassName: null,
  superUsers: '',
  allowEveryoneIfNoAclFound: false,
};

export function brokerConfig(overrides: Partial<BrokerConfig> = {}): BrokerConfig {
  return { ...DEFAULT_BROKER_CONFIG, ...overrides };
}

/** Group types Kafka's group.coordinator.rebalance.protocols accepts. */
const REBALANCE_PROTOCOLS = new Set(['classic', 'consumer', 'share', 'streams']);
const BUILTIN_CONSUMER_ASSIGNORS = new Set(['uniform', 'range']);

/**
 * Kafka's start-up checks of the group settings (KafkaConfig, GroupCoordinatorConfig), with
 * its messages; throws on the first that fails.
 */
export function validateGroupConfig(c: BrokerConfig): void {
  const require = (ok: boolean, message: string): void => {
    if (!ok) throw new Error(message);
  };
  for (const p of c.groupCoordinatorRebalanceProtocols) {
    require(REBALANCE_PROTOCOLS.has(p), `Invalid value ${p} for configuration group.coordinator.rebalance.protocols: String must be one of: classic, consumer, share, streams`);
  }
  require(c.groupCoordinatorRebalanceProtocols.includes('classic'), "Disabling the 'classic' protocol is not supported.");
  for (const a of c.groupConsumerAssignors) require(BUILTIN_CONSUMER_ASSIGNORS.has(a), `Class ${a} cannot be found (Brook has the built-in assignors uniform and range)`);
  require(c.groupConsumerAssignors.length > 0, 'group.consumer.assignors must name at least one assignor');
  const [hb, minHb, maxHb] = [c.groupConsumerHeartbeatIntervalMs, c.groupConsumerMinHeartbeatIntervalMs, c.groupConsumerMaxHeartbeatIntervalMs];
  const [st, minSt, maxSt] = [c.groupConsumerSessionTimeoutMs, c.groupConsumerMinSessionTimeoutMs, c.groupConsumerMaxSessionTimeoutMs];
  require(maxHb >= minHb, 'group.consumer.max.heartbeat.interval.ms must be greater than or equal to group.consumer.min.heartbeat.interval.ms');
  require(hb >= minHb, 'group.consumer.heartbeat.interval.ms must be greater than or equal to group.consumer.min.heartbeat.interval.ms');
  require(hb <= maxHb, 'group.consumer.heartbeat.interval.ms must be less than or equal to group.consumer.max.heartbeat.interval.ms');
  require(maxSt >= minSt, 'group.consumer.max.session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms');
  require(st >= minSt, 'group.consumer.session.timeout.ms must be greater than or equal to group.consumer.min.session.timeout.ms');
  require(st <= maxSt, 'group.consumer.session.timeout.ms must be less than or equal to group.consumer.max.session.timeout.ms');
  require(hb < st, 'group.consumer.heartbeat.interval.ms must be less than group.consumer.session.timeout.ms');
  const [ai, minAi, maxAi] = [c.groupConsumerAssignmentIntervalMs, c.groupConsumerMinAssignmentIntervalMs, c.groupConsumerMaxAssignmentIntervalMs];
  require(maxAi >= minAi, 'group.consumer.max.assignment.interval.ms must be greater than or equal to group.consumer.min.assignment.interval.ms');
  require(ai >= minAi, 'group.consumer.assignment.interval.ms must be greater than or equal to group.consumer.min.assignment.interval.ms');
  require(ai <= maxAi, 'group.consumer.assignment.interval.ms must be less than or equal to group.consumer.max.assignment.interval.ms');
}
