/**
 * How CreateTopics and DescribeConfigs report a topic's configuration: storage knows every
 * topic config, its value and where it comes from; this maps that onto Kafka's
 * DescribeConfigs vocabulary (config sources, config types, synonyms).
 */
import { describeTopicConfigs, TOPIC_CONFIG_DEFS, type TopicConfigEntry } from '../storage/topic-configs.js';
import type { TopicConfigs } from '../storage/types.js';

/** Kafka's DescribeConfigsResponse config sources. */
export const ConfigSource = {
  UNKNOWN: 0,
  DYNAMIC_TOPIC_CONFIG: 1,
  DYNAMIC_BROKER_CONFIG: 2,
  DYNAMIC_DEFAULT_BROKER_CONFIG: 3,
  STATIC_BROKER_CONFIG: 4,
  DEFAULT_CONFIG: 5,
} as const;

/** Kafka's ConfigType codes (DescribeConfigs v3+). */
export const ConfigType = { UNKNOWN: 0, BOOLEAN: 1, STRING: 2, INT: 3, SHORT: 4, LONG: 5, DOUBLE: 6, LIST: 7, CLASS: 8, PASSWORD: 9 } as const;

const TYPE_CODES = { int: ConfigType.INT, long: ConfigType.LONG, double: ConfigType.DOUBLE, boolean: ConfigType.BOOLEAN, string: ConfigType.STRING, list: ConfigType.LIST } as const;

/**
 * Broker settings that have no default in Kafka (the value in force comes from another
 * synonym, e.g. log.retention.hours, or from a built-in): Kafka lists no DEFAULT_CONFIG
 * synonym under them.
 */
const NO_SERVER_DEFAULT: ReadonlySet<string> = new Set(['log.retention.ms', 'log.roll.ms', 'log.roll.jitter.ms', 'log.flush.interval.ms']);

export interface TopicConfigView {
  readonly name: string;
  readonly value: string;
  readonly source: number;
  readonly type: number;
  /** Where the value could come from, most specific first (DescribeConfigs synonyms). */
  readonly synonyms: { name: string; value: string; source: number }[];
}

function view(entry: TopicConfigEntry, explicit: TopicConfigs, brokerDefaults: TopicConfigs): TopicConfigView {
  const def = TOPIC_CONFIG_DEFS.get(entry.name);
  const source = entry.source === 'topic' ? ConfigSource.DYNAMIC_TOPIC_CONFIG
    : entry.source === 'broker' ? ConfigSource.STATIC_BROKER_CONFIG : ConfigSource.DEFAULT_CONFIG;
  const synonyms: TopicConfigView['synonyms'] = [];
  if (explicit[entry.name] !== undefined) synonyms.push({ name: entry.name, value: explicit[entry.name]!, source: ConfigSource.DYNAMIC_TOPIC_CONFIG });
  if (entry.serverDefaultName !== null) {
    if (brokerDefaults[entry.name] !== undefined) {
      synonyms.push({ name: entry.serverDefaultName, value: brokerDefaults[entry.name]!, source: ConfigSource.STATIC_BROKER_CONFIG });
    }
    if (def?.default != null && !NO_SERVER_DEFAULT.has(entry.serverDefaultName)) {
      synonyms.push({ name: entry.serverDefaultName, value: def.default, source: ConfigSource.DEFAULT_CONFIG });
    }
  }
  return { name: entry.name, value: entry.value, source, type: def ? TYPE_CODES[def.type] : ConfigType.STRING, synonyms };
}

/** Every topic config Kafka describes, with value, source, type and synonyms. */
export function topicConfigViews(explicit: TopicConfigs, brokerDefaults: TopicConfigs): TopicConfigView[] {
  return describeTopicConfigs(explicit, brokerDefaults).map((e) => view(e, explicit, brokerDefaults));
}
