/**
 * The broker configs DescribeConfigs reports for this broker: the table's described entries
 * (broker-configs.ts), in its order, with Brook's values, sources and synonyms as Kafka
 * reports them, then the dynamic ones that set topic defaults (log.retention.ms,
 * message.max.bytes, ...), which IncrementalAlterConfigs and AlterConfigs may change; the
 * others are static (read-only).
 */
import { BROKER_CONFIG_ENTRIES, BROKER_TOPIC_DEFAULTS, DYNAMIC_BROKER_CONFIGS, reportedDefault } from './broker-configs.js';
import type { BrokerConfig } from './config.js';
import { TOPIC_DEFS_BY_BROKER_NAME } from '../storage/topic-configs.js';
import { connectionString } from './listener-config.js';
import type { ListenerInfo } from './listeners.js';
import { brokerSynonyms, ConfigSource, ConfigType, TYPE_CODES, type BrokerConfigLayers, type ConfigSynonym } from './topic-config-view.js';

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
    const def = BROKER_TOPIC_DEFAULTS.get(name)!.topic;
    const synonyms = brokerSynonyms(def, name, layers);
    // The value in force for this very name: log.retention.ms is null unless set (Kafka then
    // applies log.retention.hours, reported under its own name).
    const value = synonyms.find((s) => s.name === name)?.value ?? null;
    out.push({ name, value, type: TYPE_CODES[def.type], source: synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG, synonyms, readOnly: false });
  }
  return out;
}

/** Brook's flush policy as log.flush.interval.ms, which Kafka has instead: 'always' (fsync before acks=all) reads as 0. */
function flushIntervalMs(config: BrokerConfig): string {
  return config.flush === 'always' ? '0' : config.flush === 'never' ? '9223372036854775807' : String(config.flush.intervalMs);
}

/**
 * The values the table's entries do not hold: `listeners` name the ports they are bound to
 * (the configured ones may be 0), `advertised.listeners` what clients are told.
 */
function computed(name: string, config: BrokerConfig, listeners: readonly ListenerInfo[]): string | null | undefined {
  switch (name) {
    case 'listeners': return listeners.map((l) => connectionString(l.name, l.host, l.port)).join(',');
    case 'advertised.listeners': return listeners.map((l) => connectionString(l.name, l.advertisedHost, l.advertisedPort)).join(',');
    case 'broker.id': return String(config.nodeId);
    case 'log.flush.interval.ms': return flushIntervalMs(config);
    default: return undefined;
  }
}

/** One reported config: Kafka's default is its source unless the value differs or the config is one Kafka's brokers are always given. */
function entry(name: string, value: string | null, type: number, kafkaDefault: string | null, isStatic: boolean): BrokerConfigEntry {
  const isDefault = !isStatic && value === kafkaDefault;
  const source = isDefault ? ConfigSource.DEFAULT_CONFIG : ConfigSource.STATIC_BROKER_CONFIG;
  // As Kafka: the value in force first, then Kafka's default when there is one.
  const synonyms: ConfigSynonym[] = [];
  if (value !== null && !isDefault) synonyms.push({ name, value, source });
  if (kafkaDefault !== null) synonyms.push({ name, value: kafkaDefault, source: ConfigSource.DEFAULT_CONFIG });
  return { name, value, type, source, synonyms, readOnly: true };
}

/**
 * The reported broker configs. Settings Kafka leaves unset by default (log.retention.ms,
 * log.roll.ms: their effect comes from log.retention.hours, log.roll.hours) are reported as
 * Kafka reports them, null, unless a topic default was set for this broker.
 */
export function brokerConfigEntries(config: BrokerConfig, listeners: readonly ListenerInfo[], layers: BrokerConfigLayers): BrokerConfigEntry[] {
  const out: BrokerConfigEntry[] = [];
  for (const d of BROKER_CONFIG_ENTRIES) {
    if (d.kind === 'reported') {
      const value = d.value ?? computed(d.name, config, listeners) ?? null;
      out.push(entry(d.name, value, TYPE_CODES[d.kafkaType], d.kafkaDefault, d.static === true));
    } else if (d.kind === 'setting' && d.described !== undefined) {
      const value = computed(d.name, config, listeners) ?? d.type.format(config[d.option as keyof BrokerConfig]);
      out.push(entry(d.name, value, TYPE_CODES[d.type.kafkaType], reportedDefault(d), d.described.static === true));
    }
  }
  return [...out, ...topicDefaultEntries(layers)];
}
