/**
 * Configures a streams group's topology against the cluster's topics (Kafka 4.4's
 * InternalTopicManager.configureTopics): every source topic must exist; repartition topics
 * get their partition counts (repartition-topics.ts), copartition groups are enforced
 * (copartition.ts), changelog topics get one partition per task (changelog-topics.ts); then
 * internal topics that exist must have the decided count, and those that do not are listed
 * for the broker to create. Source regular expressions play no part: Kafka 4.4 ignores them
 * here (its heartbeat rejects topologies that use them).
 *
 * Where Kafka's outcome depends on the iteration order of its hash maps (which of several
 * problems it reports, some repartition counts, the order of the missing topics), Brook
 * follows the same order (topic-sets.ts).
 */
import type { StreamsGroupTopologyValueTopicInfo } from '../../../protocol/coordinator-records/streams-group-topology-value.js';
import { changelogTopicPartitionCounts } from './changelog-topics.js';
import { enforceCopartitioning } from './copartition.js';
import { repartitionTopicPartitionCounts } from './repartition-topics.js';
import { compareStrings } from '../../../util/range-split.js';
import {
  incorrectlyPartitioned, subtopologiesInKafkaOrder, summarizeTopics, topicHashSet, TopicConfigurationFailure,
  type PartitionCountProvider, type Subtopology,
} from './topic-sets.js';
import {
  StreamsGroupStatus,
  type ConfiguredInternalTopic, type ConfiguredSubtopology, type ConfiguredTopology, type PartitionCountLookup, type StreamsTopology,
} from './types.js';

/**
 * The configured topology, or, when topics are missing or wrongly partitioned, its error
 * (status and message as the heartbeat returns them). Throws StreamsInvalidTopologyError
 * when no configuration exists (Kafka's StreamsInvalidTopologyException).
 */
export function configureTopology(topology: StreamsTopology, partitionCount: PartitionCountLookup): ConfiguredTopology {
  const subtopologies = subtopologiesInKafkaOrder(topology.subtopologies);
  try {
    throwOnMissingSourceTopics(subtopologies, partitionCount);
    const decided = decidePartitionCounts(subtopologies, partitionCount);
    const provider: PartitionCountProvider = (topic) => partitionCount(topic) ?? decided.get(topic);
    const configured = new Map<string, ConfiguredSubtopology>();
    for (const s of [...subtopologies].sort((a, b) => compareStrings(a.subtopologyId, b.subtopologyId))) {
      configured.set(s.subtopologyId, configureSubtopology(s, provider, decided));
    }
    const toCreate = missingInternalTopics(configured, subtopologies, partitionCount);
    return {
      topologyEpoch: topology.epoch,
      subtopologies: configured,
      internalTopicsToBeCreated: toCreate,
      error: toCreate.length === 0 ? null : {
        status: StreamsGroupStatus.MISSING_INTERNAL_TOPICS,
        message: `Internal topics are missing: ${summarizeTopics(toCreate.map((t) => t.name))}`,
      },
    };
  } catch (e) {
    if (!(e instanceof TopicConfigurationFailure)) throw e;
    return { topologyEpoch: topology.epoch, subtopologies: null, internalTopicsToBeCreated: [], error: e.error };
  }
}

function throwOnMissingSourceTopics(subtopologies: readonly Subtopology[], partitionCount: PartitionCountLookup): void {
  const missing = new Set<string>();
  for (const s of subtopologies) for (const topic of s.sourceTopics) if (partitionCount(topic) === undefined) missing.add(topic);
  if (missing.size > 0) {
    throw new TopicConfigurationFailure({
      status: StreamsGroupStatus.MISSING_SOURCE_TOPICS,
      message: `Source topics ${summarizeTopics([...missing].sort(compareStrings))} are missing.`,
    });
  }
}

/** Repartition topics, then copartition groups, then changelogs: each step sees the counts decided before it. */
function decidePartitionCounts(subtopologies: readonly Subtopology[], partitionCount: PartitionCountLookup): Map<string, number> {
  const decided = new Map<string, number>();
  const provider: PartitionCountProvider = (topic) => partitionCount(topic) ?? decided.get(topic);
  for (const [topic, n] of repartitionTopicPartitionCounts(subtopologies, provider)) decided.set(topic, n);
  enforceCopartitioning(subtopologies, decided, provider);
  for (const [topic, n] of changelogTopicPartitionCounts(subtopologies, provider)) decided.set(topic, n);
  return decided;
}

