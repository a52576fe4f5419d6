/**
 * The broker configs DescribeConfigs reports for this broker: the ones clients and admin
 * tools ask about, with Brook's values, sources and synonyms as Kafka reports them. Those
 * that set topic defaults (log.retention.ms, message.max.bytes, ...) may be changed
 * dynamically (IncrementalAlterConfigs, AlterConfigs); the others are static (read-only).
 */
import { DEFAULT_BROKER_CONFIG, type BrokerConfig } from './config.js';
import { connectionString } from './listener-config.js';
import type { ListenerInfo } from './listeners.js';
import { brokerSynonyms, ConfigSource, ConfigType, TYPE_CODES, type BrokerConfigLayers, type ConfigSynonym } from './topic-config-view.js';
import { TOPIC_DEFS_BY_BROKER_NAME } from '../storage/topic-configs.js';

export interface BrokerConfigEntry {
  readonly name: string;
  readonly value: string | null;
  readonly type: number;
  readonly source: number;
  /** Every synonym, most specific first (reported when the request asks for synonyms). */
  readonly synonyms: ConfigSynonym[];
  /** False for the configs Brook takes dynamically. */
  readonly readOnly: boolean;
}

/**
 * The broker configs Brook changes at runtime: those that set the default of a topic config
 * Brook implements. Kafka takes many more dynamically (listeners, thread pools, quotas,
 * TLS); Brook refuses those as configs that cannot be updated dynamically.
 */
export const DYNAMIC_BROKER_CONFIGS: ReadonlySet<string> = new Set(
  [...TOPIC_DEFS_BY_BROKER_NAME].filter(([, def]) => def.implemented).map(([name]) => name),
);

/** The dynamic configs of one resource ('' = the cluster default), as Kafka describes the cluster-default broker resource. */
export function dynamicDefaultEntries(configs: Readonly<Record<string, string>>): BrokerConfigEntry[] {
  return Object.entries(configs).map(([name, value]) => {
    const def = TOPIC_DEFS_BY_BROKER_NAME.get(name);
    const synonym = { name, value, source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG };
    return { name, value, type: def ? TYPE_CODES[def.type] : ConfigType.STRING, source: synonym.source, synonyms: [synonym], readOnly: !DYNAMIC_BROKER_CONFIGS.has(name) };
  });
}

/** The broker configs that set the defaults of implemented topic configs, with every layer. */
function topicDefaultEntries(layers: BrokerConfigLayers): BrokerConfigEntry[] {
  const out: BrokerConfigEntry[] = [];
  for (const name of DYNAMIC_BROKER_CONFIGS) {
    const def = TOPIC_DEFS_BY_BROKER_NAME.get(name)!;
    const synonyms = brokerSynonyms(def, name, layers);
    // The value in force for this very name: log.retention.ms is null unless set (Kafka then
    // applies log.retention.hours, reported under its own name).
    const value = synonyms.find((s) => s.name === name)?.value ?? null;
    out.push({ name, value, type: TYPE_CODES[def.type], source: synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG, synonyms, readOnly: false });
  }
  return out;
}

/**
 * The reported broker configs. `listeners` name the ports they are bound to (the configured
 * ones may be 0), and advertise what clients are told. Settings Kafka leaves unset by default (log.retention.ms, log.roll.ms: their
 * effect comes from log.retention.hours, log.roll.hours) are reported as Kafka reports them,
 * null, unless a topic default was set for this broker.
 */
export function brokerConfigEntries(config: BrokerConfig, listeners: readonly ListenerInfo[], layers: BrokerConfigLayers): BrokerConfigEntry[] {
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
    ['log.retention.check.interval.ms', String(config.retentionCheckIntervalMs), ConfigType.LONG, config.retentionCheckIntervalMs === 300000, '300000'],
    // Brook's flush policy, which Kafka does not have: 'always' (fsync before acks=all) reads as 0.
    ['log.flush.interval.ms', flushMs, ConfigType.LONG, false, null],
    ['compression.type', 'producer', ConfigType.STRING, true, 'producer'],
    ['unclean.leader.election.enable', 'false', ConfigType.BOOLEAN, true, 'false'],
  ];
  const fixed = entries.map(([name, value, type, isDefault, kafkaDefault]): BrokerConfigEntry => {
    const source = isDefault ? ConfigSource.DEFAULT_CONFIG : ConfigSource.STATIC_BROKER_CONFIG;
    // As Kafka: the value in force first, then Kafka's default when there is one.
    const synonyms: ConfigSynonym[] = [];
    if (value !== null && !isDefault) synonyms.push({ name, value, source });
    if (kafkaDefault !== null) synonyms.push({ name, value: kafkaDefault, source: ConfigSource.DEFAULT_CONFIG });
    return { name, value, type, source, synonyms, readOnly: true };
  });
  return [...fixed, ...topicDefaultEntries(layers)];
}
