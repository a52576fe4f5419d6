/**
 * The broker's configuration, one entry per setting: Kafka 4.4's name (Brook's own where Kafka
 * has none), the `Broker.start` option, the `brook broker` flag, the value type, the default
 * (Kafka's unless noted) with Kafka's where it differs, bounds with Kafka's messages, how
 * DescribeConfigs reports it, and a doc line. Everything else derives from this table: the
 * BrokerConfig type and its defaults and checks (config.ts), `--config` properties
 * (broker-properties.ts), the CLI's flags and --help (src/cli/commands/broker.ts), the
 * BROKER resource of DescribeConfigs and which configs IncrementalAlterConfigs may change
 * (broker-config-view.ts, config-changes.ts), and docs/CLI.md's tables
 * (scripts/generate-broker-config-docs.ts). The group and transaction coordinators keep
 * their own defaults; the entries that feed them take theirs from there.
 *
 * The order is DescribeConfigs': the described entries are reported in it. Besides the
 * settings, it holds the configs Brook reports but does not take (`reported`: a single
 * broker's replication settings, ...) and families of properties (`ssl.*`, ...) read by
 * broker-properties.ts. The broker configs that set topic defaults (log.retention.ms, ...)
 * come from storage's topic config table (BROKER_TOPIC_DEFAULTS below).
 */
import { DEFAULT_GROUP_COORDINATOR_CONFIG, type GroupCoordinatorConfig } from '../coordinator/types.js';
import { DEFAULT_TRANSACTION_COORDINATOR_CONFIG, type TransactionCoordinatorConfig } from '../coordinator/transactions/types.js';
import { TOPIC_CONFIG_DEFS, type TopicConfigDef } from '../storage/topic-configs.js';
import {
  atLeast, between, BOOLEAN, DATA_DIR, FLUSH, INT, isString, isStringOrList, LENIENT_BOOLEAN, LIST, LISTENER_LIST, LONG, MIGRATION_POLICY, nullable,
  PROTOCOL_MAP, record, STRING, textOrList, validList, type KafkaConfigType, type Problem, type ValueType,
} from './config-types.js';
import { DEFAULT_SASL_MAX_RECEIVE_SIZE } from './sasl/sasl-config.js';
import type { BrokerSslConfig } from './ssl-config.js';

/** A line of the docs for a property a family takes. */
export interface PropertyDoc {
  readonly names: readonly string[];
  readonly default?: string;
  readonly doc: string;
}

interface Common<K extends string, T> {
  /** The `Broker.start` option, a BrokerConfig key. */
  readonly option: K;
  readonly type: ValueType<T>;
  /** Brook's default; undefined for an optional setting. */
  readonly default: T;
  /** Whether the option may be absent (BrokerConfig's optional keys). */
  readonly optional: boolean;
  /** What it means, for the docs and --help (Markdown code spans only). */
  readonly doc: string;
}

/** A setting Kafka's name (or Brook's own) sets, in `--config` and as `Broker.start`'s option. */
export interface SettingDef<K extends string = string, T = unknown> extends Common<K, T> {
  readonly kind: 'setting';
  readonly name: string;
  /** Other names `--config` takes for it (as Kafka does: log.dir, broker.id). */
  readonly aliases: readonly string[];
  /** Kafka's default where Brook's differs, as text; null where Kafka has none. */
  readonly kafkaDefault?: string | null;
  /** Kafka's check of a value (after parsing), its message where it fails. */
  readonly check?: (value: T) => Problem | null;
  /** The option is the property's value times this (offsets.retention.minutes: in ms). */
  readonly scale?: number;
  /** The `brook broker` flag (`--NAME ARG`), parsed with `parse` when its text means something else than the property's. */
  readonly flag?: { readonly name: string; readonly arg: string; readonly parse?: (text: string, name: string) => T };
  /**
   * Reported by DescribeConfigs for the BROKER resource; `static`: always as
   * STATIC_BROKER_CONFIG; `brookDefault`: with Brook's default as DEFAULT_CONFIG, not Kafka's.
   */
  readonly described?: { readonly static?: boolean; readonly brookDefault?: boolean };
  /** A setting of Brook's own, which Kafka does not have. */
  readonly brookOnly?: boolean;
  /** The default in the docs where it is not a value (none, the listeners), or a note after it. */
  readonly defaultDoc?: string;
  readonly defaultNote?: string;
  /** The group coordinator's or transaction coordinator's setting it is (and takes its default from). */
  readonly group?: keyof GroupCoordinatorConfig;
  readonly transaction?: keyof TransactionCoordinatorConfig;
}

/** An option filled from a family of properties (`ssl.*`, `listener.name.<name>.ssl.*`, ...). */
export interface FamilyDef<K extends string = string, T = unknown> extends Common<K, T> {
  readonly kind: 'family';
  /** The properties, for the docs and --help. */
  readonly properties: readonly PropertyDoc[];
}

/**
 * A config DescribeConfigs reports that Brook does not take: a fixed value, or one the view
 * computes (`value` undefined: broker.id, log.flush.interval.ms).
 */
export interface ReportedDef {
  readonly kind: 'reported';
  readonly name: string;
  readonly kafkaType: KafkaConfigType;
  readonly value?: string;
  readonly kafkaDefault: string | null;
  readonly static?: boolean;
}

type Extra<T> = Omit<SettingDef<string, T>, 'kind' | 'option' | 'name' | 'type' | 'default' | 'optional' | 'aliases' | 'doc'> & { readonly aliases?: readonly string[] };

