/**
 * The broker configs DescribeConfigs reports for this broker: the ones clients and admin
 * tools ask about, with Brook's values. They are static (read-only): Brook does not take
 * dynamic broker config changes.
 */
import { advertisedHost, type BrokerConfig } from './config.js';
import { ConfigType } from './topic-config-view.js';
import { TOPIC_CONFIG_DEFAULTS } from '../storage/topic-configs.js';

export interface BrokerConfigEntry {
  readonly name: string;
  readonly value: string | null;
  readonly type: number;
  /** True when the value is Kafka's default rather than one set for this broker. */
  readonly isDefault: boolean;
}

export function brokerConfigEntries(config: BrokerConfig): BrokerConfigEntry[] {
  const topicDefault = (topicName: string): string => config.topicDefaults[topicName] ?? TOPIC_CONFIG_DEFAULTS[topicName] ?? '';
  const flushMs = config.flush === 'always' ? '0' : config.flush === 'never' ? '9223372036854775807' : String(config.flush.intervalMs);
  const entries: [string, string | null, number, boolean][] = [
    ['node.id', String(config.nodeId), ConfigType.INT, false],
    ['broker.id', String(config.nodeId), ConfigType.INT, false],
    ['process.roles', 'broker,controller', ConfigType.LIST, false],
    ['listeners', `PLAINTEXT://${config.host}:${config.port}`, ConfigType.STRING, false],
    ['advertised.listeners', `PLAINTEXT://${advertisedHost(config)}:${config.port}`, ConfigType.STRING, false],
    ['log.dirs', config.dataDir, ConfigType.STRING, false],
    ['auto.create.topics.enable', String(config.autoCreateTopics), ConfigType.BOOLEAN, config.autoCreateTopics],
    ['num.partitions', String(config.numPartitions), ConfigType.INT, config.numPartitions === 1],
    ['default.replication.factor', '1', ConfigType.INT, true],
    ['min.insync.replicas', '1', ConfigType.INT, true],
    ['offsets.topic.replication.factor', '1', ConfigType.SHORT, false],
    ['transaction.state.log.replication.factor', '1', ConfigType.SHORT, false],
    ['group.initial.rebalance.delay.ms', String(config.groupInitialRebalanceDelayMs), ConfigType.INT, config.groupInitialRebalanceDelayMs === 3000],
    ['socket.request.max.bytes', String(config.maxRequestBytes), ConfigType.INT, config.maxRequestBytes === 104857600],
    ['connections.max.idle.ms', String(config.connectionsMaxIdleMs), ConfigType.LONG, config.connectionsMaxIdleMs === 600000],
    ['max.connections', String(config.maxConnections), ConfigType.INT, false],
    ['message.max.bytes', topicDefault('max.message.bytes'), ConfigType.INT, config.topicDefaults['max.message.bytes'] === undefined],
    ['log.retention.ms', topicDefault('retention.ms'), ConfigType.LONG, config.topicDefaults['retention.ms'] === undefined],
    ['log.retention.bytes', topicDefault('retention.bytes'), ConfigType.LONG, config.topicDefaults['retention.bytes'] === undefined],
    ['log.segment.bytes', topicDefault('segment.bytes'), ConfigType.INT, config.topicDefaults['segment.bytes'] === undefined],
    ['log.roll.ms', topicDefault('segment.ms'), ConfigType.LONG, config.topicDefaults['segment.ms'] === undefined],
    ['log.message.timestamp.type', topicDefault('message.timestamp.type'), ConfigType.STRING, config.topicDefaults['message.timestamp.type'] === undefined],
    ['log.retention.check.interval.ms', String(config.retentionCheckIntervalMs), ConfigType.LONG, config.retentionCheckIntervalMs === 300000],
    ['log.flush.interval.ms', flushMs, ConfigType.LONG, false],
    ['compression.type', 'producer', ConfigType.STRING, true],
    ['unclean.leader.election.enable', 'false', ConfigType.BOOLEAN, true],
  ];
  return entries.map(([name, value, type, isDefault]) => ({ name, value, type, isDefault }));
}
