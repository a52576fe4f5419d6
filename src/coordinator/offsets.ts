/**
 * Committed offsets, after Kafka's OffsetMetadataManager: OffsetCommit (validated against
 * the group's generation and members), OffsetFetch (every form), OffsetDelete and the
 * expiration of old offsets.
 *
 * Topic and partition existence (UNKNOWN_TOPIC_OR_PARTITION) and authorization are the
 * broker's checks, as in Kafka's KafkaApis: the broker removes such partitions from the
 * request, answers them itself and merges its answers with the coordinator's.
 */
import { ErrorCode } from '../protocol/errors.js';
import type { OffsetCommitRequestData, OffsetCommitRequestPartition, OffsetCommitRequestTopic, OffsetCommitResponseData } from '../protocol/messages/offset-commit.js';
import { ZERO_UUID } from '../protocol/messages/runtime.js';
import type {
  OffsetFetchRequestData,
  OffsetFetchRequestTopics,
  OffsetFetchResponseData,
  OffsetFetchResponseGroup,
  OffsetFetchResponsePartitions,
  OffsetFetchResponseTopics,
} from '../protocol/messages/offset-fetch.js';
import type { OffsetDeleteRequestData, OffsetDeleteResponseData } from '../protocol/messages/offset-delete.js';
import { consumerGroupTombstones, consumerOffsetCommitError, consumerOffsetFetchError, type CommitPartitionCheck } from './consumer/classic-apis.js';
import type { CoordinatorState } from './coordinator-state.js';
import { streamsOffsetCommitError, streamsOffsetFetchError } from './streams/offsets.js';
import { streamsGroupTombstones } from './streams/records.js';
import { topologyTopicNames } from './streams/topology-topics.js';
import type { GroupType } from './events.js';
import type { ClassicGroup } from './classic/group.js';
import type { Operation } from './operation.js';
import { rescheduleHeartbeat } from './classic/rebalance.js';
import { groupMetadataTombstone, offsetCommitRecord, offsetCommitTombstone, type GroupCoordinatorRecord, type OffsetAndMetadata } from './records.js';
import type { RequestContext } from './types.js';
import { writeRecord, writeRecords } from './replay.js';

/** "No retention time given" in OffsetCommit v2-4. */
const DEFAULT_RETENTION_TIME = -1n;

/**
 * Returns the error for the whole request, NONE, or (a consumer group's member with an older
 * epoch) a check per partition; may create a simple group.
 */