function setting<K extends string, T>(option: K, name: string, type: ValueType<T>, dflt: T, doc: string, extra: Extra<T> = {}): SettingDef<K, T> & { readonly optional: false } {
  return { kind: 'setting', option, name, type, default: dflt, optional: false, doc, ...extra, aliases: extra.aliases ?? [] };
}

function optional<K extends string, T>(option: K, name: string, type: ValueType<T>, doc: string, extra: Extra<T> = {}): SettingDef<K, T> & { readonly optional: true } {
  return { kind: 'setting', option, name, type, default: undefined as T, optional: true, doc, ...extra, aliases: extra.aliases ?? [] };
}

/** A setting of the group coordinator (GroupCoordinatorConfig), with its default. */
function group<K extends string, G extends keyof GroupCoordinatorConfig>(
  option: K, name: string, type: ValueType<GroupCoordinatorConfig[G]>, field: G, doc: string, extra: Extra<GroupCoordinatorConfig[G]> = {},
): SettingDef<K, GroupCoordinatorConfig[G]> & { readonly optional: false } {
  const dflt = DEFAULT_GROUP_COORDINATOR_CONFIG[field];
  return setting(option, name, type, dflt, doc, { described: {}, ...extra, group: field });
}

/** A setting of the transaction coordinator (TransactionCoordinatorConfig), with its default. */
function transaction<K extends string, F extends keyof TransactionCoordinatorConfig>(
  option: K, name: string, field: F, doc: string,
): SettingDef<K, number> & { readonly optional: false } {
  return setting(option, name, INT, DEFAULT_TRANSACTION_COORDINATOR_CONFIG[field], doc, { check: atLeast(1), transaction: field });
}

function family<K extends string, T>(option: K, type: ValueType<T>, doc: string, properties: readonly PropertyDoc[]): FamilyDef<K, T> & { readonly optional: true } {
  return { kind: 'family', option, type, default: undefined as T, optional: true, doc, properties };
}

function reported(name: string, kafkaType: KafkaConfigType, value: string | undefined, kafkaDefault: string | null, isStatic = false): ReportedDef {
  return { kind: 'reported', name, kafkaType, value, kafkaDefault, static: isStatic };
}

/** Group types Kafka's group.coordinator.rebalance.protocols accepts (in its order); classic cannot be left out. */
const rebalanceProtocols = (protocols: readonly string[]): Problem | null =>
  validList('group.coordinator.rebalance.protocols', 'consumer', 'classic', 'share', 'streams')(protocols)
  ?? (protocols.includes('classic') ? null : { message: "Disabling the 'classic' protocol is not supported." });

/** Kafka takes assignor classes; Brook has the two built-in ones Kafka also names uniform and range. */
const BUILTIN_CONSUMER_ASSIGNORS = ['uniform', 'range'];
const consumerAssignors = (names: readonly string[]): Problem | null => {
  if (names.length === 0) return { message: "Configuration 'group.consumer.assignors' must not be empty. Valid values include: any non-empty value" };
  const unknown = names.find((a) => !BUILTIN_CONSUMER_ASSIGNORS.includes(a));
  return unknown === undefined ? null : { item: unknown, why: 'Class cannot be found (Brook has the built-in assignors uniform and range)' };
};

/**
 * Kafka takes `simple` (its built-in SimpleAssignor's name) or ShareGroupPartitionAssignor
 * classes, exactly one (GroupCoordinatorConfig); Brook has the built-in one.
 */
const SHARE_ASSIGNOR_CLASS = 'org.apache.kafka.coordinator.group.assignor.SimpleAssignor';
const shareAssignors = (names: readonly string[]): Problem | null => {
  if (names.length === 0) return { message: "Configuration 'group.share.assignors' must not be empty. Valid values include: any non-empty value" };
  const unknown = names.find((a) => a !== 'simple' && a !== SHARE_ASSIGNOR_CLASS);
  if (unknown !== undefined) return { item: unknown, why: 'Class cannot be found (Brook has the built-in assignor simple)' };
  return names.length === 1 ? null : { message: `group.share.assignors must contain exactly one assignor, but found ${names.length}` };
};

const MIB = 1024 * 1024;
const positive = { check: atLeast(1) };

