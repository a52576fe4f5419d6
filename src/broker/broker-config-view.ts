/**
 * The broker configs DescribeConfigs reports for this broker: the ones clients and admin
 * tools ask about, with Brook's values. They are static (read-only): Brook does not take
 * dynamic broker config changes.
 */
import { DEFAULT_BROKER_CONFIG, type BrokerConfig } from './config.js';
import { connectionString } from './listener-config.js';
import type { ListenerInfo } from './listeners.js';
import { ConfigType } from './topic-config-view.js';
import { TOPIC_CONFIG_DEFAULTS } from '../storage/topic-configs.js';

export interface BrokerConfigEntry {
  readonly name: string;
  readonly value: string | null;
  readonly type: number;
  /** True when the value is Kafka's default rather than one set for this broker. */
  readonly isDefault: boolean;
  /**
   * Kafka's own default for the setting (its DEFAULT_CONFIG synonym), or null when Kafka has
   * none (log.dirs, log.retention.ms: Kafka then reports no default synonym).
   */
  readonly kafkaDefault: string | null;
}

/**
 * The reported broker configs. `listeners` name the ports they are bound to (the configured
 * ones may be 0), and advertise what clients are told. Settings Kafka leaves unset by default (log.retention.ms, log.roll.ms: their
 * effect comes from log.retention.hours, log.roll.hours) are reported as Kafka reports them,
 * null, unless a topic default was set for this broker.
 */
