/**
 * Streams groups (KIP-1071, Kafka Streams' `group.protocol=streams`) for the admin client, at
 * the group's coordinator as Kafka's Admin.describeStreamsGroups does it: StreamsGroupDescribe
 * (v1 where the broker has it: the assignor's name). A streams group commits its offsets as a
 * consumer group does, so its committed offsets come from `committedOffsets`.
 */
import { Api } from '../../protocol/messages/index.js';
import type {
  StreamsGroupDescribeResponseAssignment, StreamsGroupDescribeResponseDescribedGroup, StreamsGroupDescribeResponseTaskIds,
  StreamsGroupDescribeResponseTaskOffset, StreamsGroupDescribeResponseTopicInfo,
} from '../../protocol/messages/streams-group-describe.js';
import { ErrorCode, KafkaProtocolError } from '../../protocol/errors.js';
import { GroupNotFoundError } from './errors.js';
import { check, withCoordinator, type AdminContext } from './requests.js';

/** The tasks of one subtopology: a task is (subtopology, partition). */
export interface StreamsTaskIds {
  readonly subtopologyId: string;
  /** As the broker lists them. */
  readonly partitions: number[];
}

/** A member's active, standby and warm-up tasks, in the broker's order. */
export interface StreamsTasks {
  readonly activeTasks: StreamsTaskIds[];
  readonly standbyTasks: StreamsTaskIds[];
  readonly warmupTasks: StreamsTaskIds[];
}

/** A task's changelog offset (summed over its stores), as the member reported it. */
export interface StreamsTaskOffset {
  readonly subtopologyId: string;
  readonly partition: number;
  readonly offset: bigint;
}

/** An internal topic of a subtopology (repartition or changelog) as the topology asks for it. */
export interface StreamsTopicInfo {
  readonly name: string;
  /** 0: no partition count asked for (always 0 for changelog topics). */
  readonly partitions: number;
  /** 0: the broker's default. */
  readonly replicationFactor: number;
  readonly topicConfigs: Readonly<Record<string, string>>;
}

export interface StreamsSubtopologyDescription {
  readonly subtopologyId: string;
  /** The topics it reads: user topics, regular expressions resolved (repartition topics listed apart). */
  readonly sourceTopics: string[];
  readonly repartitionSinkTopics: string[];
  readonly stateChangelogTopics: StreamsTopicInfo[];
  readonly repartitionSourceTopics: StreamsTopicInfo[];
}

export interface StreamsMemberDescription {
  readonly memberId: string;
  readonly memberEpoch: number;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly clientId: string;
  readonly host: string;
  /** The topology epoch the member runs. */
  readonly topologyEpoch: number;
  /** The Kafka Streams client (process) the member belongs to; one process may run several members. */
  readonly processId: string;
  /** The member's endpoint for interactive queries; null when it has none. */
  readonly userEndpoint: { readonly host: string; readonly port: number } | null;
  readonly clientTags: Readonly<Record<string, string>>;
  readonly taskOffsets: StreamsTaskOffset[];
  readonly taskEndOffsets: StreamsTaskOffset[];
  /** The tasks the member owns now. */
  readonly assignment: StreamsTasks;
  /** The tasks the group's assignment gives it (reached once it revoked what others need). */
  readonly targetAssignment: StreamsTasks;
  /** A member still on the classic protocol (Kafka's "MEMBER-PROTOCOL" classic). */
  readonly isClassic: boolean;
}

/** A streams group as StreamsGroupDescribe reports it. */
export interface StreamsGroupDescription {
  readonly group: string;
  /** Empty, NotReady, Assigning, Reconciling, Stable (or Dead). */
  readonly state: string;
  readonly groupEpoch: number;
  /** The epoch of the group's target assignment (Kafka's "TARGET-ASSIGNMENT-EPOCH"). */
  readonly assignmentEpoch: number;
  /** The epoch of the topology the group runs; -1 when the broker sent none. */
  readonly topologyEpoch: number;
  /**
   * The configured subtopologies; null while the topology is not configured (no topology
   * yet, or source topics missing or partitioned wrongly, or internal topics not created):
   * the group is then NotReady.
   */
  readonly subtopologies: StreamsSubtopologyDescription[] | null;
  readonly members: StreamsMemberDescription[];
  /** The task assignor the coordinator uses next (StreamsGroupDescribe v1); null when not told. */
  readonly assignor: string | null;
  readonly coordinator: { readonly nodeId: number; readonly host: string; readonly port: number };
}