function validateOffsetCommit(s: CoordinatorState, op: Operation, ctx: RequestContext, req: OffsetCommitRequestData): number | CommitPartitionCheck {
  const generationId = req.generationIdOrMemberEpoch ?? -1;
  const memberId = req.memberId ?? '';
  const groupInstanceId = req.groupInstanceId ?? null;
  // Kafka's ShareGroup.validateOffsetCommit: a share group keeps no committed offsets.
  if (s.shareGroups.has(req.groupId)) return ErrorCode.GROUP_ID_NOT_FOUND;
  const consumerGroup = s.consumerGroups.get(req.groupId);
  if (consumerGroup !== undefined) return consumerOffsetCommitError(consumerGroup, memberId, groupInstanceId, generationId, false, ctx.apiVersion);
  const streamsGroup = s.streamsGroups.get(req.groupId);
  if (streamsGroup !== undefined) return streamsOffsetCommitError(s, streamsGroup, memberId, groupInstanceId, generationId, false, ctx.apiVersion);
  let group = s.groups.get(req.groupId);
  if (group === undefined) {
    // Generation -1: a consumer without group management, or an admin. The commit creates
    // a "simple" group (Empty, no protocol type) to hold the offsets.
    if (generationId < 0) group = s.getOrCreateGroup(req.groupId, op.nowMs);
    else return ctx.apiVersion >= 9 ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.ILLEGAL_GENERATION;
  }

  if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  if (generationId < 0 && group.is('Empty')) return ErrorCode.NONE;
  if (generationId >= 0 || memberId !== '' || groupInstanceId !== null) {
    const memberError = group.validateMember(memberId, groupInstanceId);
    if (memberError !== ErrorCode.NONE) return memberError;
    if (generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
  } else if (!group.is('Empty')) {
    // No member id and no generation (e.g. v0): only an Empty group takes such commits.
    return ErrorCode.UNKNOWN_MEMBER_ID;
  }
  // The member has this generation's JoinGroup response but not its assignment yet.
  if (group.is('CompletingRebalance')) return ErrorCode.REBALANCE_IN_PROGRESS;
  return ErrorCode.NONE;
}

export function offsetCommit(s: CoordinatorState, op: Operation, ctx: RequestContext, req: OffsetCommitRequestData): void {
  const validation = validateOffsetCommit(s, op, ctx, req);
  if (typeof validation === 'number' && validation !== ErrorCode.NONE) {
    op.reply(ctx.requestId, offsetCommitResponse(req, () => validation));
    return;
  }
  const tooLarge = (p: OffsetCommitRequestPartition): boolean => (p.committedMetadata ?? '').length > s.config.offsetMetadataMaxBytes;
  if (typeof validation === 'function') {
    // Kafka checks each partition (with metadata of a valid size) as it goes, and the first
    // refused one fails the whole request: nothing is written.
    const refused = firstRefusal(req.topics, validation, tooLarge);
    if (refused !== ErrorCode.NONE) {
      op.reply(ctx.requestId, offsetCommitResponse(req, () => refused));
      return;
    }
  }
  // In the classic protocol a commit also keeps the member's session alive (not in a consumer group).
  const group = s.groups.get(req.groupId);
  const member = group?.member(req.memberId ?? '');
  if (group !== undefined && (group.is('Stable') || group.is('PreparingRebalance')) && member !== undefined) rescheduleHeartbeat(op, group, member);

  const retention = req.retentionTimeMs ?? DEFAULT_RETENTION_TIME;
  const expireTimestampMs = retention === DEFAULT_RETENTION_TIME ? null : op.nowMs + Number(retention);
  const response = offsetCommitResponse(req, (t, p) => {
    if (tooLarge(p)) return ErrorCode.OFFSET_METADATA_TOO_LARGE;
    const topic = topicName(t);
    const offset: OffsetAndMetadata = {
      committedOffset: p.committedOffset,
      leaderEpoch: p.committedLeaderEpoch ?? -1,
      metadata: p.committedMetadata ?? '',
      commitTimestampMs: op.nowMs,
      expireTimestampMs,
      topicId: t.topicId ?? ZERO_UUID,
    };
    writeRecord(s, op, offsetCommitRecord(req.groupId, topic, p.partitionIndex, offset));
    return ErrorCode.NONE;
  });
  op.reply(ctx.requestId, response);
}

/** The first error `check` gives a partition (skipping those `skip` answers otherwise), or NONE. */
export function firstRefusal<P extends { partitionIndex: number }>(
  topics: readonly { name?: string; topicId?: string; partitions: readonly P[] }[], check: CommitPartitionCheck, skip: (p: P) => boolean,
): number {
  for (const t of topics) {
    for (const p of t.partitions) {
      if (skip(p)) continue;
      const error = check(t.topicId ?? ZERO_UUID, p.partitionIndex, topicName(t));
      if (error !== ErrorCode.NONE) return error;
    }
  }
  return ErrorCode.NONE;
}

/**
 * A request topic's name: the broker resolves topic ids to names before the coordinator
 * sees a request (as Kafka's KafkaApis), so only a topic it refused itself has none.
 */
export function topicName(t: { name?: string }): string {
  return t.name ?? '';
}

function offsetCommitResponse(
  req: OffsetCommitRequestData,
  errorFor: (t: OffsetCommitRequestTopic, p: OffsetCommitRequestPartition) => number,
): OffsetCommitResponseData {
  return {
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({
      name: t.name,
      topicId: t.topicId,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: errorFor(t, p) })),
    })),
  };
}

/** Kafka's "no offset" answer for a partition. */
function noOffset(partitionIndex: number): OffsetFetchResponsePartitions {
  return { partitionIndex, committedOffset: -1n, committedLeaderEpoch: -1, metadata: '', errorCode: ErrorCode.NONE };
}

