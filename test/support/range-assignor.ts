/**
 * TEST-ONLY range assignor (Java's RangeAssignor result for the non-rack case): per topic,
 * the members subscribed to it sorted by group instance id (when set) then member id, and
 * each given a contiguous range; the first (partitions % members) members get one extra.
 * The real assignors live in src/assignors (merged separately); this exists so consumer
 * tests run before they land.
 */
import type { MemberAssignment, PartitionAssignor, TopicPartition } from '../../src/assignors/types.js';

export function testRangeAssignor(name = 'range'): PartitionAssignor {
  return {
    name,
    supportedProtocols: ['eager'],
    subscriptionUserData: () => null,
    onAssignment: () => undefined,
    assign({ members, partitionsPerTopic }) {
      const out = new Map<string, MemberAssignment>();
      for (const m of members) out.set(m.memberId, { partitions: [], userData: null });
      const topics = [...new Set(members.flatMap((m) => m.topics))].sort();
      for (const topic of topics) {
        const count = partitionsPerTopic.get(topic);
        if (count === undefined) continue;
        const subscribed = members.filter((m) => m.topics.includes(topic)).sort((a, b) => {
          const ka = a.groupInstanceId ?? '', kb = b.groupInstanceId ?? '';
          if (a.groupInstanceId !== null && b.groupInstanceId !== null && ka !== kb) return ka < kb ? -1 : 1;
          if (a.groupInstanceId !== null && b.groupInstanceId === null) return -1;
          if (a.groupInstanceId === null && b.groupInstanceId !== null) return 1;
          return a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0;
        });
        const per = Math.floor(count / subscribed.length);
        const extra = count % subscribed.length;
        subscribed.forEach((m, i) => {
          const start = per * i + Math.min(i, extra);
          const length = per + (i < extra ? 1 : 0);
          const list: TopicPartition[] = out.get(m.memberId)!.partitions;
          for (let p = start; p < start + length; p++) list.push({ topic, partition: p });
        });
      }
      return out;
    },
  };
}
