/**
 * Which partitions each member's user endpoint serves (Kafka's EndpointToPartitionsManager),
 * for Kafka Streams' interactive queries: a task serves partition p of its subtopology's
 * source and repartition source topics (those that have a partition p).
 */
import type { EndpointToPartitions, StreamsGroupHeartbeatResponseTopicPartition } from '../../protocol/messages/streams-group-heartbeat.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { StreamsGroup } from './group.js';
import type { TaskSet } from './tasks.js';

function partitionsOf(s: CoordinatorState, group: StreamsGroup, tasks: TaskSet): StreamsGroupHeartbeatResponseTopicPartition[] {
  const subs = group.configuredTopology?.subtopologies;
  if (subs === null || subs === undefined) return [];
  const byTopic = new Map<string, Set<number>>();
  for (const [subId, ps] of tasks) {
    const sub = subs.get(subId);
    if (sub === undefined) continue;
    for (const topic of [...sub.sourceTopics, ...sub.repartitionSourceTopics.keys()]) {
      const n = s.metadata.byName(topic)?.numPartitions ?? 0;
      for (const p of ps) {
        if (p >= n) continue;
        let set = byTopic.get(topic);
        if (set === undefined) byTopic.set(topic, (set = new Set()));
        set.add(p);
      }
    }
  }
  return [...byTopic.keys()].sort().map((topic) => ({ topic, partitions: [...byTopic.get(topic)!].sort((a, b) => a - b) }));
}

export function endpointToPartitions(s: CoordinatorState, group: StreamsGroup): EndpointToPartitions[] {
  const out: EndpointToPartitions[] = [];
  for (const m of group.members.values()) {
    if (m.userEndpoint === null) continue;
    out.push({
      userEndpoint: { host: m.userEndpoint.host, port: m.userEndpoint.port },
      activePartitions: partitionsOf(s, group, m.assignedTasks.activeTasks),
      standbyPartitions: partitionsOf(s, group, m.assignedTasks.standbyTasks),
    });
  }
  return out;
}