function configureSubtopology(s: Subtopology, provider: PartitionCountProvider, decided: ReadonlyMap<string, number>): ConfiguredSubtopology {
  let numberOfTasks = 0;
  for (const topic of [...s.sourceTopics, ...s.repartitionSourceTopics.map((t) => t.name)]) {
    const n = provider(topic);
    if (n === undefined) throw new Error(`Number of partitions must be set for topic ${topic}`);
    numberOfTasks = Math.max(numberOfTasks, n);
  }
  if (numberOfTasks === 0) throw new Error('Subtopology does not contain any source topics');
  return {
    numberOfTasks,
    sourceTopics: new Set(s.sourceTopics),
    repartitionSourceTopics: internalTopicsByName(s.repartitionSourceTopics, decided),
    repartitionSinkTopics: new Set(s.repartitionSinkTopics),
    stateChangelogTopics: internalTopicsByName(s.stateChangelogTopics, decided),
  };
}

/** Keyed by name in Kafka's HashMap order, which decides the order of the topics to create. */
function internalTopicsByName(
  topics: readonly StreamsGroupTopologyValueTopicInfo[],
  decided: ReadonlyMap<string, number>,
): Map<string, ConfiguredInternalTopic> {
  const byName = new Map<string, ConfiguredInternalTopic>();
  for (const t of topics) byName.set(t.name, configuredInternalTopic(t, decided));
  const order = topicHashSet(byName.keys());
  return new Map(order.values().map((name) => [name, byName.get(name)!]));
}

function configuredInternalTopic(t: StreamsGroupTopologyValueTopicInfo, decided: ReadonlyMap<string, number>): ConfiguredInternalTopic {
  const numberOfPartitions = t.partitions !== 0 ? t.partitions : decided.get(t.name);
  if (numberOfPartitions === undefined) throw new Error(`Number of partitions must be set for topic ${t.name}`);
  // Kafka keeps the configs in a HashMap: describe lists them in its order.
  const values = new Map<string, string>();
  for (const c of t.topicConfigs) {
    if (values.has(c.key)) throw new Error(`Duplicate key ${c.key}`);
    values.set(c.key, c.value);
  }
  const topicConfigs = new Map(topicHashSet(values.keys()).values().map((k) => [k, values.get(k)!]));
  return { name: t.name, numberOfPartitions, replicationFactor: t.replicationFactor === 0 ? null : t.replicationFactor, topicConfigs };
}

/**
 * The internal topics that do not exist yet, in the order of Kafka's HashMap of them; an
 * existing one with another partition count makes the topology incorrectly partitioned
 * (Kafka never changes an existing topic's partitions). Existing topics are checked in the
 * order of Kafka's set of the topology's required topics, which decides the one reported.
 */
function missingInternalTopics(
  configured: ReadonlyMap<string, ConfiguredSubtopology>,
  subtopologies: readonly Subtopology[],
  partitionCount: PartitionCountLookup,
): ConfiguredInternalTopic[] {
  const toCreate = new Map<string, ConfiguredInternalTopic>();
  const names = topicHashSet();
  for (const s of configured.values()) {
    for (const t of [...s.repartitionSourceTopics.values(), ...s.stateChangelogTopics.values()]) {
      toCreate.set(t.name, t);
      names.add(t.name);
    }
  }
  const required = topicHashSet();
  for (const s of subtopologies) {
    for (const topic of s.sourceTopics) required.add(topic);
    for (const t of s.repartitionSourceTopics) required.add(t.name);
    for (const t of s.stateChangelogTopics) required.add(t.name);
  }
  for (const topic of required.values()) {
    const found = partitionCount(topic);
    if (found === undefined) continue;
    const expected = toCreate.get(topic);
    if (expected === undefined) continue;
    names.delete(topic);
    toCreate.delete(topic);
    if (found !== expected.numberOfPartitions) {
      throw incorrectlyPartitioned(`Existing topic ${topic} has different number of partitions: expected ${expected.numberOfPartitions}, found ${found}`);
    }
  }
  return names.values().map((name) => toCreate.get(name)!);
}
