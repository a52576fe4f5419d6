/**
 * A member of a streams group, as Kafka's StreamsGroupMember: an immutable value; every
 * change builds a new one, which the records then persist. Its state is Kafka's
 * streams MemberState, with the byte Kafka writes in StreamsGroupCurrentMemberAssignment.
 */
import { EMPTY_TASKS_TUPLE, hasTask, tasksTupleEquals, type TasksTuple } from './tasks.js';

/** Kafka's streams MemberState values (the byte written in the record). */
export const StreamsMemberState = {
  STABLE: 1,
  UNREVOKED_TASKS: 2,
  UNRELEASED_TASKS: 3,
  UNKNOWN: 127,
} as const;

export function memberStateName(state: number): string {
  switch (state) {
    case StreamsMemberState.STABLE:
      return 'STABLE';
    case StreamsMemberState.UNREVOKED_TASKS:
      return 'UNREVOKED_TASKS';
    case StreamsMemberState.UNRELEASED_TASKS:
      return 'UNRELEASED_TASKS';
    default:
      return 'UNKNOWN';
  }
}

/** StreamsGroupHeartbeat's member epochs of a member leaving, and of a static member leaving for now. */
export const STREAMS_LEAVE_GROUP_MEMBER_EPOCH = -1;
export const STREAMS_LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

export interface StreamsEndpoint {
  readonly host: string;
  readonly port: number;
}

export interface StreamsGroupMember {
  readonly memberId: string;
  readonly memberEpoch: number;
  readonly previousMemberEpoch: number;
  readonly state: number;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  readonly rebalanceTimeoutMs: number;
  readonly topologyEpoch: number;
  readonly processId: string;
  readonly userEndpoint: StreamsEndpoint | null;
  readonly clientTags: ReadonlyMap<string, string>;
  readonly assignedTasks: TasksTuple;
  readonly tasksPendingRevocation: TasksTuple;
  /**
   * The assignment epoch of each active task the member holds (assigned or pending
   * revocation): the target epoch at which it got it (Kafka 4.4's TasksTupleWithEpochs). A
   * commit at an older member epoch is taken only for tasks it held since then.
   */
  readonly activeTaskEpochs: TaskEpochs;
}

/** Epochs by subtopology id and partition. */
export type TaskEpochs = ReadonlyMap<string, ReadonlyMap<number, number>>;

/** The assignment epoch of an active task the member holds (undefined: it holds none). */
export function activeTaskEpoch(m: StreamsGroupMember, subtopologyId: string, partition: number): number | undefined {
  if (!hasTask(m.assignedTasks.activeTasks, subtopologyId, partition) && !hasTask(m.tasksPendingRevocation.activeTasks, subtopologyId, partition)) return undefined;
  return m.activeTaskEpochs.get(subtopologyId)?.get(partition) ?? m.memberEpoch;
}

/** Kafka's StreamsGroupMember.Builder defaults: what a member is before its first record. */
export function newStreamsMember(memberId: string): StreamsGroupMember {
  return {
    memberId,
    memberEpoch: 0,
    previousMemberEpoch: -1,
    state: StreamsMemberState.STABLE,
    instanceId: null,
    rackId: null,
    clientId: '',
    clientHost: '',
    rebalanceTimeoutMs: -1,
    topologyEpoch: -1,
    processId: '',
    userEndpoint: null,
    clientTags: new Map(),
    assignedTasks: EMPTY_TASKS_TUPLE,
    tasksPendingRevocation: EMPTY_TASKS_TUPLE,
    activeTaskEpochs: new Map(),
  };
}

function sameEndpoint(a: StreamsEndpoint | null, b: StreamsEndpoint | null): boolean {
  return a === b || (a !== null && b !== null && a.host === b.host && a.port === b.port);
}

function sameTags(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

/** The fields StreamsGroupMemberMetadataValue carries (Kafka's hasStreamsMemberMetadataChanged). */
export function sameStreamsMetadata(a: StreamsGroupMember, b: StreamsGroupMember): boolean {
  return a.instanceId === b.instanceId && a.rackId === b.rackId && a.clientId === b.clientId && a.clientHost === b.clientHost
    && a.rebalanceTimeoutMs === b.rebalanceTimeoutMs && a.topologyEpoch === b.topologyEpoch && a.processId === b.processId
    && sameEndpoint(a.userEndpoint, b.userEndpoint) && sameTags(a.clientTags, b.clientTags);
}

export function sameUserEndpoint(a: StreamsGroupMember, b: StreamsGroupMember): boolean {
  return sameEndpoint(a.userEndpoint, b.userEndpoint);
}

/** The fields StreamsGroupCurrentMemberAssignmentValue carries. */
export function sameStreamsAssignment(a: StreamsGroupMember, b: StreamsGroupMember): boolean {
  return a.memberEpoch === b.memberEpoch && a.previousMemberEpoch === b.previousMemberEpoch && a.state === b.state
    && tasksTupleEquals(a.assignedTasks, b.assignedTasks) && tasksTupleEquals(a.tasksPendingRevocation, b.tasksPendingRevocation);
}

/** Kafka's StreamsGroupMember.isReconciledTo: stable at the assignment epoch. */
export function isReconciledTo(m: StreamsGroupMember, assignmentEpoch: number): boolean {
  return m.state === StreamsMemberState.STABLE && m.memberEpoch === assignmentEpoch;
}
