/**
 * How CreateTopics and DescribeConfigs report a topic's configuration: storage knows every
 * topic config, its value and where it comes from; this maps that onto Kafka's
 * DescribeConfigs vocabulary (config sources, config types, synonyms).
 */
import { describeTopicConfigs, TOPIC_CONFIG_DEFS, type TopicConfigDef, type TopicConfigEntry } from '../storage/topic-configs.js';
import type { Storage, TopicConfigs } from '../storage/types.js';
import { kafkaBrokerDefault } from './broker-configs.js';

/** Kafka's DescribeConfigsResponse config sources. */
export const ConfigSource = {
  UNKNOWN: 0,
  DYNAMIC_TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
  DYNAMIC_BROKER_LOGGER_CONFIG: 6,
  CLIENT_METRICS_CONFIG: 7,
  GROUP_CONFIG: 8,
} as const;

/** Kafka's ConfigType codes (DescribeConfigs v3+). */
export const ConfigType = { UNKNOWN: 0, BOOLEAN: 1, STRING: 2, INT: 3, SHORT: 4, LONG: 5, DOUBLE: 6, LIST: 7, CLASS: 8, PASSWORD: 9 } as const;

export const TYPE_CODES = {
  int: ConfigType.INT, short: ConfigType.SHORT, long: ConfigType.LONG, double: ConfigType.DOUBLE, boolean: ConfigType.BOOLEAN, string: ConfigType.STRING,
  list: ConfigType.LIST, class: ConfigType.CLASS, password: ConfigType.PASSWORD,
} as const;

/** The broker's config layers, by broker config name, highest priority first (Kafka's DynamicBrokerConfig). */
export interface BrokerConfigLayers {
  /** Dynamic configs of this broker (resource name = its node id). */
  readonly dynamicBroker: TopicConfigs;
  /** Dynamic cluster-wide defaults (resource name ''). */
  readonly dynamicDefault: TopicConfigs;
  /** Topic defaults set at startup, by topic config name. */
  readonly staticTopicDefaults: TopicConfigs;
}

export interface ConfigSynonym {
  readonly name: string;
  readonly value: string;
  readonly source: number;
}

/**
 * Kafka's ConfigHelper.configSynonyms for a topic config's broker synonyms: every layer's
 * value of each synonym, dynamic per-broker first, then the dynamic default, static, and
 * Kafka's defaults; those before the first one named `primary` are dropped.
 */
export function brokerSynonyms(def: TopicConfigDef, primary: string, layers: BrokerConfigLayers): ConfigSynonym[] {
  const out: ConfigSynonym[] = [];
  const names = def.synonyms.map((s) => s.name);
  for (const name of names) {
    const v = layers.dynamicBroker[name];
    if (v !== undefined) out.push({ name, value: v, source: ConfigSource.DYNAMIC_BROKER_CONFIG });
  }
  for (const name of names) {
    const v = layers.dynamicDefault[name];
    if (v !== undefined) out.push({ name, value: v, source: ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG });
  }
  // Static topic defaults are kept by topic config name, converted to its first synonym's unit.
  const fromStatic = layers.staticTopicDefaults[def.name];
  if (fromStatic !== undefined && names[0] !== undefined) out.push({ name: names[0], value: fromStatic, source: ConfigSource.STATIC_BROKER_CONFIG });
  for (const name of names) {
    const v = kafkaBrokerDefault(name, def);
    if (v !== null) out.push({ name, value: v, source: ConfigSource.DEFAULT_CONFIG });
  }
  const first = out.findIndex((s) => s.name === primary);
  return first < 0 ? [] : out.slice(first);
}

export interface TopicConfigView {
  readonly name: string;
  readonly value: string;
  readonly source: number;
  readonly type: number;
  /** Where the value could come from, most specific first (DescribeConfigs synonyms). */
  readonly synonyms: ConfigSynonym[];
}

function view(entry: TopicConfigEntry, explicit: TopicConfigs, layers: BrokerConfigLayers): TopicConfigView {
  const def = TOPIC_CONFIG_DEFS.get(entry.name);
  const synonyms: ConfigSynonym[] = [];
  if (explicit[entry.name] !== undefined) synonyms.push({ name: entry.name, value: explicit[entry.name]!, source: ConfigSource.DYNAMIC_TOPIC_CONFIG });
  if (def && entry.serverDefaultName !== null) synonyms.push(...brokerSynonyms(def, entry.serverDefaultName, layers));
  const source = synonyms[0]?.source ?? ConfigSource.DEFAULT_CONFIG;
  return { name: entry.name, value: entry.value, source, type: def ? TYPE_CODES[def.type] : ConfigType.STRING, synonyms };
}

/** The layers of a broker whose storage holds its dynamic configs. */
export function brokerConfigLayers(storage: Storage, nodeId: number): BrokerConfigLayers {
  return { dynamicBroker: storage.brokerConfigs(String(nodeId)), dynamicDefault: storage.brokerConfigs(''), staticTopicDefaults: storage.staticTopicDefaults };
}

/** Every topic config Kafka describes, with value, source, type and synonyms. */
export function topicConfigViews(explicit: TopicConfigs, storage: Storage, nodeId: number): TopicConfigView[] {
  const layers = brokerConfigLayers(storage, nodeId);
  return describeTopicConfigs(explicit, storage.topicDefaults).map((e) => view(e, explicit, layers));
}
