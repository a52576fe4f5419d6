/**
 * TEMPORARY stand-in for Kafka's sticky task assignor, until the real one replaces this file
 * wholesale: deals the active tasks out round-robin over the members (in the order the group
 * lists them), then each stateful task's standby replicas to members of other processes.
 * Balanced, not sticky, not rack-aware: do not test its exact output.
 */
import type { StreamsGroupAssignment, StreamsMemberAssignment, StreamsTaskAssignor } from './types.js';

export const stickyTaskAssignor: StreamsTaskAssignor = {
  name: 'sticky',
  assign(group, topology) {
    const members = group.members;
    const active = members.map(() => new Map<string, Set<number>>());
    const standby = members.map(() => new Map<string, Set<number>>());
    const add = (m: Map<string, Set<number>>, sub: string, p: number): void => {
      let s = m.get(sub);
      if (s === undefined) m.set(sub, (s = new Set()));
      s.add(p);
    };
    if (members.length > 0) {
      let next = 0;
      for (const sub of topology.subtopologies()) {
        const n = topology.maxNumInputPartitions(sub);
        for (let p = 0; p < n; p++) {
          const owner = next++ % members.length;
          add(active[owner]!, sub, p);
          if (!topology.isStateful(sub)) continue;
          let placed = 0;
          for (let i = 1; i < members.length && placed < group.configs.numStandbyReplicas; i++) {
            const j = (owner + i) % members.length;
            if (members[j]!.processId === members[owner]!.processId) continue;
            add(standby[j]!, sub, p);
            placed++;
          }
        }
      }
    }
    const out = new Map<string, StreamsMemberAssignment>();
    members.forEach((m, i) => out.set(m.memberId, { activeTasks: active[i]!, standbyTasks: standby[i]! }));
    return out as StreamsGroupAssignment;
  },
};
