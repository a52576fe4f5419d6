/**
 * StreamsGroupHeartbeat and StreamsGroupDescribe requests for the coordinator harness, and a
 * task assignor tests control (so that reconciliation is tested against known targets).
 */
import type { StreamsGroupHeartbeatRequestData, StreamsGroupHeartbeatResponseData } from '../../../src/protocol/messages/streams-group-heartbeat.js';
import type { StreamsGroupDescribeResponseDescribedGroup } from '../../../src/protocol/messages/streams-group-describe.js';
import type { StreamsMemberAssignment, StreamsTaskAssignor } from '../../../src/coordinator/streams/assignor/types.js';
import type { CoordinatorHarness, Sent } from './harness.js';

export type Tasks = Record<string, number[]>;

/** A word-count-like topology: subtopology "0" reads `input` (stateless), "1" reads the repartition topic and has a store. */
export function wordCountTopology(epoch = 0): NonNullable<StreamsGroupHeartbeatRequestData['topology']> {
  return {
    epoch,
    subtopologies: [
      { subtopologyId: '0', sourceTopics: ['input'], sourceTopicRegex: [], stateChangelogTopics: [], repartitionSinkTopics: ['app-repartition'], repartitionSourceTopics: [], copartitionGroups: [] },
      {
        subtopologyId: '1', sourceTopics: [], sourceTopicRegex: [], repartitionSinkTopics: [], copartitionGroups: [],
        stateChangelogTopics: [{ name: 'app-store-changelog', partitions: 0, replicationFactor: 0, topicConfigs: [] }],
        repartitionSourceTopics: [{ name: 'app-repartition', partitions: 0, replicationFactor: 0, topicConfigs: [] }],
      },
    ],
  };
}

export function toTaskIds(t: Tasks | null): { subtopologyId: string; partitions: number[] }[] | null {
  return t === null ? null : Object.entries(t).map(([subtopologyId, partitions]) => ({ subtopologyId, partitions }));
}

export function fromTaskIds(list: readonly { subtopologyId: string; partitions: readonly number[] }[] | null | undefined): Tasks | null {
  if (list === null || list === undefined) return null;
  const out: Tasks = {};
  for (const t of list) out[t.subtopologyId] = [...t.partitions];
  return out;
}

export interface StreamsBeat {
  group?: string;
  memberId: string;
  epoch: number;
  instanceId?: string | null;
  processId?: string | null;
  rebalanceTimeoutMs?: number;
  topology?: StreamsGroupHeartbeatRequestData['topology'];
  active?: Tasks | null;
  standby?: Tasks | null;
  warmup?: Tasks | null;
  userEndpoint?: { host: string; port: number } | null;
  endpointInformationEpoch?: number;
  clientTags?: Record<string, string> | null;
  /** StreamsGroupHeartbeat version (default 1, Kafka 4.4's highest). */
  version?: number;
}

export function shb(h: CoordinatorHarness, o: StreamsBeat): Sent<StreamsGroupHeartbeatResponseData> {
  const joining = o.epoch === 0;
  return h.send('StreamsGroupHeartbeat', o.version ?? 1, {
    groupId: o.group ?? 'app',
    memberId: o.memberId,
    memberEpoch: o.epoch,
    endpointInformationEpoch: o.endpointInformationEpoch ?? 0,
    instanceId: o.instanceId ?? null,
    rackId: null,
    rebalanceTimeoutMs: o.rebalanceTimeoutMs ?? (joining ? 30_000 : -1),
    topology: o.topology !== undefined ? o.topology : joining ? wordCountTopology() : null,
    activeTasks: toTaskIds(o.active !== undefined ? o.active : joining ? {} : null),
    standbyTasks: toTaskIds(o.standby !== undefined ? o.standby : joining ? {} : null),
    warmupTasks: toTaskIds(o.warmup !== undefined ? o.warmup : joining ? {} : null),
    processId: o.processId !== undefined ? o.processId : joining ? `process-${o.memberId}` : null,
    userEndpoint: o.userEndpoint ?? null,
    clientTags: o.clientTags === undefined ? (joining ? [] : null) : o.clientTags === null ? null : Object.entries(o.clientTags).map(([key, value]) => ({ key, value })),
    taskOffsets: null,
    taskEndOffsets: null,
    shutdownApplication: false,
  }, 'streams-client');
}

export function streamsDescribe(h: CoordinatorHarness, group = 'app'): StreamsGroupDescribeResponseDescribedGroup {
  return h.send('StreamsGroupDescribe', 0, { groupIds: [group], includeAuthorizedOperations: false }).answer.groups[0]!;
}

/** An assignor whose answer the test sets: member id → active tasks (no standbys). */
export class ScriptedAssignor implements StreamsTaskAssignor {
  readonly name = 'sticky';
  plan: Record<string, Tasks> = {};
  calls = 0;

  assign(group: Parameters<StreamsTaskAssignor['assign']>[0]): ReadonlyMap<string, StreamsMemberAssignment> {
    this.calls++;
    const out = new Map<string, StreamsMemberAssignment>();
    for (const m of group.members) {
      const tasks = this.plan[m.memberId] ?? {};
      out.set(m.memberId, { activeTasks: new Map(Object.entries(tasks).map(([k, v]) => [k, new Set(v)])), standbyTasks: new Map() });
    }
    return out;
  }
}
