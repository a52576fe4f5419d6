/**
 * The partition counts of a topology's repartition topics (Kafka's RepartitionTopics): a
 * count given by the topology is kept; otherwise a repartition topic gets, as the sink of a
 * subtopology, the largest partition count among that subtopology's source topics, external
 * or repartition ones whose count is known. Counts feed each other across subtopologies, so
 * the walk repeats until nothing is left or a pass makes no progress.
 */
import { StreamsInvalidTopologyError } from './types.js';
import type { PartitionCountProvider, Subtopology } from './topic-sets.js';

/**
 * `subtopologies` in Kafka's order (subtopologiesInKafkaOrder): a subtopology that can
 * compute a sink's count from the sources known so far does so, even if a source decided
 * later would have raised it, exactly as Kafka's single-pass-per-iteration walk does.
 */
export function repartitionTopicPartitionCounts(
  subtopologies: readonly Subtopology[],
  partitionCount: PartitionCountProvider,
): Map<string, number> {
  const missing = new Set<string>();
  for (const s of subtopologies) {
    const repartitionSources = new Set(s.repartitionSourceTopics.map((t) => t.name));
    for (const topic of s.sourceTopics) {
      if (!repartitionSources.has(topic) && partitionCount(topic) === undefined) missing.add(topic);
    }
  }
  // The caller reports missing source topics first; reaching this is a bug.
  if (missing.size > 0) throw new Error(`Missing source topics: ${[...missing].join(', ')}`);

  const counts = new Map<string, number>();
  for (const s of subtopologies) {
    for (const t of s.repartitionSourceTopics) if (t.partitions !== 0) counts.set(t.name, t.partitions);
  }
  for (;;) {
    let needed = false;
    let progressed = false;
    for (const s of subtopologies) {
      for (const sink of s.repartitionSinkTopics) {
        if (counts.has(sink)) continue;
        const count = largestSourceCount(s, counts, partitionCount);
        if (count === undefined) {
          needed = true;
        } else {
          counts.set(sink, count);
          progressed = true;
        }
      }
    }
    if (!needed) break;
    if (!progressed) {
      throw new StreamsInvalidTopologyError(
        'Failed to compute number of partitions for all repartition topics. There may be loops in the topology that cannot be resolved.',
      );
    }
  }
  for (const s of subtopologies) {
    if (s.repartitionSourceTopics.some((t) => !counts.has(t.name))) {
      throw new StreamsInvalidTopologyError(
        'Failed to compute number of partitions for all repartition topics, because a repartition source topic is never used as a sink topic.',
      );
    }
  }
  return counts;
}

/** The largest known partition count among a subtopology's sources; undefined when none is known yet. */
function largestSourceCount(s: Subtopology, counts: ReadonlyMap<string, number>, partitionCount: PartitionCountProvider): number | undefined {
  let largest: number | undefined;
  for (const t of s.repartitionSourceTopics) {
    const n = counts.get(t.name);
    if (n !== undefined && (largest === undefined || n > largest)) largest = n;
  }
  for (const topic of s.sourceTopics) {
    const n = partitionCount(topic);
    if (n !== undefined && (largest === undefined || n > largest)) largest = n;
  }
  return largest;
}
