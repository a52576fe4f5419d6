/**
 * Streams task assignor scenarios for tests: one plain description of a group that both
 * Brook's assignor (StreamsGroupSpec, TopologyDescriber) and Kafka's, through
 * StreamsAssignorOracle (KafkaStreamsAssignRequest), are given; and Brook's result in the
 * oracle's reply shape (subtopologies and partitions sorted).
 */
import type { StreamsAssignorMember, StreamsGroupAssignment, StreamsGroupSpec, TaskSet, TopologyDescriber } from '../../src/coordinator/streams/assignor/types.js';
import type { KafkaStreamsAssignment, KafkaStreamsAssignRequest } from './java-oracle.js';

export type Tasks = Record<string, number[]>;
export type Offsets = Record<string, Record<string, string>>;

export interface ScenarioMember {
  memberId: string;
  processId: string;
  rackId: string | null;
  clientTags: Record<string, string>;
  activeTasks: Tasks;
  standbyTasks: Tasks;
  warmupTasks: Tasks;
  taskOffsets: Offsets;
  taskEndOffsets: Offsets;
}

export interface Scenario {
  numStandbyReplicas: number;
  rackAwareAssignmentTags: string[];
  subtopologies: { id: string; partitions: number; stateful: boolean }[];
  /** In the order the assignor iterates them. */
  members: ScenarioMember[];
}

export function kafkaRequest(s: Scenario): KafkaStreamsAssignRequest {
  return {
    numStandbyReplicas: s.numStandbyReplicas,
    rackAwareAssignmentTags: s.rackAwareAssignmentTags,
    subtopologies: s.subtopologies,
    members: s.members.map((m) => ({ ...m, instanceId: null })),
  };
}

function taskSet(tasks: Tasks): TaskSet {
  return new Map(Object.entries(tasks).map(([id, ps]) => [id, new Set(ps)]));
}

function offsetMap(offsets: Offsets): ReadonlyMap<string, ReadonlyMap<number, bigint>> {
  return new Map(Object.entries(offsets).map(([id, ps]) => [id, new Map(Object.entries(ps).map(([p, o]) => [Number(p), BigInt(o)]))]));
}

export function brookGroup(s: Scenario): { group: StreamsGroupSpec; topology: TopologyDescriber } {
  const members: StreamsAssignorMember[] = s.members.map((m) => ({
    memberId: m.memberId,
    instanceId: null,
    rackId: m.rackId,
    processId: m.processId,
    clientTags: new Map(Object.entries(m.clientTags)),
    activeTasks: taskSet(m.activeTasks),
    standbyTasks: taskSet(m.standbyTasks),
    warmupTasks: taskSet(m.warmupTasks),
    taskOffsets: offsetMap(m.taskOffsets),
    taskEndOffsets: offsetMap(m.taskEndOffsets),
  }));
  const byId = new Map(s.subtopologies.map((t) => [t.id, t]));
  const topology: TopologyDescriber = {
    subtopologies: () => s.subtopologies.map((t) => t.id),
    maxNumInputPartitions: (id) => {
      const t = byId.get(id);
      if (t === undefined) throw new Error(`Unknown subtopology: ${id}`);
      return t.partitions;
    },
    isStateful: (id) => byId.get(id)?.stateful ?? false,
  };
  return { group: { members, configs: { numStandbyReplicas: s.numStandbyReplicas, rackAwareAssignmentTags: s.rackAwareAssignmentTags } }, topology };
}

function sortedTasks(tasks: TaskSet): Tasks {
  const out: Tasks = {};
  for (const id of [...tasks.keys()].sort()) {
    const ps = [...tasks.get(id)!].sort((a, b) => a - b);
    if (ps.length > 0) out[id] = ps;
  }
  return out;
}

/** Brook's result as StreamsAssignorOracle replies, member ids sorted. */
export function asOracleReply(result: StreamsGroupAssignment): KafkaStreamsAssignment {
  const out: KafkaStreamsAssignment = {};
  for (const id of [...result.keys()].sort()) {
    const a = result.get(id)!;
    out[id] = { activeTasks: sortedTasks(a.activeTasks), standbyTasks: sortedTasks(a.standbyTasks) };
  }
  return out;
}
