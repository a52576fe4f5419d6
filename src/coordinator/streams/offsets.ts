/**
 * Offsets of a streams group (Kafka 4.4's StreamsGroup.validateOffsetCommit and
 * validateOffsetFetch): a member commits with its member epoch, as a consumer group's members
 * do. A commit with an older epoch is taken for a partition the member still holds a task of
 * (Kafka 4.4 checks each task's assignment epoch, which Brook does not keep: a task the member
 * holds is accepted).
 */
import { ErrorCode } from '../../protocol/errors.js';
import type { CommitPartitionCheck } from '../consumer/classic-apis.js';
import type { CoordinatorState } from '../coordinator-state.js';
import type { StreamsGroup } from './group.js';
import { hasTask } from './tasks.js';

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
  const subtopologies = group.configuredTopology?.subtopologies ?? null;
  return (topicId, partition) => {
    const topic = s.metadata.byId(topicId)?.name;
    if (topic === undefined || subtopologies === null) return ErrorCode.STALE_MEMBER_EPOCH;
    for (const [id, sub] of subtopologies) {
      if (!sub.sourceTopics.has(topic) && !sub.repartitionSourceTopics.has(topic)) continue;
      if (hasTask(member.assignedTasks.activeTasks, id, partition) || hasTask(member.tasksPendingRevocation.activeTasks, id, partition)) return ErrorCode.NONE;
    }
    return ErrorCode.STALE_MEMBER_EPOCH;
  };
}

/** OffsetFetch v9+ with a member: the member must be at its current epoch. */
export function streamsOffsetFetchError(group: StreamsGroup, memberId: string | null, memberEpoch: number): number {
  if (memberId === null && memberEpoch < 0) return ErrorCode.NONE;
  const member = memberId === null ? undefined : group.member(memberId);
  if (member === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
  return memberEpoch === member.memberEpoch ? ErrorCode.NONE : ErrorCode.STALE_MEMBER_EPOCH;
}
