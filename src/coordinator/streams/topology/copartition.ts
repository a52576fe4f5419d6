/**
 * Copartition groups (Kafka's CopartitionedTopicsEnforcer): topics joined with each other
 * must have equal partition counts. Repartition topics without a count of their own take the
 * group's count: the external topics' (which must agree), or, in a group of repartition
 * topics only, the count fixed by the topology or else the largest decided one.
 */
import { StreamsInvalidTopologyError } from './types.js';
import { incorrectlyPartitioned, sortedMapText, topicHashSet, type PartitionCountProvider, type Subtopology } from './topic-sets.js';
import type { JavaHashSet } from '../../consumer/java-hash.js';

/**
 * Enforces every subtopology's copartition groups in Kafka's order, writing the counts it
 * decides into `decided` (which `partitionCount` reads, so later groups see earlier ones).
 */
export function enforceCopartitioning(
  subtopologies: readonly Subtopology[],
  decided: Map<string, number>,
  partitionCount: PartitionCountProvider,
): void {
  const fixed = topicHashSet();
  const flexible = topicHashSet();
  for (const s of subtopologies) {
    for (const t of s.repartitionSourceTopics) if (t.partitions !== 0) fixed.add(t.name);
  }
  for (const s of subtopologies) {
    for (const t of s.repartitionSourceTopics) if (t.partitions === 0) flexible.add(t.name);
  }
  for (const s of subtopologies) {
    for (const group of s.copartitionGroups) {
      // Kafka's group: a HashSet of the names its indexes point at, sources then repartition sources.
      const topics = topicHashSet([
        ...group.sourceTopics.map((i) => s.sourceTopics[i]!),
        ...group.repartitionSourceTopics.map((i) => s.repartitionSourceTopics[i]!.name),
      ]);
      for (const [topic, count] of enforceGroup(topics, fixed, flexible, partitionCount)) decided.set(topic, count);
    }
  }
}

function enforceGroup(
  topics: JavaHashSet<string>,
  fixed: JavaHashSet<string>,
  flexible: JavaHashSet<string>,
  partitionCount: PartitionCountProvider,
): Map<string, number> {
  const decided = new Map<string, number>();
  if (topics.size === 0) return decided;
  const countOf = (topic: string): number => {
    const n = partitionCount(topic);
    if (n === undefined) throw new Error(`Number of partitions is not set for topic: ${topic}`);
    return n;
  };
  // Both maps iterate as Kafka's HashMaps filled in the group's order do.
  const repartition = new Map<string, number>();
  const external = new Map<string, number>();
  const repartitionKeys = topicHashSet();
  const externalKeys = topicHashSet();
  for (const topic of topics.values()) {
    if (flexible.has(topic) || fixed.has(topic)) {
      repartition.set(topic, countOf(topic));
      repartitionKeys.add(topic);
    } else {
      external.set(topic, countOf(topic));
      externalKeys.add(topic);
    }
  }

  let count: number;
  if (external.size === 0) {
    // All repartition topics. Kafka compares every fixed-count repartition topic of the
    // whole topology here, not only this group's, and reports this group's counts.
    if (fixed.size > 0) {
      const fixedTopics = fixed.values();
      count = countOf(fixedTopics[0]!);
      for (const topic of fixedTopics) {
        if (countOf(topic) !== count) {
          throw incorrectlyPartitioned(`Following topics do not have the same number of partitions: [${sortedMapText(repartition)}]`);
        }
      }
    } else {
      count = Math.max(0, ...repartition.values());
      if (count === 0) {
        throw new StreamsInvalidTopologyError(`All topics in the copartition group had undefined partition number: [${repartitionKeys.values().join(', ')}]`);
      }
    }
  } else {
    const externalTopics = externalKeys.values();
    count = external.get(externalTopics[0]!)!;
    for (const topic of externalTopics) {
      if (external.get(topic) !== count) {
        throw incorrectlyPartitioned(`Following topics do not have the same number of partitions: [${sortedMapText(external)}]`);
      }
    }
  }

  for (const topic of repartitionKeys.values()) {
    decided.set(topic, count);
    const current = repartition.get(topic)!;
    if (fixed.has(topic) && current !== count) {
      throw incorrectlyPartitioned(
        `Number of partitions [${current}] of repartition topic [${topic}] doesn't match number of partitions [${count}] of the source topic.`,
      );
    }
  }
  return decided;
}
