/**
 * The topics a streams group's topology reads and writes: its source topics, repartition
 * topics and changelog topics. Their metadata goes into the group's metadata hash, so a topic
 * created (an internal topic the broker made), deleted or resized bumps the group epoch.
 */
import type { StreamsTopology } from './topology/types.js';

export function topologyTopicNames(topology: StreamsTopology | null): Set<string> {
  const out = new Set<string>();
  for (const s of topology?.subtopologies ?? []) {
    for (const t of s.sourceTopics) out.add(t);
    for (const t of s.repartitionSourceTopics) out.add(t.name);
    for (const t of s.repartitionSinkTopics) out.add(t);
    for (const t of s.stateChangelogTopics) out.add(t.name);
  }
  return out;
}
