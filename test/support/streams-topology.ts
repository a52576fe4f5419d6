/**
 * Streams topologies for the topic-configuration tests: a compact way to write a topology
 * record, and Brook's configured topology in the JSON shape test/support/java
 * StreamsTopologyOracle answers with, so the two compare with deepStrictEqual.
 */
import { configureTopology } from '../../src/coordinator/streams/topology/configure.js';
import { describeTopology } from '../../src/coordinator/streams/topology/describe.js';
import {
  StreamsInvalidTopologyError, type ConfiguredInternalTopic, type StreamsTopology,
} from '../../src/coordinator/streams/topology/types.js';
import type {
  StreamsGroupTopologyValueSubtopology, StreamsGroupTopologyValueTopicInfo,
} from '../../src/protocol/coordinator-records/streams-group-topology-value.js';
import { StreamsGroupTopologyValue } from '../../src/protocol/coordinator-records/streams-group-topology-value.js';
import { toKafkaJson } from './kafka-json.js';

export interface TopicSpec {
  readonly name: string;
  readonly partitions?: number;
  readonly replicationFactor?: number;
  readonly configs?: Readonly<Record<string, string>>;
}

export interface SubtopologySpec {
  readonly id: string;
  readonly sources?: readonly string[];
  readonly regex?: readonly string[];
  readonly sinks?: readonly string[];
  readonly repartitionSources?: readonly (string | TopicSpec)[];
  readonly changelogs?: readonly (string | TopicSpec)[];
  /** Each group: topic names (sources or repartition sources of this subtopology). */
  readonly copartition?: readonly (readonly string[])[];
}

function topicInfo(t: string | TopicSpec): StreamsGroupTopologyValueTopicInfo {
  const spec = typeof t === 'string' ? { name: t } : t;
  return {
    name: spec.name,
    partitions: spec.partitions ?? 0,
    replicationFactor: spec.replicationFactor ?? 0,
    topicConfigs: Object.entries(spec.configs ?? {}).map(([key, value]) => ({ key, value })),
  };
}

export function topology(epoch: number, subtopologies: readonly SubtopologySpec[]): StreamsTopology {
  return {
    epoch,
    subtopologies: subtopologies.map((s): StreamsGroupTopologyValueSubtopology => {
      const sources = [...(s.sources ?? [])];
      const repartitionSources = (s.repartitionSources ?? []).map(topicInfo);
      return {
        subtopologyId: s.id,
        sourceTopics: sources,
        sourceTopicRegex: [...(s.regex ?? [])],
        stateChangelogTopics: (s.changelogs ?? []).map(topicInfo),
        repartitionSinkTopics: [...(s.sinks ?? [])],
        repartitionSourceTopics: repartitionSources,
        copartitionGroups: (s.copartition ?? []).map((group) => ({
          sourceTopics: group.filter((t) => sources.includes(t)).map((t) => sources.indexOf(t)),
          sourceTopicRegex: [],
          repartitionSourceTopics: group.filter((t) => !sources.includes(t)).map((t) => repartitionSources.findIndex((r) => r.name === t)),
        })),
      };
    }),
  };
}

/** The topology as StreamsTopologyOracle reads it. */
export function topologyJson(t: StreamsTopology): unknown {
  return JSON.parse(toKafkaJson(StreamsGroupTopologyValue.schema, 0, t));
}

function internalTopicJson(t: ConfiguredInternalTopic): unknown {
  return { name: t.name, numberOfPartitions: t.numberOfPartitions, replicationFactor: t.replicationFactor, topicConfigs: [...t.topicConfigs] };
}

/** Brook's configureTopology + describeTopology in StreamsTopologyOracle's reply shape. */
export function brookConfiguredJson(t: StreamsTopology, topics: Readonly<Record<string, number>>): unknown {
  let configured;
  try {
    configured = configureTopology(t, (name) => (Object.hasOwn(topics, name) ? topics[name] : undefined));
  } catch (e) {
    if (e instanceof StreamsInvalidTopologyError) return { exception: 'StreamsInvalidTopologyException', message: e.message };
    return { exception: 'IllegalStateException', message: (e as Error).message };
  }
  const subtopologies = configured.subtopologies === null ? null : Object.fromEntries([...configured.subtopologies].map(([id, s]) => [id, {
    numberOfTasks: s.numberOfTasks,
    sourceTopics: [...s.sourceTopics].sort(),
    repartitionSinkTopics: [...s.repartitionSinkTopics].sort(),
    repartitionSourceTopics: [...s.repartitionSourceTopics.values()].map(internalTopicJson),
    stateChangelogTopics: [...s.stateChangelogTopics.values()].map(internalTopicJson),
  }]));
  return JSON.parse(JSON.stringify({
    topologyEpoch: configured.topologyEpoch,
    subtopologies,
    internalTopicsToBeCreated: configured.internalTopicsToBeCreated.map((c) => ({
      name: c.name,
      numPartitions: c.numberOfPartitions,
      replicationFactor: c.replicationFactor ?? -1,
      configs: [...c.topicConfigs].map(([name, value]) => ({ name, value })),
    })),
    status: configured.error?.status ?? null,
    message: configured.error?.message ?? null,
    describe: describeTopology(configured),
  }));
}
