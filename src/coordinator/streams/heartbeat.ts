/**
 * StreamsGroupHeartbeat (KIP-1071), after Kafka 4.4's GroupMetadataManager.streamsGroupHeartbeat
 * and streamsGroupLeave. A heartbeat:
 * 1. creates or updates the member (a new member, or metadata that changed, bumps the group
 *    epoch); a joining member brings the topology, which the first one initializes;
 * 2. configures the topology against the topics when it is new or its topics' metadata hash
 *    changed (a new hash, or a topology newly valid, bumps the group epoch);
 * 3. computes a new target assignment when the group epoch passed the assignment epoch (after
 *    `group.streams.initial.rebalance.delay.ms` for a group's first member);
 * 4. moves the member towards its target (reconcile.ts);
 * and answers with the member's epoch, its tasks when they changed, the topology's status
 * and, when it changed, which partitions each member's user endpoint serves. Epoch -1
 * leaves; -2 leaves for now (a static member keeps its tasks until its session expires).
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { StreamsGroupRecord } from '../../protocol/coordinator-records/streams-group-framing.js';
import type { Status, StreamsGroupHeartbeatRequestData, StreamsGroupHeartbeatResponseData } from '../../protocol/messages/streams-group-heartbeat.js';
import { ConsumerGroupError, fencedMemberEpoch, groupIdNotFound, invalidRequest, unknownMemberId } from '../consumer/errors.js';
import type { CoordinatorState } from '../coordinator-state.js';
import { streamsInitialRebalanceKey, type Operation } from '../operation.js';
import { computeMetadataHash } from '../share/subscription.js';
import { streamsHeartbeatIntervalMs, streamsNumStandbyReplicas, streamsRackAwareAssignmentTags, type RequestContext } from '../types.js';
import { endpointToPartitions } from './endpoints.js';
import { fenceStreamsMember, scheduleStreamsSessionTimeout, updateStreamsRebalanceTimeout } from './fence.js';
import { StreamsGroup } from './group.js';
import {
  newStreamsMember, sameStreamsAssignment, sameStreamsMetadata, sameUserEndpoint, STREAMS_LEAVE_GROUP_MEMBER_EPOCH, STREAMS_LEAVE_GROUP_STATIC_MEMBER_EPOCH,
  type StreamsGroupMember,
} from './member.js';
import { reconcileStreamsMember, type OwnedTasks } from './reconcile.js';
import { streamsCurrentAssignmentRecord, streamsEpochRecord, streamsMemberMetadataRecord, streamsMemberTombstones, streamsTargetAssignmentRecord, streamsTopologyRecord } from './records.js';
import { EMPTY_TASKS_TUPLE, taskSetContainedIn, tasksTupleEquals, tasksTupleFrom, tasksTupleToLists } from './tasks.js';
import { maybeUpdateStreamsTargetAssignment } from './target.js';
import { configureTopology } from './topology/configure.js';
import { StreamsGroupStatus, type StreamsTopology } from './topology/types.js';
import { topologyTopicNames } from './topology-topics.js';
import { validateStreamsGroupHeartbeat } from './validate.js';
import { writeStreamsGroupRecords } from './write.js';

type Request = StreamsGroupHeartbeatRequestData;
type Response = StreamsGroupHeartbeatResponseData;

/** Kafka sets the metadata refresh deadline of streams groups this far ahead (Integer.MAX_VALUE ms). */
const METADATA_REFRESH_NEVER_MS = 2_147_483_647;

/** An error answer as Kafka's (a new StreamsGroupHeartbeatResponseData: its status list is empty, not null). */
export function streamsGroupHeartbeatError(errorCode: number, errorMessage: string | null = null): Response {
  return {
    throttleTimeMs: 0, errorCode, errorMessage, memberId: '', memberEpoch: 0, heartbeatIntervalMs: 0, taskOffsetIntervalMs: 0,
    status: [], activeTasks: null, standbyTasks: null, warmupTasks: null, endpointInformationEpoch: 0, partitionsByUserEndpoint: null,
  };
}