function fetchedOffset(partitionIndex: number, o: OffsetAndMetadata): OffsetFetchResponsePartitions {
  return {
    partitionIndex,
    committedOffset: o.committedOffset,
    committedLeaderEpoch: o.leaderEpoch,
    metadata: o.metadata,
    errorCode: ErrorCode.NONE,
  };
}

/** Kafka's answer for a partition with offsets of an open transaction, when the fetch requires stable offsets. */
function unstableOffset(partitionIndex: number): OffsetFetchResponsePartitions {
  return { ...noOffset(partitionIndex), errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT };
}

/**
 * One group's offsets; topics null means every partition the group has an offset for. A
 * topic asked for by id (OffsetFetch v10+) does not see an offset committed under another id
 * of its name (Kafka 4.4's isOffsetInvalid). Every topic of "all offsets" has the zero id:
 * the broker fills the ids in.
 */
function fetchGroupOffsets(
  s: CoordinatorState,
  groupId: string,
  topics: readonly OffsetFetchRequestTopics[] | null,
  requireStable: boolean,
): OffsetFetchResponseGroup {
  const unstable = (topic: string, p: number): boolean => requireStable && s.pendingTxnOffsets.has(groupId, topic, p);
  const group = s.groups.get(groupId);
  // An unknown group is not an error: it simply has no offsets; nor is a share group, which
  // keeps none (Kafka 4.4 answers no offsets, without an error).
  const known = (group !== undefined && !group.is('Dead')) || s.consumerGroups.has(groupId) || s.streamsGroups.has(groupId);
  if (topics === null) {
    const all: OffsetFetchResponseTopics[] = [];
    for (const [name, partitions] of (known ? s.offsets.ofGroup(groupId) : undefined) ?? []) {
      all.push({ name, topicId: ZERO_UUID, partitions: [...partitions].map(([p, o]) => (unstable(name, p) ? unstableOffset(p) : fetchedOffset(p, o))) });
    }
    return { groupId, topics: all, errorCode: ErrorCode.NONE };
  }
  return {
    groupId,
    errorCode: ErrorCode.NONE,
    topics: topics.map((t) => {
      const name = topicName(t);
      const topicId = t.topicId ?? ZERO_UUID;
      return {
        name: t.name,
        topicId,
        partitions: t.partitionIndexes.map((p) => {
          if (unstable(name, p)) return unstableOffset(p);
          const o = known ? s.offsets.get(groupId, name, p) : undefined;
          return o === undefined || isMismatchedTopicId(o.topicId, topicId) ? noOffset(p) : fetchedOffset(p, o);
        }),
      };
    }),
  };
}

/** Both ids known and different: the offset belongs to an earlier topic of the same name. */
function isMismatchedTopicId(stored: string, requested: string): boolean {
  return stored !== ZERO_UUID && requested !== ZERO_UUID && stored !== requested;
}

/**
 * v8+ asks for several groups; v0-7 for one, reshaped as Kafka's OffsetFetchResponse does
 * (v2+ carries the group error at the top, v0-1 in every partition). requireStable (v7+)
 * answers UNSTABLE_OFFSET_COMMIT for a partition with offsets of an open transaction (the
 * client retries), as Kafka's fetchOffsets.
 */
