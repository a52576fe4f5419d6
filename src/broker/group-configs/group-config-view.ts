/**
 * How DescribeConfigs reports a group's configs, as Kafka 4.4 does: every config but Kafka's
 * internal ones, its value the group's own (GROUP_CONFIG) or the broker's (DEFAULT_CONFIG);
 * the synonyms are the group's value, when set, then the default under the broker
 * config's name (the config's own name when no broker config stands behind it).
 */
import type { BrokerConfig } from '../config.js';
import { ConfigSource, TYPE_CODES, type ConfigSynonym } from '../topic-config-view.js';
import { GROUP_CONFIG_DEFS } from './group-config-defs.js';
import type { GroupConfigs } from './group-config-store.js';

export interface GroupConfigEntry {
  readonly name: string;
  readonly value: string;
  readonly source: number;
  readonly type: number;
  readonly synonyms: readonly ConfigSynonym[];
  readonly documentation: string;
}

export function groupConfigEntries(configs: GroupConfigs, broker: BrokerConfig): GroupConfigEntry[] {
  return GROUP_CONFIG_DEFS.filter((d) => d.internal !== true).map((d) => {
    const fallback: ConfigSynonym = { name: d.broker ?? d.name, value: d.value(broker), source: ConfigSource.DEFAULT_CONFIG };
    const own = configs[d.name];
    const synonyms = own === undefined ? [fallback] : [{ name: d.name, value: own, source: ConfigSource.GROUP_CONFIG }, fallback];
    return { name: d.name, value: synonyms[0]!.value, source: synonyms[0]!.source, type: TYPE_CODES[d.type], synonyms, documentation: d.doc };
  });
}