export function streamsGroupHeartbeat(s: CoordinatorState, op: Operation, ctx: RequestContext, req: Request): void {
  let response: Response;
  try {
    validateStreamsGroupHeartbeat(req);
    response = req.memberEpoch === STREAMS_LEAVE_GROUP_MEMBER_EPOCH || req.memberEpoch === STREAMS_LEAVE_GROUP_STATIC_MEMBER_EPOCH
      ? s.attempt(op, () => leave(s, op, req))
      : s.attempt(op, () => heartbeat(s, op, ctx, req));
  } catch (err) {
    if (!(err instanceof ConsumerGroupError)) throw err;
    response = streamsGroupHeartbeatError(err.errorCode, err.message);
  }
  op.reply(ctx.requestId, response);
}

function isOtherGroupType(s: CoordinatorState, groupId: string): boolean {
  const classic = s.groups.get(groupId);
  return (classic !== undefined && !(classic.is('Empty') && classic.members.size === 0)) || s.consumerGroups.has(groupId) || s.shareGroups.has(groupId);
}

/** Kafka's getOrCreateStreamsGroup / getStreamsGroupOrThrow. */
function streamsGroupFor(s: CoordinatorState, groupId: string, create: boolean): StreamsGroup {
  const existing = s.streamsGroups.get(groupId);
  if (existing !== undefined) return existing;
  if (isOtherGroupType(s, groupId)) throw groupIdNotFound(`Group ${groupId} is not a streams group.`);
  if (!create) throw groupIdNotFound(`Streams group ${groupId} not found.`);
  // Not in the map yet: the records the heartbeat writes create it.
  return new StreamsGroup(groupId, s.journal);
}

function ownedTasksOf(req: Request): OwnedTasks {
  if (req.activeTasks === null || req.standbyTasks === null || req.warmupTasks === null) return null;
  return tasksTupleFrom(req);
}

/** Kafka's throwIfStreamsGroupMemberEpochIsInvalid: the previous epoch is accepted when the member owns no more than it has. */
function throwIfEpochInvalid(m: StreamsGroupMember, received: number, owned: OwnedTasks): void {
  if (received === 0) return;
  if (received > m.memberEpoch) {
    throw fencedMemberEpoch(`The streams group member has a greater member epoch (${received}) than the one known by the group coordinator (${m.memberEpoch}). The member must abandon all its partitions and rejoin.`);
  }
  if (received < m.memberEpoch) {
    const contained = owned !== null && taskSetContainedIn(owned.activeTasks, m.assignedTasks.activeTasks)
      && taskSetContainedIn(owned.standbyTasks, m.assignedTasks.standbyTasks) && taskSetContainedIn(owned.warmupTasks, m.assignedTasks.warmupTasks);
    if (received !== m.previousMemberEpoch || !contained) {
      throw fencedMemberEpoch(`The streams group member has a smaller member epoch (${received}) than the one known by the group coordinator (${m.memberEpoch}). The member must abandon all its partitions and rejoin.`);
    }
  }
}

/**
 * The member the request is about (Kafka's getOrMaybeCreateDynamicStreamsGroupMember and
 * getOrMaybeCreateStaticStreamsGroupMember). A static member rejoining under a new member id
 * takes over the one that left for now (epoch -2): its records move to the new id.
 */
function memberFor(group: StreamsGroup, req: Request, owned: OwnedTasks, records: StreamsGroupRecord[]): { member: StreamsGroupMember; existing: StreamsGroupMember | undefined } {
  const joining = req.memberEpoch === 0;
  if (req.instanceId === null) {
    const existing = group.member(req.memberId);
    if (existing === undefined && !joining) throw unknownMemberId(`Member ${req.memberId} is not a member of group ${group.groupId}.`);
    if (existing !== undefined) throwIfEpochInvalid(existing, req.memberEpoch, owned);
    return { member: existing ?? newStreamsMember(req.memberId), existing };
  }
  const staticId = group.staticMemberId(req.instanceId);
  const old = staticId === undefined ? undefined : group.member(staticId);
  if (joining) {
    if (old === undefined) {
      const existing = group.member(req.memberId);
      return { member: existing ?? { ...newStreamsMember(req.memberId), instanceId: req.instanceId }, existing };
    }
    if (old.memberId === req.memberId) return { member: old, existing: old };
    if (old.memberEpoch !== STREAMS_LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
      throw new ConsumerGroupError(ErrorCode.UNRELEASED_INSTANCE_ID, `Static member ${req.memberId} with instance id ${req.instanceId} cannot join the group because the instance id is owned by ${old.memberId} member.`);
    }
    // The new member id takes the old one's place: same metadata, tasks and target.
    records.push(...streamsMemberTombstones(group.groupId, old.memberId));
    const replaced: StreamsGroupMember = { ...old, memberId: req.memberId };
    records.push(streamsMemberMetadataRecord(group.groupId, replaced), streamsTargetAssignmentRecord(group.groupId, req.memberId, group.targetAssignmentOf(old.memberId)));
    records.push(streamsCurrentAssignmentRecord(group.groupId, replaced));
    return { member: replaced, existing: replaced };
  }
  if (old === undefined) throw unknownMemberId(`Member with instance id ${req.instanceId} is not a member of group ${group.groupId}.`);
  if (old.memberId !== req.memberId) {
    throw new ConsumerGroupError(ErrorCode.FENCED_INSTANCE_ID, `Static member ${req.memberId} with instance id ${req.instanceId} was fenced by member ${old.memberId}.`);
  }
  throwIfEpochInvalid(old, req.memberEpoch, owned);
  return { member: old, existing: old };
}