export function offsetFetch(s: CoordinatorState, op: Operation, ctx: RequestContext, req: OffsetFetchRequestData): void {
  if (ctx.apiVersion >= 8) {
    const groups = (req.groups ?? []).map((g): OffsetFetchResponseGroup => {
      // v9+ names the member: a consumer group checks it is current (Kafka's validateOffsetFetch).
      const consumerGroup = ctx.apiVersion >= 9 ? s.consumerGroups.get(g.groupId) : undefined;
      const streamsGroup = ctx.apiVersion >= 9 ? s.streamsGroups.get(g.groupId) : undefined;
      const error = consumerGroup !== undefined ? consumerOffsetFetchError(consumerGroup, g.memberId ?? null, g.memberEpoch ?? -1)
        : streamsGroup !== undefined ? streamsOffsetFetchError(streamsGroup, g.memberId ?? null, g.memberEpoch ?? -1) : ErrorCode.NONE;
      return error === ErrorCode.NONE ? fetchGroupOffsets(s, g.groupId, g.topics, req.requireStable === true) : { groupId: g.groupId, topics: [], errorCode: error };
    });
    op.reply(ctx.requestId, { throttleTimeMs: 0, topics: [], errorCode: ErrorCode.NONE, groups } satisfies OffsetFetchResponseData);
    return;
  }
  const topics = ctx.apiVersion >= 2 ? (req.topics ?? null) : (req.topics ?? []);
  const g = fetchGroupOffsets(s, req.groupId ?? '', topics, req.requireStable === true);
  const response: OffsetFetchResponseData = {
    throttleTimeMs: 0,
    errorCode: ctx.apiVersion >= 2 ? g.errorCode : ErrorCode.NONE,
    topics: g.topics.map((t) => ({
      name: t.name ?? '',
      partitions: t.partitions.map((p) =>
        ctx.apiVersion < 2 && g.errorCode !== ErrorCode.NONE
          ? { ...noOffset(p.partitionIndex), errorCode: g.errorCode }
          : { ...p, committedLeaderEpoch: ctx.apiVersion >= 5 ? p.committedLeaderEpoch : -1 },
      ),
    })),
    groups: [],
  };
  op.reply(ctx.requestId, response);
}

function offsetDeleteError(group: ClassicGroup | undefined): number {
  if (group === undefined || group.is('Dead')) return ErrorCode.GROUP_ID_NOT_FOUND;
  switch (group.state) {
    case 'Stable':
    case 'PreparingRebalance':
    case 'CompletingRebalance':
      // Offsets of an active group may go only if it is a consumer group (then per topic).
      return group.usesConsumerProtocol() ? ErrorCode.NONE : ErrorCode.NON_EMPTY_GROUP;
    default:
      return ErrorCode.NONE;
  }
}

export function offsetDelete(s: CoordinatorState, op: Operation, ctx: RequestContext, req: OffsetDeleteRequestData): void {
  const empty: OffsetDeleteResponseData = { errorCode: ErrorCode.NONE, throttleTimeMs: 0, topics: [] };
  if (req.groupId === '') return op.reply(ctx.requestId, { ...empty, errorCode: ErrorCode.INVALID_GROUP_ID });
  // Kafka's ShareGroup.validateOffsetDelete.
  if (s.shareGroups.has(req.groupId)) return op.reply(ctx.requestId, { ...empty, errorCode: ErrorCode.GROUP_ID_NOT_FOUND });
  const group = s.groups.get(req.groupId);
  const consumerGroup = s.consumerGroups.get(req.groupId);
  const streamsGroup = s.streamsGroups.get(req.groupId);
  // Kafka's ConsumerGroup and StreamsGroup.validateOffsetDelete accept any state: subscribed topics are refused below.
  const error = consumerGroup !== undefined || streamsGroup !== undefined ? ErrorCode.NONE : offsetDeleteError(group);
  if (error !== ErrorCode.NONE) return op.reply(ctx.requestId, { ...empty, errorCode: error });
  const streamsTopics = streamsGroup === undefined ? null : topologyTopicNames(streamsGroup.topology);
  const isSubscribed = (topic: string): boolean => streamsTopics?.has(topic) ?? consumerGroup?.isSubscribedToTopic(topic) ?? group!.isSubscribedToTopic(topic);

  const records: GroupCoordinatorRecord[] = [];
  const topics = req.topics.map((t) => {
    // A topic the consumers subscribe to would just be committed again.
    const subscribed = isSubscribed(t.name);
    return {
      name: t.name,
      partitions: t.partitions.map((p) => {
        if (subscribed) return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC };
        if (s.offsets.get(req.groupId, t.name, p.partitionIndex) !== undefined) {
          records.push(offsetCommitTombstone(req.groupId, t.name, p.partitionIndex));
        }
        return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE };
      }),
    };
  });
  writeRecords(s, op, records);
  op.reply(ctx.requestId, { ...empty, topics });
}

/**
 * Kafka's OffsetExpirationCondition: which timestamp an offset's age counts from, or null
 * when the group's offsets do not expire now.
 */
