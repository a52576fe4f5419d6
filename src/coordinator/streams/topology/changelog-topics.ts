/**
 * The partition counts of a topology's state changelog topics (Kafka's ChangelogTopics): one
 * partition per task, and a subtopology has as many tasks as its largest source topic has
 * partitions (repartition sources included, with the counts decided before).
 */
import { StreamsInvalidTopologyError } from './types.js';
import type { PartitionCountProvider, Subtopology } from './topic-sets.js';

export function changelogTopicPartitionCounts(
  subtopologies: readonly Subtopology[],
  partitionCount: PartitionCountProvider,
): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of subtopologies) {
    const sources = [...s.sourceTopics, ...s.repartitionSourceTopics.map((t) => t.name)];
    if (sources.length === 0) {
      // A subtopology reading only a pattern lands here: Kafka's topic configuration
      // ignores source regular expressions (its heartbeat rejects them).
      throw new StreamsInvalidTopologyError(`No source topics found for subtopology ${s.subtopologyId}`);
    }
    let tasks = 0;
    for (const topic of sources) {
      const n = partitionCount(topic);
      if (n === undefined) throw new Error(`No partition count for source topic ${topic}`);
      tasks = Math.max(tasks, n);
    }
    for (const t of s.stateChangelogTopics) counts.set(t.name, tasks);
  }
  return counts;
}
