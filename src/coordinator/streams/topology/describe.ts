/**
 * A configured topology as StreamsGroupDescribe shows it (Kafka's
 * ConfiguredTopology.asStreamsGroupDescribeTopology): subtopologies by id, topic names
 * sorted, internal topics sorted by name with their decided partition counts; a topology
 * that could not be configured shows no subtopologies.
 */
import type {
  StreamsGroupDescribeResponseSubtopology, StreamsGroupDescribeResponseTopicInfo, StreamsGroupDescribeResponseTopology,
} from '../../../protocol/messages/streams-group-describe.js';
import { compareStrings } from '../../../util/range-split.js';
import type { ConfiguredInternalTopic, ConfiguredSubtopology, ConfiguredTopology } from './types.js';

export function describeTopology(topology: ConfiguredTopology): StreamsGroupDescribeResponseTopology {
  const ids = topology.subtopologies === null ? [] : [...topology.subtopologies.keys()].sort(compareStrings);
  return { epoch: topology.topologyEpoch, subtopologies: ids.map((id) => describeSubtopology(id, topology.subtopologies!.get(id)!)) };
}

export function describeSubtopology(subtopologyId: string, s: ConfiguredSubtopology): StreamsGroupDescribeResponseSubtopology {
  return {
    subtopologyId,
    sourceTopics: [...s.sourceTopics].sort(compareStrings),
    repartitionSinkTopics: [...s.repartitionSinkTopics].sort(compareStrings),
    repartitionSourceTopics: describeInternalTopics(s.repartitionSourceTopics.values()),
    stateChangelogTopics: describeInternalTopics(s.stateChangelogTopics.values()),
  };
}

function describeInternalTopics(topics: Iterable<ConfiguredInternalTopic>): StreamsGroupDescribeResponseTopicInfo[] {
  return [...topics].sort((a, b) => compareStrings(a.name, b.name)).map(describeInternalTopic);
}

/** Configs in the topic's map order (Kafka's HashMap order, kept by configureTopology). */
export function describeInternalTopic(t: ConfiguredInternalTopic): StreamsGroupDescribeResponseTopicInfo {
  return {
    name: t.name,
    partitions: t.numberOfPartitions,
    replicationFactor: t.replicationFactor ?? 0,
    topicConfigs: [...t.topicConfigs].map(([key, value]) => ({ key, value })),
  };
}
