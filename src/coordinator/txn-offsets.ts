/**
 * Transactional offset commits, after Kafka's OffsetMetadataManager: TxnOffsetCommit puts
 * offsets aside per producer id ("pending") and writes them as ordinary offset commit
 * records inside the producer's transaction (the records carry its producer id and epoch;
 * the broker writes them as a transactional batch). They become the group's committed
 * offsets when the transaction's COMMIT marker lands in `__consumer_offsets`, and are
 * dropped on ABORT (replay.ts, Kafka's replayEndTransactionMarker). Until then
 * OffsetFetch with requireStable answers UNSTABLE_OFFSET_COMMIT for those partitions.
 */
import { ErrorCode } from '../protocol/errors.js';
import { ZERO_UUID } from '../protocol/messages/runtime.js';
import type { TxnOffsetCommitRequestData, TxnOffsetCommitRequestPartition, TxnOffsetCommitResponseData } from '../protocol/messages/txn-offset-commit.js';
import { consumerOffsetCommitError, type CommitPartitionCheck } from './consumer/classic-apis.js';
import { streamsOffsetCommitError } from './streams/offsets.js';
import type { CoordinatorState } from './coordinator-state.js';
import { firstRefusal, topicName } from './offsets.js';
import type { Operation } from './operation.js';
import { transactionalOffsetCommitRecord, type OffsetAndMetadata } from './records.js';
import { writeRecord } from './replay.js';
import type { RequestContext } from './types.js';

/**
 * Kafka 4.4's validateTransactionalOffsetCommit (ClassicGroup/ConsumerGroup.validateOffsetCommit
 * with isTransactional): NONE, the error for the whole request, or (a consumer group's member
 * with an older epoch) a check per partition. From v6 (KIP-1319) a commit to a group that does
 * not exist is GROUP_ID_NOT_FOUND and a stale member epoch STALE_MEMBER_EPOCH; before, both
 * are ILLEGAL_GENERATION.
 */
function validateTxnOffsetCommit(s: CoordinatorState, op: Operation, req: TxnOffsetCommitRequestData, apiVersion: number): number | CommitPartitionCheck {
  // GroupCoordinatorService.commitTransactionalOffsets refuses an empty group id first.
  if (req.groupId === '') return ErrorCode.INVALID_GROUP_ID;
  const generationId = req.generationIdOrMemberEpoch ?? -1;
  const memberId = req.memberId ?? '';
  const groupInstanceId = req.groupInstanceId ?? null;
  // Kafka's ShareGroup.validateOffsetCommit.
  if (s.shareGroups.has(req.groupId)) return apiVersion >= KIP_1319_VERSION ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.ILLEGAL_GENERATION;
  const consumerGroup = s.consumerGroups.get(req.groupId);
  if (consumerGroup !== undefined) {
    const result = consumerOffsetCommitError(consumerGroup, memberId, groupInstanceId, generationId, true, apiVersion);
    if (typeof result === 'number') return staleAsIllegalGeneration(result, apiVersion);
    return (topicId, partition, name) => staleAsIllegalGeneration(result(topicId, partition, name), apiVersion);
  }
  const streamsGroup = s.streamsGroups.get(req.groupId);
  if (streamsGroup !== undefined) {
    const result = streamsOffsetCommitError(s, streamsGroup, memberId, groupInstanceId, generationId, true, apiVersion);
    if (typeof result === 'number') return staleAsIllegalGeneration(result, apiVersion);
    return (topicId, partition, name) => staleAsIllegalGeneration(result(topicId, partition, name), apiVersion);
  }
  let group = s.groups.get(req.groupId);
  if (group === undefined) {
    // As OffsetCommit: generation -1 (a producer without group management) creates a simple group.
    if (generationId >= 0) return apiVersion >= KIP_1319_VERSION ? ErrorCode.GROUP_ID_NOT_FOUND : ErrorCode.ILLEGAL_GENERATION;
    group = s.getOrCreateGroup(req.groupId, op.nowMs);
  }
  if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  if (generationId < 0 && group.is('Empty')) return ErrorCode.NONE;
  if (generationId >= 0 || memberId !== '' || groupInstanceId !== null) {
    const memberError = group.validateMember(memberId, groupInstanceId);
    if (memberError !== ErrorCode.NONE) return memberError;
    if (generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
  }
  // Unlike OffsetCommit, neither a non-Empty group without member fields nor CompletingRebalance refuses it.
  return ErrorCode.NONE;
}

/** TxnOffsetCommit v6 (KIP-1319) is the first to answer GROUP_ID_NOT_FOUND and STALE_MEMBER_EPOCH. */
const KIP_1319_VERSION = 6;

function staleAsIllegalGeneration(errorCode: number, apiVersion: number): number {
  return errorCode === ErrorCode.STALE_MEMBER_EPOCH && apiVersion < KIP_1319_VERSION ? ErrorCode.ILLEGAL_GENERATION : errorCode;
}

export function txnOffsetCommit(s: CoordinatorState, op: Operation, ctx: RequestContext, req: TxnOffsetCommitRequestData): void {
  const validation = validateTxnOffsetCommit(s, op, req, ctx.apiVersion);
  const tooLarge = (p: TxnOffsetCommitRequestPartition): boolean => (p.committedMetadata ?? '').length > s.config.offsetMetadataMaxBytes;
  // As OffsetCommit: the first partition an older epoch may not commit fails the whole request.
  const error = typeof validation === 'number' ? validation : firstRefusal(req.topics, validation, tooLarge);
  const response: TxnOffsetCommitResponseData = {
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({
      name: t.name,
      topicId: t.topicId,
      partitions: t.partitions.map((p) => {
        if (error !== ErrorCode.NONE) return { partitionIndex: p.partitionIndex, errorCode: error };
        if (tooLarge(p)) return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.OFFSET_METADATA_TOO_LARGE };
        const topic = topicName(t);
        const offset: OffsetAndMetadata = {
          committedOffset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch ?? -1, metadata: p.committedMetadata ?? '',
          commitTimestampMs: op.nowMs, expireTimestampMs: null, topicId: t.topicId ?? ZERO_UUID,
        };
        // Pending until the transaction's marker (replay.ts).
        writeRecord(s, op, transactionalOffsetCommitRecord(req.groupId, topic, p.partitionIndex, offset, req.producerId, req.producerEpoch));
        return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE };
      }),
    })),
  };
  op.reply(ctx.requestId, response);
}