/** The request's topology as the record stores it (Kafka's convertToStreamsGroupTopologyRecord). */
function topologyFromRequest(t: NonNullable<Request['topology']>): StreamsTopology {
  const info = (x: { name: string; partitions: number; replicationFactor: number; topicConfigs: { key: string; value: string }[] }) =>
    ({ name: x.name, partitions: x.partitions, replicationFactor: x.replicationFactor, topicConfigs: x.topicConfigs.map((c) => ({ key: c.key, value: c.value })) });
  return {
    epoch: t.epoch,
    subtopologies: t.subtopologies.map((s) => ({
      subtopologyId: s.subtopologyId,
      sourceTopics: [...s.sourceTopics],
      sourceTopicRegex: [...s.sourceTopicRegex],
      stateChangelogTopics: s.stateChangelogTopics.map(info),
      repartitionSinkTopics: [...s.repartitionSinkTopics],
      repartitionSourceTopics: s.repartitionSourceTopics.map(info),
      copartitionGroups: s.copartitionGroups.map((g) => ({ sourceTopics: [...g.sourceTopics], sourceTopicRegex: [...g.sourceTopicRegex], repartitionSourceTopics: [...g.repartitionSourceTopics] })),
    })),
  };
}

function sameTopology(a: StreamsTopology, b: StreamsTopology): boolean {
  const strip = (t: StreamsTopology): string => JSON.stringify(topologyFromRequest(t as never));
  return strip(a) === strip(b);
}

/** Kafka's maybeUpdateTopology: the first joining member initializes it; no updates (yet, as in Kafka 4.4). */
function maybeUpdateTopology(group: StreamsGroup, req: Request, records: StreamsGroupRecord[]): StreamsTopology {
  const stored = group.topology;
  if (req.topology === null) {
    if (stored === null) throw new Error('The topology is null and the group topology is also null.');
    return stored;
  }
  const requested = topologyFromRequest(req.topology);
  if (stored === null) {
    records.push(streamsTopologyRecord(group.groupId, requested));
    return requested;
  }
  // A member with an older topology epoch joins; it is told its topology is stale.
  if (stored.epoch > requested.epoch) return stored;
  if (!sameTopology(stored, requested)) throw invalidRequest('Topology updates are not supported yet.');
  return stored;
}

