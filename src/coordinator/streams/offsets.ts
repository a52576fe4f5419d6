/**
 * Offsets of a streams group (Kafka 4.4's StreamsGroup.validateOffsetCommit and
 * validateOffsetFetch): a member commits with its member epoch, as a consumer group's members
 * do. A commit with an older epoch is taken for a partition whose task the member holds since
 * that epoch or an older one (the task's assignment epoch).
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { CommitPartitionCheck } from '../consumer/classic-apis.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { StreamsGroup } from './group.js';
import { activeTaskEpoch } from './member.js';

export function streamsOffsetCommitError(
  s: CoordinatorState, group: StreamsGroup, memberId: string, groupInstanceId: string | null, memberEpoch: number, transactional: boolean, apiVersion: number,
): number | CommitPartitionCheck {
  if (memberEpoch < 0 && group.numMembers === 0) return ErrorCode.NONE;
  if (transactional && memberEpoch === -1 && memberId === '' && groupInstanceId === null) return ErrorCode.NONE;
  const member = group.member(memberId);
  if (member === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
  if (!transactional && apiVersion < 9) return ErrorCode.UNSUPPORTED_VERSION;
  if (memberEpoch === member.memberEpoch) return ErrorCode.NONE;
  if (memberEpoch > member.memberEpoch) return ErrorCode.STALE_MEMBER_EPOCH;
  // Kafka 4.4's createAssignmentEpochValidator: the partition's task (by the topology's source
  // and repartition source topics) must be the member's, got at or before the received epoch.
  const topology = group.topology;
  // By name, as Kafka's validator (a commit by topic id has it resolved by the broker).
  return (topicId, partition, name) => {
    const topic = name !== '' ? name : s.metadata.byId(topicId)?.name;
    if (topic === undefined || topology === null) return ErrorCode.STALE_MEMBER_EPOCH;
    const sub = topology.subtopologies.find((x) => x.sourceTopics.includes(topic) || x.repartitionSourceTopics.some((r) => r.name === topic));
    if (sub === undefined) return ErrorCode.STALE_MEMBER_EPOCH;
    const epoch = activeTaskEpoch(member, sub.subtopologyId, partition);
    return epoch === undefined || memberEpoch < epoch ? ErrorCode.STALE_MEMBER_EPOCH : ErrorCode.NONE;
  };
}

/** OffsetFetch v9+ with a member: the member must be at its current epoch. */
export function streamsOffsetFetchError(group: StreamsGroup, memberId: string | null, memberEpoch: number): number {
  if (memberId === null && memberEpoch < 0) return ErrorCode.NONE;
  const member = memberId === null ? undefined : group.member(memberId);
  if (member === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
  return memberEpoch === member.memberEpoch ? ErrorCode.NONE : ErrorCode.STALE_MEMBER_EPOCH;
}