/** Every broker setting, reported config and property family, in DescribeConfigs' order. */
export const BROKER_CONFIG_DEFS = [
  setting('nodeId', 'node.id', INT, 1, "the broker's node id", { aliases: ['broker.id'], kafkaDefault: null, described: { static: true } }),
  reported('broker.id', 'int', undefined, '-1', true),
  reported('process.roles', 'list', 'broker,controller', null, true),
  setting('host', 'host', STRING, '127.0.0.1', 'address to listen on, when `listeners` is not given', { brookOnly: true, flag: { name: 'host', arg: 'HOST' } }),
  setting('port', 'port', INT, 9092, 'port to listen on, when `listeners` is not given; `0` lets the OS choose one (the ready line names it)', {
    brookOnly: true, flag: { name: 'port', arg: 'PORT' },
  }),
  // Kafka 4.4 describes listeners and advertised.listeners as LIST (4.1 said STRING); the
  // view reports the bound ports (the configured ones may be 0) and what clients are told.
  optional('listeners', 'listeners', LISTENER_LIST, '`NAME://HOST:PORT,...`, e.g. `PLAINTEXT://0.0.0.0:9092,SSL://:9093` (an empty host: every interface); replaces `host` and `port`', {
    kafkaDefault: 'PLAINTEXT://:9092', defaultDoc: '`PLAINTEXT://host:port`', described: { static: true }, flag: { name: 'listeners', arg: 'LIST' },
  }),
  optional('advertisedListeners', 'advertised.listeners', LISTENER_LIST, 'what Metadata names for each listener, with the syntax of `listeners`', {
    kafkaDefault: null, defaultDoc: 'the listeners', described: { static: true }, flag: { name: 'advertised-listeners', arg: 'LIST' },
  }),
  optional('listenerSecurityProtocolMap', 'listener.security.protocol.map', PROTOCOL_MAP,
    'listener name to security protocol, `NAME:PROTOCOL,...`; PLAINTEXT, SSL, SASL_PLAINTEXT and SASL_SSL are served', { defaultDoc: "each protocol's own name" }),
  optional('advertisedHost', 'advertised.host.name', STRING,
    "Kafka's old setting: the PLAINTEXT listener's advertised host, unless `advertised.listeners` is set", { defaultDoc: 'the listening host' }),
  family('ssl', record<BrokerSslConfig>(isString, 'ssl.* settings'), "the SSL listeners' TLS settings (ssl-config.ts)", [
    { names: ['ssl.keystore.type', 'ssl.truststore.type'], default: '`PEM`', doc: 'only `PEM`' },
    { names: ['ssl.keystore.location'], doc: 'PEM file: certificate chain, then private key (SSL listeners)' },
    { names: ['ssl.keystore.certificate.chain', 'ssl.keystore.key'], doc: 'the same as inline PEM' },
    { names: ['ssl.key.password'], doc: 'password of an encrypted private key' },
    { names: ['ssl.truststore.location', 'ssl.truststore.certificates'], doc: 'CAs client certificates must chain to (file, or inline PEM)' },
    { names: ['ssl.client.auth'], default: '`none`', doc: '`required`, `requested` or `none`' },
    { names: ['ssl.endpoint.identification.algorithm'], doc: 'taken and ignored: on a broker it concerns only connections between brokers' },
  ]),
  family('listenerSsl', record<Readonly<Record<string, BrokerSslConfig>>>((v) => record(isString, '').accepts(v), 'ssl.* settings by listener name'),
    "`ssl.*` settings of one listener, over the broker's", [{ names: ['listener.name.<name>.ssl.*'], doc: 'any `ssl.*` setting above for one listener' }]),
  optional('saslEnabledMechanisms', 'sasl.enabled.mechanisms', textOrList('list'),
    'the mechanisms of the SASL listeners: some of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512 (required by a SASL listener: Brook does not serve GSSAPI)', {
      kafkaDefault: 'GSSAPI', defaultDoc: 'none',
    }),
  family('listenerSaslEnabledMechanisms', record<Readonly<Record<string, string | readonly string[]>>>(isStringOrList, 'mechanisms by listener name'),
    'the SASL mechanisms of one listener', [{ names: ['listener.name.<name>.sasl.enabled.mechanisms'], doc: '`sasl.enabled.mechanisms` for one listener' }]),
  family('listenerSaslJaasConfig', record<Readonly<Record<string, Readonly<Record<string, string>>>>>((v) => record(isString, '').accepts(v), 'JAAS settings by listener, then mechanism'),
    "a listener's JAAS setting for one mechanism", [{
      names: ['listener.name.<name>.<mechanism>.sasl.jaas.config'],
      doc: 'PLAIN: its `user_NAME="PASSWORD"` options are users of the listener; SCRAM-SHA-256, SCRAM-SHA-512: checked only',
    }]),
  optional('saslMechanismInterBrokerProtocol', 'sasl.mechanism.inter.broker.protocol', STRING, 'checked (one of Kafka\'s mechanisms); no effect on a single broker', {
    kafkaDefault: 'GSSAPI', defaultDoc: 'none',
  }),
  setting('saslServerMaxReceiveSize', 'sasl.server.max.receive.size', INT, DEFAULT_SASL_MAX_RECEIVE_SIZE,
    'the largest request read before a SASL client has authenticated', positive),
  setting('dataDir', 'log.dirs', DATA_DIR, './data',
    'where topics, `__consumer_offsets` and the catalog live (layout: `src/storage/README.md`); of a list, the first is used; the library option `dataDir: null` keeps them in memory (the CLI always takes a path)', {
      aliases: ['log.dir'], kafkaDefault: null, described: { static: true }, flag: { name: 'data-dir', arg: 'DIR', parse: (text) => text },
    }),
  setting('autoCreateTopics', 'auto.create.topics.enable', BOOLEAN, true, 'create unknown topics on Produce and Metadata', { described: {} }),
  setting('numPartitions', 'num.partitions', INT, 1, 'partitions of auto-created topics', { ...positive, described: {} }),
  setting('maxIncrementalFetchSessionCacheSlots', 'max.incremental.fetch.session.cache.slots', INT, 1000,
    'incremental fetch sessions (KIP-227) the broker keeps, split over 8 shards as Kafka does; `0`: none (every Fetch is a full one)', {
      check: atLeast(0), described: {},
    }),
  reported('default.replication.factor', 'int', '1', '1'),
  reported('min.insync.replicas', 'int', '1', '1'),
  reported('offsets.topic.replication.factor', 'short', '1', '3'),
  reported('transaction.state.log.replication.factor', 'short', '1', '3'),
  group('groupInitialRebalanceDelayMs', 'group.initial.rebalance.delay.ms', INT, 'initialRebalanceDelayMs',
    'how long a new classic group waits for more members before its first rebalance', { flag: { name: 'group-initial-rebalance-delay-ms', arg: 'MS' } }),
  group('groupMinSessionTimeoutMs', 'group.min.session.timeout.ms', INT, 'minSessionTimeoutMs', 'the shortest session timeout a classic group member may ask for', {
    flag: { name: 'group-min-session-timeout-ms', arg: 'MS' },
  }),
  group('groupMaxSessionTimeoutMs', 'group.max.session.timeout.ms', INT, 'maxSessionTimeoutMs', 'the longest session timeout a classic group member may ask for', {
    flag: { name: 'group-max-session-timeout-ms', arg: 'MS' },
  }),
  group('groupMaxSize', 'group.max.size', INT, 'maxGroupSize', 'members of a classic group', { ...positive, defaultNote: 'unbounded', flag: { name: 'group-max-size', arg: 'N' } }),
  setting('groupCoordinatorRebalanceProtocols', 'group.coordinator.rebalance.protocols', LIST, ['classic', 'consumer', 'streams'],
    '`consumer` serves KIP-848 consumer groups (ConsumerGroupHeartbeat), `streams` KIP-1071 streams groups (StreamsGroupHeartbeat); `classic` is required; `share` is accepted and ignored (share groups are served whatever it says, as Kafka 4.4 serves them with its `share.version` feature)', {
      check: rebalanceProtocols, described: {},
    }),
  group('groupConsumerSessionTimeoutMs', 'group.consumer.session.timeout.ms', INT, 'consumerGroupSessionTimeoutMs',
    'a consumer-protocol member silent this long is removed; within the min and max below', positive),
  setting('groupConsumerMinSessionTimeoutMs', 'group.consumer.min.session.timeout.ms', INT, 45_000, 'lower bound of the session timeout', { ...positive, described: {} }),
  setting('groupConsumerMaxSessionTimeoutMs', 'group.consumer.max.session.timeout.ms', INT, 60_000, 'upper bound of the session timeout', { ...positive, described: {} }),
  group('groupConsumerHeartbeatIntervalMs', 'group.consumer.heartbeat.interval.ms', INT, 'consumerGroupHeartbeatIntervalMs',
    'heartbeat interval given to consumer-protocol members; below the session timeout, within the min and max below', positive),
  setting('groupConsumerMinHeartbeatIntervalMs', 'group.consumer.min.heartbeat.interval.ms', INT, 5000, 'lower bound of the heartbeat interval', { ...positive, described: {} }),
  setting('groupConsumerMaxHeartbeatIntervalMs', 'group.consumer.max.heartbeat.interval.ms', INT, 15_000, 'upper bound of the heartbeat interval', { ...positive, described: {} }),
  group('groupConsumerMaxSize', 'group.consumer.max.size', INT, 'consumerGroupMaxSize', 'members of a consumer group', { ...positive, defaultNote: 'unbounded' }),
  group('groupConsumerAssignmentIntervalMs', 'group.consumer.assignment.interval.ms', INT, 'consumerGroupAssignmentIntervalMs',
    'a consumer group computes a new target assignment at most this often (KIP-1263); within the min and max below', { check: atLeast(0) }),
  setting('groupConsumerMinAssignmentIntervalMs', 'group.consumer.min.assignment.interval.ms', INT, 0, 'lower bound of the assignment interval', {
    check: atLeast(0), described: {},
  }),
  setting('groupConsumerMaxAssignmentIntervalMs', 'group.consumer.max.assignment.interval.ms', INT, 15_000, 'upper bound of the assignment interval', {
    check: atLeast(0), described: {},
  }),
  group('groupConsumerAssignors', 'group.consumer.assignors', LIST, 'consumerGroupAssignors',
    'server-side assignors members may select (`uniform`, `range`); the first is the default', { check: consumerAssignors }),
  group('groupConsumerMigrationPolicy', 'group.consumer.migration.policy', MIGRATION_POLICY, 'consumerGroupMigrationPolicy',
    '`disabled`, `upgrade`, `downgrade`, `bidirectional`: which online conversions of a non-empty group between the classic and consumer protocols are allowed'),
  group('groupShareSessionTimeoutMs', 'group.share.session.timeout.ms', INT, 'shareGroupSessionTimeoutMs',
    'a share group member silent this long is removed; within the min and max below', positive),
  setting('groupShareMinSessionTimeoutMs', 'group.share.min.session.timeout.ms', INT, 45_000, 'lower bound of the share session timeout', { ...positive, described: {} }),
  setting('groupShareMaxSessionTimeoutMs', 'group.share.max.session.timeout.ms', INT, 60_000, 'upper bound of the share session timeout', { ...positive, described: {} }),
  group('groupShareHeartbeatIntervalMs', 'group.share.heartbeat.interval.ms', INT, 'shareGroupHeartbeatIntervalMs',
    'heartbeat interval given to share group members; below the session timeout, within the min and max below', positive),
  setting('groupShareMinHeartbeatIntervalMs', 'group.share.min.heartbeat.interval.ms', INT, 5000, 'lower bound of the share heartbeat interval', { ...positive, described: {} }),
  setting('groupShareMaxHeartbeatIntervalMs', 'group.share.max.heartbeat.interval.ms', INT, 15_000, 'upper bound of the share heartbeat interval', { ...positive, described: {} }),
  group('groupShareMaxSize', 'group.share.max.size', INT, 'shareGroupMaxSize', 'members of a share group (1 to 1000)', { check: between(1, 1000) }),
  group('groupShareAssignors', 'group.share.assignors', LIST, 'shareGroupAssignors', 'the share groups\' server-side assignor (`simple`); exactly one', { check: shareAssignors }),
  group('groupShareAssignmentIntervalMs', 'group.share.assignment.interval.ms', INT, 'shareGroupAssignmentIntervalMs',
    'a share group computes a new target assignment at most this often (KIP-1263); within the min and max below', { check: atLeast(0) }),
  setting('groupShareMinAssignmentIntervalMs', 'group.share.min.assignment.interval.ms', INT, 0, 'lower bound of the share assignment interval', {
    check: atLeast(0), described: {},
  }),
  setting('groupShareMaxAssignmentIntervalMs', 'group.share.max.assignment.interval.ms', INT, 15_000, 'upper bound of the share assignment interval', {
    check: atLeast(0), described: {},
  }),
  // Internal in Kafka (defineInternal): DescribeConfigs does not list it.
  group('groupShareInitializeRetryIntervalMs', 'group.share.initialize.retry.interval.ms', INT, 'shareGroupInitializeRetryIntervalMs',
    'share partitions whose state initialization has not completed after this long are asked for again', { ...positive, described: undefined }),
  group('groupStreamsSessionTimeoutMs', 'group.streams.session.timeout.ms', INT, 'streamsGroupSessionTimeoutMs',
    'a streams group member silent this long is removed; within the min and max below', positive),
  setting('groupStreamsMinSessionTimeoutMs', 'group.streams.min.session.timeout.ms', INT, 45_000, 'lower bound of the streams session timeout', { ...positive, described: {} }),
  setting('groupStreamsMaxSessionTimeoutMs', 'group.streams.max.session.timeout.ms', INT, 60_000, 'upper bound of the streams session timeout', { ...positive, described: {} }),
  group('groupStreamsHeartbeatIntervalMs', 'group.streams.heartbeat.interval.ms', INT, 'streamsGroupHeartbeatIntervalMs',
    'heartbeat interval given to streams group members; below the session timeout, within the min and max below', positive),
  setting('groupStreamsMinHeartbeatIntervalMs', 'group.streams.min.heartbeat.interval.ms', INT, 5000, 'lower bound of the streams heartbeat interval', { ...positive, described: {} }),
  setting('groupStreamsMaxHeartbeatIntervalMs', 'group.streams.max.heartbeat.interval.ms', INT, 15_000, 'upper bound of the streams heartbeat interval', { ...positive, described: {} }),
  group('groupStreamsMaxSize', 'group.streams.max.size', INT, 'streamsGroupMaxSize', 'members of a streams group', { ...positive, defaultNote: 'unbounded' }),
  group('groupStreamsNumStandbyReplicas', 'group.streams.num.standby.replicas', INT, 'streamsGroupNumStandbyReplicas',
    'standby replicas of each stateful task of a streams group; at most the max below', { check: atLeast(0) }),
  setting('groupStreamsMaxStandbyReplicas', 'group.streams.max.standby.replicas', INT, 2, 'upper bound of the standby replicas', { check: atLeast(0), described: {} }),
  group('groupStreamsInitialRebalanceDelayMs', 'group.streams.initial.rebalance.delay.ms', INT, 'streamsGroupInitialRebalanceDelayMs',
    "how long a new streams group waits for more members before its first target assignment", { check: atLeast(0) }),
  group('groupStreamsAssignmentIntervalMs', 'group.streams.assignment.interval.ms', INT, 'streamsGroupAssignmentIntervalMs',
    'a streams group computes a new target assignment at most this often; at most 15 s (Kafka\'s group.streams.max.assignment.interval.ms)', { check: atLeast(0) }),
  setting('offsetsRetentionMs', 'offsets.retention.minutes', INT, DEFAULT_GROUP_COORDINATOR_CONFIG.offsetsRetentionMs,
    'committed offsets expire this long after their group became Empty (for a group without members: after the commit); the option is in milliseconds', {
      ...positive, scale: 60_000, group: 'offsetsRetentionMs', defaultNote: '7 days',
    }),
  setting('offsetsRetentionCheckIntervalMs', 'offsets.retention.check.interval.ms', LONG, DEFAULT_GROUP_COORDINATOR_CONFIG.offsetsRetentionCheckIntervalMs,
    'how often expired offsets are removed', { ...positive, group: 'offsetsRetentionCheckIntervalMs' }),
  // The cleaner never touches the active segment, so smaller segments let __consumer_offsets
  // shrink sooner; below 1 MiB (tests) it becomes the topic's internal.segment.bytes.
  setting('offsetsTopicSegmentBytes', 'offsets.topic.segment.bytes', INT, 10 * MIB, 'segment size of `__consumer_offsets` when the broker creates it', {
    ...positive, kafkaDefault: String(100 * MIB),
  }),
  // The flight recorder: every group transition as a JSON record of __brook_group_timeline.
  // A week or 256 MiB (whichever is reached first) holds a laptop's history and a busy
  // production broker's last days of rebalances.
  setting('groupTimelineEnable', 'group.timeline.enable', BOOLEAN, true,
    'record every group transition (rebalances, expiries, fencing, static replacements, conversions) in `__brook_group_timeline`, read by `brook groups timeline` and the console', {
      brookOnly: true,
    }),
  setting('groupTimelineRetentionMs', 'group.timeline.retention.ms', LONG, 7 * 24 * 3_600_000, '`retention.ms` of `__brook_group_timeline` when the broker creates it', {
    check: atLeast(-1), brookOnly: true,
  }),
  setting('groupTimelineRetentionBytes', 'group.timeline.retention.bytes', LONG, 256 * MIB, '`retention.bytes` of `__brook_group_timeline` when the broker creates it', {
    check: atLeast(-1), brookOnly: true,
  }),
  transaction('transactionMaxTimeoutMs', 'transaction.max.timeout.ms', 'transactionMaxTimeoutMs', 'the longest `transaction.timeout.ms` a producer may ask for'),
  // A transaction-version-2 Produce whose partitions cannot join the transaction yet
  // (CONCURRENT_TRANSACTIONS: the previous transaction's markers are still being written) is
  // retried by the broker every backoff for up to the max, before the producer hears of it.
  setting('addPartitionsToTxnRetryBackoffMs', 'add.partitions.to.txn.retry.backoff.ms', INT, 20,
    "how often the broker retries adding a Produce's partitions to a transaction whose previous markers are still being written", positive),
  setting('addPartitionsToTxnRetryBackoffMaxMs', 'add.partitions.to.txn.retry.backoff.max.ms', INT, 100,
    'how long it retries before the producer is answered CONCURRENT_TRANSACTIONS', { check: atLeast(0) }),
  transaction('transactionalIdExpirationMs', 'transactional.id.expiration.ms', 'transactionalIdExpirationMs', 'idle transactional ids are forgotten after this long'),
  transaction('transactionAbortTimedOutTransactionCleanupIntervalMs', 'transaction.abort.timed.out.transaction.cleanup.interval.ms',
    'abortTimedOutTransactionCleanupIntervalMs', 'how often timed-out transactions are aborted'),
  transaction('transactionRemoveExpiredTransactionCleanupIntervalMs', 'transaction.remove.expired.transaction.cleanup.interval.ms',
    'removeExpiredTransactionalIdsCleanupIntervalMs', 'how often expired transactional ids are removed'),
  setting('transactionStateLogNumPartitions', 'transaction.state.log.num.partitions', INT, 50, 'partitions of `__transaction_state` when the broker creates it', positive),
  setting('transactionStateLogSegmentBytes', 'transaction.state.log.segment.bytes', INT, 10 * MIB, 'segment size of `__transaction_state` when the broker creates it', {
    ...positive, kafkaDefault: String(100 * MIB),
  }),
  setting('shareCoordinatorStateTopicNumPartitions', 'share.coordinator.state.topic.num.partitions', INT, 50, 'partitions of `__share_group_state` when the broker creates it', positive),
  setting('shareCoordinatorStateTopicSegmentBytes', 'share.coordinator.state.topic.segment.bytes', INT, 10 * MIB, 'segment size of `__share_group_state` when the broker creates it', {
    ...positive, kafkaDefault: String(100 * MIB),
  }),
  setting('shareCoordinatorSnapshotUpdateRecordsPerSnapshot', 'share.coordinator.snapshot.update.records.per.snapshot', INT, 500,
    'ShareUpdate records the share coordinator writes for a share-partition between two ShareSnapshot records', { check: between(0, 500) }),
  setting('shareCoordinatorStateTopicPruneIntervalMs', 'share.coordinator.state.topic.prune.interval.ms', INT, 300_000,
    'how often the share coordinator deletes the records of `__share_group_state` before the oldest snapshot a share-partition still needs', { check: atLeast(1) }),
  setting('shareCoordinatorColdPartitionSnapshotIntervalMs', 'share.coordinator.cold.partition.snapshot.interval.ms', INT, 300_000,
    'how often the share coordinator snapshots the share-partitions whose last snapshot is at least this old, so that they do not hold the prune point back', { check: atLeast(1) }),
  // Share groups' share-partitions (ShareFetch, ShareAcknowledge); the group-level settings
  // and their bounds, as Kafka's ShareGroupConfig.
  setting('groupShareRecordLockDurationMs', 'group.share.record.lock.duration.ms', INT, 30_000,
    'how long a share group member holds the records it acquired before they are released again', { check: between(1000, 3_600_000) }),
  setting('groupShareMinRecordLockDurationMs', 'group.share.min.record.lock.duration.ms', INT, 15_000, 'the smallest record lock duration a share group may have', { check: between(1000, 30_000) }),
  setting('groupShareMaxRecordLockDurationMs', 'group.share.max.record.lock.duration.ms', INT, 60_000, 'the largest record lock duration a share group may have', { check: between(30_000, 3_600_000) }),
  setting('groupShareDeliveryCountLimit', 'group.share.delivery.count.limit', INT, 5,
    'deliveries of a record to share group members after which it is archived instead of made available again', { check: between(2, 10) }),
  // The share groups' dead-letter queue topics (errors.deadletterqueue.topic.name, KIP-1191).
  setting('errorsDeadLetterQueueAutoCreateTopicsEnable', 'errors.deadletterqueue.auto.create.topics.enable', BOOLEAN, false,
    'create a share group\'s dead-letter queue topic when it does not exist (with `errors.deadletterqueue.group.enable=true`)', { described: {} }),
  setting('errorsDeadLetterQueueTopicNamePrefix', 'errors.deadletterqueue.topic.name.prefix', STRING, 'dlq.',
    'the prefix a share group\'s dead-letter queue topic must have to be written; empty: any name', { described: {} }),
  setting('groupShareMinDeliveryCountLimit', 'group.share.min.delivery.count.limit', INT, 2, 'the smallest delivery count limit a share group may have', { check: between(2, 5) }),
  setting('groupShareMaxDeliveryCountLimit', 'group.share.max.delivery.count.limit', INT, 10, 'the largest delivery count limit a share group may have', { check: between(5, 25) }),
  setting('groupSharePartitionMaxRecordLocks', 'group.share.partition.max.record.locks', INT, 2000,
    'records of a share-partition in flight (acquired, or delivered and not yet finished) beyond which no new record is acquired', { check: between(100, 10_000) }),
  setting('groupShareMinPartitionMaxRecordLocks', 'group.share.min.partition.max.record.locks', INT, 100, 'the smallest max record locks a share group may have', { check: between(100, 2000) }),
  setting('groupShareMaxPartitionMaxRecordLocks', 'group.share.max.partition.max.record.locks', INT, 4000, 'the largest max record locks a share group may have', { check: between(2000, 10_000) }),
  setting('groupShareMaxShareSessions', 'group.share.max.share.sessions', INT, 2000, 'share sessions (one per share group member fetching) the broker keeps at once', positive),
  setting('logCleanerEnable', 'log.cleaner.enable', BOOLEAN, true, 'run the log cleaner (compaction of `cleanup.policy=compact` topics)'),
  setting('logCleanerBackoffMs', 'log.cleaner.backoff.ms', LONG, 15_000, 'pause between log cleaner passes', { check: atLeast(0) }),
  setting('maxRequestBytes', 'socket.request.max.bytes', INT, 100 * MIB, 'largest request frame; a larger size prefix closes the connection', { ...positive, described: {} }),
  setting('connectionsMaxIdleMs', 'connections.max.idle.ms', LONG, 600_000,
    'a connection with nothing in flight, no complete request and no response bytes taken by the client for this long is closed; '
    + 'unlike Kafka, the bytes of a request that never completes do not count (slow-loris clients are closed too); negative: never', { described: {} }),
  setting('maxConnections', 'max.connections', INT, 10_000,
    'connections open at once; more are closed as soon as they are accepted (Kafka stops accepting instead), counted and logged once per burst', {
      check: atLeast(0), kafkaDefault: '2147483647', described: {},
    }),
  setting('numNetworkThreads', 'num.network.threads', INT, 1,
    'threads that read and write the sockets of the PLAINTEXT and SASL_PLAINTEXT listeners while the event loop handles requests; '
    + 'Brook runs at most one (any value above 0 means one); `0`: sockets on the event loop. SSL listeners keep their sockets on the event loop', {
      check: atLeast(0), kafkaDefault: '3', described: {},
    }),
  // Kafka's 50 makes a burst of connections beyond the queue wait for the client's SYN
  // retransmission (1 s, then 3 s, ...); 511 is Node's default.
  setting('listenBacklog', 'socket.listen.backlog.size', INT, 511, 'connections the kernel queues before the broker accepts them (capped by `net.core.somaxconn`)', {
    ...positive, kafkaDefault: '50',
  }),
  setting('retentionCheckIntervalMs', 'log.retention.check.interval.ms', LONG, 300_000, 'how often retention deletes old segments', { ...positive, described: {} }),
  setting('flush', 'log.flush.policy', FLUSH, 'always',
    '`always` (fsync before an `acks=all` answer), `never`, or a number of ms between fsyncs (answers do not wait)', { brookOnly: true }),
  // Brook's flush policy, which Kafka does not have: 'always' (fsync before acks=all) reads as 0.
  reported('log.flush.interval.ms', 'long', undefined, null, true),
  reported('compression.type', 'string', 'producer', 'producer'),
  reported('unclean.leader.election.enable', 'boolean', 'false', 'false'),
  {
    ...family('topicDefaults', record<Readonly<Record<string, string>>>(isString, 'topic configs by name'),
      'broker-level defaults of topic configs, by topic config name (from the broker configs that set them)', []),
    default: {}, optional: false,
  } as const,
  setting('metricsPort', 'metrics.port', nullable(INT), null,
    'serve `GET /metrics` (Prometheus text format) and `GET /health` over HTTP on the first listener\'s host and this port; `0` lets the OS choose', {
      check: (port) => (port === null ? null : atLeast(0)(port)), brookOnly: true, defaultDoc: 'none', flag: { name: 'metrics-port', arg: 'PORT' },
    }),
  setting('consolePort', 'console.port', nullable(INT), null,
    'serve the web console (groups, lag, the rebalance timeline) over HTTP on `console.host` and this port; `0` lets the OS choose', {
      check: (port) => (port === null ? null : atLeast(0)(port)), brookOnly: true, defaultDoc: 'none', flag: { name: 'console-port', arg: 'PORT' },
    }),
  setting('consoleHost', 'console.host', STRING, '127.0.0.1', 'address the web console listens on (`0.0.0.0`: every interface)', {
    brookOnly: true, flag: { name: 'console-host', arg: 'HOST' },
  }),
  setting('consoleWritesEnable', 'console.writes.enable', BOOLEAN, false,
    'let the web console reset an Empty group\'s offsets and delete groups (with the ACLs the Kafka APIs need); `false`: it only reads', {
      brookOnly: true, flag: { name: 'console-writes', arg: 'BOOL' },
    }),
  setting('authorizerClassName', 'authorizer.class.name', { ...nullable(STRING), kafkaType: 'class' }, null,
    '`org.apache.kafka.metadata.authorizer.StandardAuthorizer` turns authorization (ACLs) on', { defaultDoc: 'none' }),
  setting('superUsers', 'super.users', textOrList('string'), '', '`;`-separated principals allowed everything (`User:ANONYMOUS`, `User:<DN>`)', { defaultDoc: 'none' }),
  setting('allowEveryoneIfNoAclFound', 'allow.everyone.if.no.acl.found', LENIENT_BOOLEAN, false, 'allow what no ACL applies to'),
] as const;