function sameConfigs(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

/** Kafka's throwIfRequestContainsInvalidTasks: owned tasks must be tasks of the configured topology. */
function throwIfInvalidTasks(list: Request['activeTasks'], subtopologies: ReadonlyMap<string, { readonly numberOfTasks: number }>): void {
  for (const t of list ?? []) {
    const sub = subtopologies.get(t.subtopologyId);
    if (sub === undefined) throw invalidRequest(`Subtopology ${t.subtopologyId} does not exist in the topology.`);
    for (const p of t.partitions) {
      if (p < 0 || p >= sub.numberOfTasks) throw invalidRequest(`Task ${p} for subtopology ${t.subtopologyId} is invalid. Number of tasks for this subtopology: ${sub.numberOfTasks}`);
    }
  }
}

function heartbeat(s: CoordinatorState, op: Operation, ctx: RequestContext, req: Request): Response {
  const groupId = req.groupId;
  const joining = req.memberEpoch === 0;
  const group = streamsGroupFor(s, groupId, joining);
  const wasEmpty = group.numMembers === 0;
  if (joining && !group.members.has(req.memberId) && (req.instanceId === null || group.staticMemberId(req.instanceId) === undefined)
    && group.numMembers >= s.config.streamsGroupMaxSize) {
    throw new ConsumerGroupError(ErrorCode.GROUP_MAX_SIZE_REACHED, `The streams group has reached its maximum capacity of ${s.config.streamsGroupMaxSize} members.`);
  }
  const owned = ownedTasksOf(req);
  // A static member's replacement is written first: the rest of the heartbeat sees the new id.
  const replacement: StreamsGroupRecord[] = [];
  const { member, existing } = memberFor(group, req, owned, replacement);
  writeStreamsGroupRecords(s, op, replacement, null);
  const records: StreamsGroupRecord[] = [];

  // 1. The member with what the request says (null: unchanged).
  const updated: StreamsGroupMember = {
    ...member,
    instanceId: req.instanceId ?? member.instanceId,
    rackId: req.rackId ?? member.rackId,
    rebalanceTimeoutMs: req.rebalanceTimeoutMs === -1 ? member.rebalanceTimeoutMs : req.rebalanceTimeoutMs,
    topologyEpoch: req.topology?.epoch ?? member.topologyEpoch,
    clientId: ctx.clientId,
    clientHost: ctx.clientHost,
    processId: req.processId ?? member.processId,
    clientTags: req.clientTags === null ? member.clientTags : new Map(req.clientTags.map((t) => [t.key, t.value])),
    userEndpoint: joining ? (req.userEndpoint === null ? null : { host: req.userEndpoint.host, port: req.userEndpoint.port })
      : req.userEndpoint === null ? member.userEndpoint : { host: req.userEndpoint.host, port: req.userEndpoint.port },
  };
  let bump = false;
  if (existing === undefined || !sameStreamsMetadata(updated, member)) {
    records.push(streamsMemberMetadataRecord(groupId, updated));
    bump = true;
  }
  const topology = maybeUpdateTopology(group, req, records);
  const statuses: Status[] = [];
  if (updated.topologyEpoch !== topology.epoch) {
    statuses.push({ statusCode: StreamsGroupStatus.STALE_TOPOLOGY, statusDetail: `The member's topology epoch ${updated.topologyEpoch} is behind the group's topology epoch ${topology.epoch}.` });
  }

  // 2. The topology configured against the topics it needs.
  let metadataHash = group.metadataHash;
  let configured = group.configuredTopology;
  const newTopology = group.topology === null;
  if (bump || newTopology || configured === null || group.hasMetadataExpired(op.nowMs)) {
    const hash = computeMetadataHash(topologyTopicNames(topology), s.metadata);
    if (hash !== metadataHash) {
      metadataHash = hash;
      bump = true;
    }
    if (bump || newTopology || configured === null) {
      configured = configureTopology(topology, (name) => s.metadata.byName(name)?.numPartitions);
    }
  }
  const ready = configured !== null && configured.error === null && configured.subtopologies !== null;
  const validatedTopologyEpoch = ready ? topology.epoch : -1;
  if (ready) {
    for (const list of [req.activeTasks, req.standbyTasks, req.warmupTasks]) throwIfInvalidTasks(list, configured.subtopologies!);
  }
  if (validatedTopologyEpoch !== group.validatedTopologyEpoch) bump = true;

  if (req.taskOffsets !== null || req.taskEndOffsets !== null) {
    const old = group.taskOffsets(updated.memberId);
    const toMap = (list: Request['taskOffsets']): Map<string, Map<number, bigint>> => {
      const m = new Map<string, Map<number, bigint>>();
      for (const t of list ?? []) {
        let sub = m.get(t.subtopologyId);
        if (sub === undefined) m.set(t.subtopologyId, (sub = new Map()));
        sub.set(t.partition, t.offset);
      }
      return m;
    };
    group.updateTaskOffsets(updated.memberId, {
      taskOffsets: req.taskOffsets === null ? old.taskOffsets : toMap(req.taskOffsets),
      taskEndOffsets: req.taskEndOffsets === null ? old.taskEndOffsets : toMap(req.taskEndOffsets),
    });
  }

  // Kafka's streamsGroupAssignmentConfigs (sorted by name): a changed num.standby.replicas or
  // rack.aware.assignment.tags (the group's or the broker's) rebalances.
  const assignmentConfigs = new Map([['num.standby.replicas', String(streamsNumStandbyReplicas(s.config, groupId))]]);
  const rackTags = streamsRackAwareAssignmentTags(s.config, groupId);
  if (rackTags.length > 0) assignmentConfigs.set('rack.aware.assignment.tags', rackTags.join(','));
  if (!bump && !sameConfigs(assignmentConfigs, group.lastAssignmentConfigs)) bump = true;

  let groupEpoch = group.groupEpoch;
  if (bump) {
    groupEpoch += 1;
    records.push(streamsEpochRecord(groupId, groupEpoch, metadataHash, validatedTopologyEpoch, assignmentConfigs));
  }

  // 3. A new target assignment when the group epoch moved past the assignment epoch.
  const initialKey = streamsInitialRebalanceKey(groupId);
  if (wasEmpty && s.config.streamsGroupInitialRebalanceDelayMs > 0) {
    op.scheduleIfAbsent(initialKey, s.config.streamsGroupInitialRebalanceDelayMs, { kind: 'streams-initial-rebalance', groupId });
  }
  const target = maybeUpdateStreamsTargetAssignment(s, group, groupEpoch, configured, updated, records, statuses, s.timers.has(initialKey), op.nowMs);

  // 4. The member moves towards its target.
  const reconciled = reconcileStreamsMember(updated, target.epoch, target.assignment, group.taskOwners(updated.memberId), joining ? null : owned);
  if (existing === undefined || !sameStreamsAssignment(reconciled, member)) records.push(streamsCurrentAssignmentRecord(groupId, reconciled));
  scheduleStreamsSessionTimeout(s, op, groupId, reconciled.memberId);
  updateStreamsRebalanceTimeout(op, groupId, existing, reconciled);
  if (req.shutdownApplication) group.shutdownRequestMemberId = reconciled.memberId;

  writeStreamsGroupRecords(s, op, records, existing === undefined ? `member ${updated.memberId} joined` : `member ${updated.memberId} or the topics changed`);
  const written = s.streamsGroups.get(groupId) ?? group;
  if (configured !== written.configuredTopology) {
    // The state depends on the configured topology, set only now: a group it makes Stable
    // completes its rebalance here (write.ts saw it NotReady).
    const stateBefore = written.state;
    written.setConfiguredTopology(configured);
    if (written.state === 'Stable' && stateBefore !== 'Stable') {
      op.event({ type: 'rebalance-completed', groupType: 'streams', groupId, generation: written.groupEpoch, members: written.numMembers, state: 'Stable' });
    }
  }
  if (bump) written.metadataRefreshDeadline = { deadlineMs: op.nowMs + METADATA_REFRESH_NEVER_MS, epoch: groupEpoch };
  if (configured !== null && configured.internalTopicsToBeCreated.length > 0) op.createStreamsInternalTopics({ groupId, topics: configured.internalTopicsToBeCreated });

  return response(s, written, ctx.apiVersion, req, member, reconciled, configured?.error ?? null, statuses, assignmentConfigs);
}

/** StreamsGroupHeartbeat v1 carries the acceptable recovery lag as an int64, v0 as an int32. */
const ACCEPTABLE_RECOVERY_LAG_INT64_VERSION = 1;

function response(
  s: CoordinatorState, group: StreamsGroup, apiVersion: number, req: Request, before: StreamsGroupMember, member: StreamsGroupMember,
  topologyError: { status: number; message: string } | null, statuses: Status[], assignmentConfigs: ReadonlyMap<string, string>,
): Response {
  const tasksChanged = !tasksTupleEquals(before.assignedTasks, member.assignedTasks);
  const withTasks = tasksChanged || req.memberEpoch === 0;
  if ((tasksChanged || !sameUserEndpoint(before, member)) && member.userEndpoint !== null) group.endpointInformationEpoch += 1;
  const withEndpoints = req.endpointInformationEpoch !== group.endpointInformationEpoch;
  // Kafka's order: a stale topology, a delayed assignment, the topology's error, a shutdown
  // request, missing client tags.
  const all: Status[] = [...statuses];
  if (topologyError !== null) all.push({ statusCode: topologyError.status, statusDetail: topologyError.message });
  if (group.shutdownRequestMemberId !== null) {
    all.push({ statusCode: StreamsGroupStatus.SHUTDOWN_APPLICATION, statusDetail: `Streams group member ${group.shutdownRequestMemberId} encountered a fatal error and requested a shutdown for the entire application.` });
  }
  // From v1: the rack-aware assignment tags the member's client tags lack.
  const tags = (assignmentConfigs.get('rack.aware.assignment.tags') ?? '').trim();
  if (apiVersion >= 1 && tags !== '') {
    const missing = tags.split(/\s*,\s*/).filter((t) => !member.clientTags.has(t));
    if (missing.length > 0) {
      all.push({
        statusCode: StreamsGroupStatus.MISSING_CLIENT_TAGS,
        statusDetail: `Missing required client tags for rack-aware standby assignment: [${missing.join(', ')}]. Configure them via 'client.tag.<tagKey>' in your Streams config.`,
      });
    }
  }
  const tasks = withTasks ? tasksTupleToLists(member.assignedTasks) : null;
  const lag = s.config.streamsGroupAcceptableRecoveryLag;
  const recoveryLag = apiVersion >= ACCEPTABLE_RECOVERY_LAG_INT64_VERSION
    ? { acceptableRecoveryLag: lag }
    : { acceptableRecoveryLagLegacy: lag > 2_147_483_647n ? 2_147_483_647 : Number(lag) };
  return {
    throttleTimeMs: 0,
    errorCode: ErrorCode.NONE,
    errorMessage: null,
    memberId: member.memberId,
    memberEpoch: member.memberEpoch,
    heartbeatIntervalMs: streamsHeartbeatIntervalMs(s.config, group.groupId),
    ...recoveryLag,
    taskOffsetIntervalMs: s.config.streamsGroupTaskOffsetIntervalMs,
    status: all,
    activeTasks: tasks?.activeTasks ?? null,
    standbyTasks: tasks?.standbyTasks ?? null,
    warmupTasks: tasks?.warmupTasks ?? null,
    endpointInformationEpoch: group.endpointInformationEpoch,
    partitionsByUserEndpoint: withEndpoints ? endpointToPartitions(s, group) : null,
  };
}

/**
 * Kafka's streamsGroupLeave: epoch -1 fences the member; -2 (a static member) keeps it, at
 * epoch -2 with its tasks but none pending revocation, until its session expires or its
 * instance id comes back. A static member is found by its instance id.
 */
function leave(s: CoordinatorState, op: Operation, req: Request): Response {
  const group = s.streamsGroups.get(req.groupId);
  if (group === undefined) {
    throw groupIdNotFound(isOtherGroupType(s, req.groupId) ? `Group ${req.groupId} is not a streams group.` : `Streams group ${req.groupId} not found.`);
  }
  if (req.shutdownApplication) group.shutdownRequestMemberId = req.memberId;
  let member: StreamsGroupMember | undefined;
  if (req.instanceId === null) {
    member = group.member(req.memberId);
    if (member === undefined) throw unknownMemberId(`Member ${req.memberId} is not a member of group ${req.groupId}.`);
  } else {
    const staticId = group.staticMemberId(req.instanceId);
    member = staticId === undefined ? undefined : group.member(staticId);
    if (member === undefined) throw unknownMemberId(`Member with instance id ${req.instanceId} is not a member of group ${req.groupId}.`);
    if (member.memberId !== req.memberId) {
      throw new ConsumerGroupError(ErrorCode.FENCED_INSTANCE_ID, `Static member ${req.memberId} with instance id ${req.instanceId} was fenced by member ${member.memberId}.`);
    }
  }
  if (req.memberEpoch === STREAMS_LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    const left: StreamsGroupMember = { ...member, memberEpoch: STREAMS_LEAVE_GROUP_STATIC_MEMBER_EPOCH, tasksPendingRevocation: EMPTY_TASKS_TUPLE };
    writeStreamsGroupRecords(s, op, [streamsCurrentAssignmentRecord(req.groupId, left)], null);
  } else {
    fenceStreamsMember(s, op, group, member, 'left');
  }
  return { ...streamsGroupHeartbeatError(ErrorCode.NONE), memberId: req.memberId, memberEpoch: req.memberEpoch };
}