export function brokerConfigEntries(config: BrokerConfig, listeners: readonly ListenerInfo[]): BrokerConfigEntry[] {
  const topicDefault = (topicName: string): string => config.topicDefaults[topicName] ?? TOPIC_CONFIG_DEFAULTS[topicName] ?? '';
  const setTopicDefault = (topicName: string): string | null => config.topicDefaults[topicName] ?? null;
  const unset = (topicName: string): boolean => config.topicDefaults[topicName] === undefined;
  const protocols = config.groupCoordinatorRebalanceProtocols.join(',');
  const flushMs = config.flush === 'always' ? '0' : config.flush === 'never' ? '9223372036854775807' : String(config.flush.intervalMs);
  const entries: [string, string | null, number, boolean, string | null][] = [
    ['node.id', String(config.nodeId), ConfigType.INT, false, null],
    ['broker.id', String(config.nodeId), ConfigType.INT, false, '-1'],
    ['process.roles', 'broker,controller', ConfigType.LIST, false, null],
    // Kafka 4.4 describes these three as LIST (4.1 said STRING).
    ['listeners', listeners.map((l) => connectionString(l.name, l.host, l.port)).join(','), ConfigType.LIST, false, 'PLAINTEXT://:9092'],
    ['advertised.listeners', listeners.map((l) => connectionString(l.name, l.advertisedHost, l.advertisedPort)).join(','), ConfigType.LIST, false, null],
    ['log.dirs', config.dataDir, ConfigType.LIST, false, null],
    ['auto.create.topics.enable', String(config.autoCreateTopics), ConfigType.BOOLEAN, config.autoCreateTopics, 'true'],
    ['num.partitions', String(config.numPartitions), ConfigType.INT, config.numPartitions === 1, '1'],
    ['default.replication.factor', '1', ConfigType.INT, true, '1'],
    ['min.insync.replicas', '1', ConfigType.INT, true, '1'],
    ['offsets.topic.replication.factor', '1', ConfigType.SHORT, false, '3'],
    ['transaction.state.log.replication.factor', '1', ConfigType.SHORT, false, '3'],
    ['group.initial.rebalance.delay.ms', String(config.groupInitialRebalanceDelayMs), ConfigType.INT, config.groupInitialRebalanceDelayMs === 3000, '3000'],
    ['group.min.session.timeout.ms', String(config.groupMinSessionTimeoutMs), ConfigType.INT, config.groupMinSessionTimeoutMs === 6000, '6000'],
    ['group.max.session.timeout.ms', String(config.groupMaxSessionTimeoutMs), ConfigType.INT, config.groupMaxSessionTimeoutMs === 1800000, '1800000'],
    ['group.max.size', String(config.groupMaxSize), ConfigType.INT, config.groupMaxSize === 2147483647, '2147483647'],
    // Brook's own default: Kafka's also lists streams, which Brook does not have
    // (docs/ARCHITECTURE.md, deliberate differences).
    ['group.coordinator.rebalance.protocols', protocols, ConfigType.LIST, protocols === DEFAULT_BROKER_CONFIG.groupCoordinatorRebalanceProtocols.join(','), DEFAULT_BROKER_CONFIG.groupCoordinatorRebalanceProtocols.join(',')],
    ['group.consumer.session.timeout.ms', String(config.groupConsumerSessionTimeoutMs), ConfigType.INT, config.groupConsumerSessionTimeoutMs === 45000, '45000'],
    ['group.consumer.min.session.timeout.ms', String(config.groupConsumerMinSessionTimeoutMs), ConfigType.INT, config.groupConsumerMinSessionTimeoutMs === 45000, '45000'],
    ['group.consumer.max.session.timeout.ms', String(config.groupConsumerMaxSessionTimeoutMs), ConfigType.INT, config.groupConsumerMaxSessionTimeoutMs === 60000, '60000'],
    ['group.consumer.heartbeat.interval.ms', String(config.groupConsumerHeartbeatIntervalMs), ConfigType.INT, config.groupConsumerHeartbeatIntervalMs === 5000, '5000'],
    ['group.consumer.min.heartbeat.interval.ms', String(config.groupConsumerMinHeartbeatIntervalMs), ConfigType.INT, config.groupConsumerMinHeartbeatIntervalMs === 5000, '5000'],
    ['group.consumer.max.heartbeat.interval.ms', String(config.groupConsumerMaxHeartbeatIntervalMs), ConfigType.INT, config.groupConsumerMaxHeartbeatIntervalMs === 15000, '15000'],
    ['group.consumer.max.size', String(config.groupConsumerMaxSize), ConfigType.INT, config.groupConsumerMaxSize === 2147483647, '2147483647'],
    ['group.consumer.assignment.interval.ms', String(config.groupConsumerAssignmentIntervalMs), ConfigType.INT, config.groupConsumerAssignmentIntervalMs === 1000, '1000'],
    ['group.consumer.min.assignment.interval.ms', String(config.groupConsumerMinAssignmentIntervalMs), ConfigType.INT, config.groupConsumerMinAssignmentIntervalMs === 0, '0'],
    ['group.consumer.max.assignment.interval.ms', String(config.groupConsumerMaxAssignmentIntervalMs), ConfigType.INT, config.groupConsumerMaxAssignmentIntervalMs === 15000, '15000'],
    ['group.consumer.assignors', config.groupConsumerAssignors.join(','), ConfigType.LIST, config.groupConsumerAssignors.join(',') === 'uniform,range', 'uniform,range'],
    ['group.consumer.migration.policy', config.groupConsumerMigrationPolicy, ConfigType.STRING, config.groupConsumerMigrationPolicy === 'bidirectional', 'bidirectional'],
    ['socket.request.max.bytes', String(config.maxRequestBytes), ConfigType.INT, config.maxRequestBytes === 104857600, '104857600'],
    ['connections.max.idle.ms', String(config.connectionsMaxIdleMs), ConfigType.LONG, config.connectionsMaxIdleMs === 600000, '600000'],
    ['max.connections', String(config.maxConnections), ConfigType.INT, config.maxConnections === 2147483647, '2147483647'],
    ['message.max.bytes', topicDefault('max.message.bytes'), ConfigType.INT, unset('max.message.bytes'), '1048588'],
    ['log.retention.ms', setTopicDefault('retention.ms'), ConfigType.LONG, unset('retention.ms'), null],
    ['log.retention.bytes', topicDefault('retention.bytes'), ConfigType.LONG, unset('retention.bytes'), '-1'],
    ['log.segment.bytes', topicDefault('segment.bytes'), ConfigType.INT, unset('segment.bytes'), '1073741824'],
    ['log.roll.ms', setTopicDefault('segment.ms'), ConfigType.LONG, unset('segment.ms'), null],
    ['log.message.timestamp.type', topicDefault('message.timestamp.type'), ConfigType.STRING, unset('message.timestamp.type'), 'CreateTime'],
    ['log.retention.check.interval.ms', String(config.retentionCheckIntervalMs), ConfigType.LONG, config.retentionCheckIntervalMs === 300000, '300000'],
    // Brook's flush policy, which Kafka does not have: 'always' (fsync before acks=all) reads as 0.
    ['log.flush.interval.ms', flushMs, ConfigType.LONG, false, null],
    ['compression.type', 'producer', ConfigType.STRING, true, 'producer'],
    ['unclean.leader.election.enable', 'false', ConfigType.BOOLEAN, true, 'false'],
  ];
  return entries.map(([name, value, type, isDefault, kafkaDefault]) => ({ name, value, type, isDefault, kafkaDefault }));
}
