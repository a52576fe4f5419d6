/**
 * Helpers shared by the topology's configuration steps: the Java iteration orders that decide
 * which error Kafka reports first and how some partition counts come out, and the way its
 * messages print topic lists and maps.
 */
import { JavaHashSet } from '../../consumer/java-hash.js';
import { stringHash } from '../../../util/string-hash.js';
import { compareStrings } from '../../../util/range-split.js';
import type { StreamsGroupTopologyValueSubtopology } from '../../../protocol/coordinator-records/streams-group-topology-value.js';
import { StreamsGroupStatus, type TopicConfigurationError } from './types.js';

export type Subtopology = StreamsGroupTopologyValueSubtopology;

/** A set of topic names in Java's HashSet order (`new HashSet<>()` then adds). */
export function topicHashSet(names: Iterable<string> = []): JavaHashSet<string> {
  const set = JavaHashSet.empty<string>(stringHash);
  for (const name of names) set.add(name);
  return set;
}

/**
 * The subtopologies in the order Kafka walks them: StreamsTopology keeps them in a HashMap
 * by subtopology id, and the order of that walk decides some repartition topics' partition
 * counts (a sink's count is fixed by the first subtopology able to compute it).
 */
export function subtopologiesInKafkaOrder(subtopologies: readonly Subtopology[]): Subtopology[] {
  const byId = new Map<string, Subtopology>();
  const ids = topicHashSet();
  for (const s of subtopologies) {
    // Collectors.toMap rejects a duplicate id; the heartbeat's validation never lets one through.
    if (byId.has(s.subtopologyId)) throw new Error(`Duplicate key ${s.subtopologyId}`);
    byId.set(s.subtopologyId, s);
    ids.add(s.subtopologyId);
  }
  return ids.values().map((id) => byId.get(id)!);
}


/** A TreeMap<String, Integer>'s toString: `{a=1, b=2}`. */
export function sortedMapText(counts: ReadonlyMap<string, number>): string {
  const keys = [...counts.keys()].sort(compareStrings);
  return `{${keys.map((k) => `${k}=${counts.get(k)!}`).join(', ')}}`;
}

/** The topic lists in status messages: the first three, then how many more. */
export function summarizeTopics(topics: readonly string[]): string {
  if (topics.length === 0) return '<none>';
  const shown = topics.slice(0, 3).join(', ');
  return topics.length > 3 ? `${shown} and ${topics.length - 3} additional topics` : shown;
}

/** An outcome the heartbeat reports in its status (Kafka's TopicConfigurationException). */
export class TopicConfigurationFailure extends Error {
  constructor(readonly error: TopicConfigurationError) {
    super(error.message);
  }
}

export function incorrectlyPartitioned(message: string): TopicConfigurationFailure {
  return new TopicConfigurationFailure({ status: StreamsGroupStatus.INCORRECTLY_PARTITIONED_TOPICS, message });
}

/**
 * A topic's partition count while the configuration is decided: the cluster's count when the
 * topic exists, else the count decided so far for an internal topic.
 */
export type PartitionCountProvider = (topic: string) => number | undefined;