const taskIds = (list: readonly StreamsGroupDescribeResponseTaskIds[]): StreamsTaskIds[] =>
  list.map((t) => ({ subtopologyId: t.subtopologyId, partitions: [...t.partitions] }));

const tasks = (a: StreamsGroupDescribeResponseAssignment): StreamsTasks =>
  ({ activeTasks: taskIds(a.activeTasks), standbyTasks: taskIds(a.standbyTasks), warmupTasks: taskIds(a.warmupTasks) });

const taskOffsets = (list: readonly StreamsGroupDescribeResponseTaskOffset[]): StreamsTaskOffset[] =>
  list.map((o) => ({ subtopologyId: o.subtopologyId, partition: o.partition, offset: o.offset }));

const keyValues = (list: readonly { key: string; value: string }[]): Record<string, string> =>
  Object.fromEntries(list.map((kv) => [kv.key, kv.value]));

const topicInfos = (list: readonly StreamsGroupDescribeResponseTopicInfo[]): StreamsTopicInfo[] =>
  list.map((t) => ({ name: t.name, partitions: t.partitions, replicationFactor: t.replicationFactor, topicConfigs: keyValues(t.topicConfigs) }));

function description(g: StreamsGroupDescribeResponseDescribedGroup, coordinator: StreamsGroupDescription['coordinator']): StreamsGroupDescription {
  const subtopologies = g.topology?.subtopologies ?? null;
  return {
    group: g.groupId,
    state: g.groupState,
    groupEpoch: g.groupEpoch,
    assignmentEpoch: g.assignmentEpoch,
    topologyEpoch: g.topology?.epoch ?? -1,
    subtopologies: subtopologies === null ? null : subtopologies.map((s) => ({
      subtopologyId: s.subtopologyId,
      sourceTopics: [...s.sourceTopics],
      repartitionSinkTopics: [...s.repartitionSinkTopics],
      stateChangelogTopics: topicInfos(s.stateChangelogTopics),
      repartitionSourceTopics: topicInfos(s.repartitionSourceTopics),
    })),
    members: g.members.map((m) => ({
      memberId: m.memberId,
      memberEpoch: m.memberEpoch,
      instanceId: m.instanceId,
      rackId: m.rackId,
      clientId: m.clientId,
      host: m.clientHost,
      topologyEpoch: m.topologyEpoch,
      processId: m.processId,
      userEndpoint: m.userEndpoint === null ? null : { host: m.userEndpoint.host, port: m.userEndpoint.port },
      clientTags: keyValues(m.clientTags),
      taskOffsets: taskOffsets(m.taskOffsets),
      taskEndOffsets: taskOffsets(m.taskEndOffsets),
      assignment: tasks(m.assignment),
      targetAssignment: tasks(m.targetAssignment),
      isClassic: m.isClassic,
    })),
    assignor: g.assignorName ?? null,
    coordinator,
  };
}

/**
 * StreamsGroupDescribe at the coordinator. GroupNotFoundError for an unknown group, a group
 * of another type (the broker answers GROUP_ID_NOT_FOUND), or a broker without streams groups.
 */
export async function describeStreamsGroup(ctx: AdminContext, group: string): Promise<StreamsGroupDescription> {
  return withCoordinator(ctx, group, async (connection, coordinator) => {
    // A broker without streams groups has none of this id.
    if (connection.supportedVersion(Api.StreamsGroupDescribe) === undefined) throw new GroupNotFoundError(group);
    const response = await connection.request(Api.StreamsGroupDescribe, { groupIds: [group], includeAuthorizedOperations: false }, { signal: ctx.signal });
    const g = response.groups.find((x) => x.groupId === group);
    if (!g) throw new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, `StreamsGroupDescribe left out group ${group}`);
    if (g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) throw new GroupNotFoundError(group);
    check(g.errorCode, g.errorMessage ?? group);
    return description(g, coordinator);
  });
}