type Defs = (typeof BROKER_CONFIG_DEFS)[number];
type OptionDefs = Exclude<Defs, ReportedDef>;
type ValueOf<D> = D extends { readonly type: ValueType<infer T> } ? T : never;

/**
 * The broker's settings, by `Broker.start` option name (Kafka's name in camelCase where it
 * has one): the table's entries, with their value types.
 */
export type BrokerSettings =
  { readonly [D in OptionDefs as D['optional'] extends true ? never : D['option']]: ValueOf<D> }
  & { readonly [D in OptionDefs as D['optional'] extends true ? D['option'] : never]?: ValueOf<D> };

export type { FlushPolicy } from './config-types.js';

export type AnySettingDef = SettingDef<string, unknown>;
export type AnyOptionDef = AnySettingDef | FamilyDef<string, unknown>;

const ALL = BROKER_CONFIG_DEFS as readonly (AnyOptionDef | ReportedDef)[];

/** The settings and families, by option name. */
export const OPTION_DEFS: ReadonlyMap<string, AnyOptionDef> = new Map(
  ALL.filter((d): d is AnyOptionDef => d.kind !== 'reported').map((d) => [d.option, d]),
);

/** The settings, by every name `--config` takes for them. */
export const SETTING_DEFS_BY_PROPERTY: ReadonlyMap<string, AnySettingDef> = new Map(
  ALL.filter((d): d is AnySettingDef => d.kind === 'setting').flatMap((d) => [d.name, ...d.aliases].map((name) => [name, d] as const)),
);