function expirationBase(group: ClassicGroup): ((o: OffsetAndMetadata) => number) | null {
  if (group.protocolType === null) return (o) => o.commitTimestampMs; // a simple group
  if (group.is('Empty')) return (o) => group.currentStateTimestampMs ?? o.commitTimestampMs;
  if (group.usesConsumerProtocol() && group.subscribedTopics !== null && group.is('Stable')) {
    return (o) => o.commitTimestampMs; // only topics nobody subscribes to (checked by the caller)
  }
  return null;
}

/**
 * Kafka's cleanupGroupMetadata: tombstones for expired offsets, and for Empty groups left
 * with no offsets at all.
 */
export function expireOffsets(s: CoordinatorState, op: Operation): void {
  const retentionMs = s.config.offsetsRetentionMs;
  const records: GroupCoordinatorRecord[] = [];
  const tell = (groupType: GroupType, groupId: string, expired: number, deleted: boolean): void => {
    if (expired > 0) op.event({ type: 'offsets-expired', groupType, groupId, count: expired });
    if (deleted) op.event({ type: 'group-deleted', groupType, groupId, reason: 'its offsets expired and it has no members' });
  };
  for (const group of s.groups.values()) {
    const start = records.length;
    const byTopic = s.offsets.ofGroup(group.groupId);
    let allExpired = true;
    if (byTopic !== undefined) {
      const base = expirationBase(group);
      if (base === null) {
        allExpired = false;
      } else {
        for (const [topic, partitions] of byTopic) {
          if (group.isSubscribedToTopic(topic)) {
            allExpired = false;
            continue;
          }
          for (const [partition, o] of partitions) {
            const expired =
              o.expireTimestampMs !== null ? op.nowMs >= o.expireTimestampMs : op.nowMs - base(o) >= retentionMs;
            if (expired) records.push(offsetCommitTombstone(group.groupId, topic, partition));
            else allExpired = false;
          }
        }
      }
    }
    const deleted = allExpired && group.is('Empty');
    if (deleted) records.push(groupMetadataTombstone(group.groupId));
    const expired = records.length - start - (deleted ? 1 : 0);
    tell('classic', group.groupId, expired, deleted);
  }
  // Consumer groups: by commit time, topics a member subscribes to never expire, and an
  // Empty group goes once its offsets have (Kafka's cleanupGroupMetadata).
  for (const group of s.consumerGroups.values()) {
    const start = records.length;
    let allExpired = true;
    for (const [topic, partitions] of s.offsets.ofGroup(group.groupId) ?? []) {
      if (group.isSubscribedToTopic(topic)) {
        allExpired = false;
        continue;
      }
      for (const [partition, o] of partitions) {
        const expired = o.expireTimestampMs !== null ? op.nowMs >= o.expireTimestampMs : op.nowMs - o.commitTimestampMs >= retentionMs;
        if (expired) records.push(offsetCommitTombstone(group.groupId, topic, partition));
        else allExpired = false;
      }
    }
    const expired = records.length - start;
    const deleted = allExpired && group.numMembers === 0;
    if (deleted) records.push(...consumerGroupTombstones(group));
    tell('consumer', group.groupId, expired, deleted);
  }
  // Streams groups: as consumer groups, the topology's topics standing for the subscription.
  for (const group of s.streamsGroups.values()) {
    const start = records.length;
    const topics = topologyTopicNames(group.topology);
    let allExpired = true;
    for (const [topic, partitions] of s.offsets.ofGroup(group.groupId) ?? []) {
      if (group.numMembers > 0 && topics.has(topic)) {
        allExpired = false;
        continue;
      }
      for (const [partition, o] of partitions) {
        const expired = o.expireTimestampMs !== null ? op.nowMs >= o.expireTimestampMs : op.nowMs - o.commitTimestampMs >= retentionMs;
        if (expired) records.push(offsetCommitTombstone(group.groupId, topic, partition));
        else allExpired = false;
      }
    }
    const expired = records.length - start;
    const deleted = allExpired && group.numMembers === 0;
    if (deleted) records.push(...streamsGroupTombstones(group.groupId));
    tell('streams', group.groupId, expired, deleted);
  }
  writeRecords(s, op, records);
}