/** Every entry, in DescribeConfigs' order. */
export const BROKER_CONFIG_ENTRIES: readonly (AnyOptionDef | ReportedDef)[] = ALL;

/** A setting's default as Kafka's text (the property's, in its unit); null when there is none. */
export function defaultText(def: AnySettingDef): string | null {
  if (def.default === undefined) return null;
  const value = def.scale === undefined ? def.default : (def.default as number) / def.scale;
  return def.type.format(value);
}

/** Kafka's default of a setting, as text; null when Kafka has none. */
export function kafkaDefaultText(def: AnySettingDef): string | null {
  return def.kafkaDefault !== undefined ? def.kafkaDefault : defaultText(def);
}

/** The default DescribeConfigs reports (the DEFAULT_CONFIG synonym): Kafka's, unless the table says Brook's; null for none. */
export function reportedDefault(def: AnySettingDef): string | null {
  return def.described?.brookDefault === true ? defaultText(def) : kafkaDefaultText(def);
}

/**
 * Kafka's own defaults of the broker configs that set topic defaults, where they differ from
 * the topic config's default under its first synonym: log.retention.ms, log.roll.ms and
 * log.roll.jitter.ms have none (the hours settings carry it), nor has log.flush.interval.ms.
 */
const BROKER_TOPIC_DEFAULT_OVERRIDES: ReadonlyMap<string, string | null> = new Map([
  ['log.retention.ms', null], ['log.retention.hours', '168'],
  ['log.roll.ms', null], ['log.roll.hours', '168'],
  ['log.roll.jitter.ms', null], ['log.roll.jitter.hours', '0'],
  ['log.flush.interval.ms', null],
]);

/** A broker config that sets a topic config's default (log.retention.hours → retention.ms). */
export interface BrokerTopicDefaultDef {
  readonly name: string;
  readonly topic: TopicConfigDef;
  /** Kafka's default of the broker config; null when it has none. */
  readonly default: string | null;
  /**
   * Whether IncrementalAlterConfigs and AlterConfigs may set it on the BROKER resource: the
   * first synonym of a topic config Brook implements (Kafka's DynamicLogConfig takes the
   * others too; Brook refuses them as configs that cannot be updated dynamically).
   */
  readonly dynamic: boolean;
}

/** Kafka's default of a broker config that sets a topic default; null when it has none. */
export function kafkaBrokerDefault(brokerName: string, def: TopicConfigDef): string | null {
  if (BROKER_TOPIC_DEFAULT_OVERRIDES.has(brokerName)) return BROKER_TOPIC_DEFAULT_OVERRIDES.get(brokerName)!;
  return def.synonyms[0]?.name === brokerName ? def.default : null;
}

/** Every broker config that sets a topic default, by name (storage's topic config table's synonyms). */
export const BROKER_TOPIC_DEFAULTS: ReadonlyMap<string, BrokerTopicDefaultDef> = new Map(
  [...TOPIC_CONFIG_DEFS.values()].filter((d) => !d.internal).flatMap((topic) => topic.synonyms.map((s, i): [string, BrokerTopicDefaultDef] => [s.name, {
    name: s.name, topic, default: kafkaBrokerDefault(s.name, topic), dynamic: topic.implemented && i === 0 && s.scale === undefined,
  }])),
);

/** The broker configs Brook changes at runtime (IncrementalAlterConfigs, AlterConfigs). */
export const DYNAMIC_BROKER_CONFIGS: ReadonlySet<string> = new Set([...BROKER_TOPIC_DEFAULTS.values()].filter((d) => d.dynamic).map((d) => d.name));
