/**
 * Transactional offset commits, after Kafka's OffsetMetadataManager: TxnOffsetCommit puts
 * offsets aside per producer id ("pending") and writes them as ordinary offset commit
 * records inside the producer's transaction (the records carry its producer id and epoch;
 * the broker writes them as a transactional batch). They become the group's committed
 * offsets when the transaction's COMMIT marker lands in `__consumer_offsets`, and are
 * dropped on ABORT (completeTransaction, Kafka's replayEndTransactionMarker). Until then
 * OffsetFetch with requireStable answers UNSTABLE_OFFSET_COMMIT for those partitions.
 */
import { ErrorCode } from '../protocol/errors.js';
import type { TxnOffsetCommitRequestData, TxnOffsetCommitResponseData } from '../protocol/messages/txn-offset-commit.js';
import type { CoordinatorState } from './coordinator-state.js';
import { applyOffset } from './load.js';
import type { Operation } from './operation.js';
import { offsetCommitRecord, type OffsetAndMetadata } from './records.js';
import type { RequestContext } from './types.js';

/** Kafka's validateTransactionalOffsetCommit (ClassicGroup/ConsumerGroup.validateOffsetCommit with isTransactional). */
function validateTxnOffsetCommit(s: CoordinatorState, op: Operation, req: TxnOffsetCommitRequestData): number {
  // GroupCoordinatorService.commitTransactionalOffsets refuses an empty group id first.
  if (req.groupId === '') return ErrorCode.INVALID_GROUP_ID;
  const generationId = req.generationIdOrMemberEpoch ?? -1;
  const memberId = req.memberId ?? '';
  const groupInstanceId = req.groupInstanceId ?? null;
  const consumerGroup = s.consumerGroups.get(req.groupId);
  if (consumerGroup !== undefined) {
    if (generationId < 0 && consumerGroup.numMembers === 0) return ErrorCode.NONE;
    // TxnOffsetCommit does not require the member fields: they are checked only when given.
    if (generationId < 0 && memberId === '' && groupInstanceId === null) return ErrorCode.NONE;
    const member = consumerGroup.member(memberId);
    if (member === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    // A stale member epoch is ILLEGAL_GENERATION here (Kafka converts STALE_MEMBER_EPOCH).
    return generationId === member.memberEpoch ? ErrorCode.NONE : ErrorCode.ILLEGAL_GENERATION;
  }
  let group = s.groups.get(req.groupId);
  if (group === undefined) {
    // As OffsetCommit: generation -1 (a producer without group management) creates a simple group.
    if (generationId >= 0) return ErrorCode.ILLEGAL_GENERATION;
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

export function txnOffsetCommit(s: CoordinatorState, op: Operation, ctx: RequestContext, req: TxnOffsetCommitRequestData): void {
  const error = validateTxnOffsetCommit(s, op, req);
  const response: TxnOffsetCommitResponseData = {
    throttleTimeMs: 0,
    topics: req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => {
        if (error !== ErrorCode.NONE) return { partitionIndex: p.partitionIndex, errorCode: error };
        const metadata = p.committedMetadata ?? '';
        if (metadata.length > s.config.offsetMetadataMaxBytes) return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.OFFSET_METADATA_TOO_LARGE };
        const offset: OffsetAndMetadata = {
          committedOffset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch ?? -1, metadata, commitTimestampMs: op.nowMs, expireTimestampMs: null,
        };
        op.record({ ...offsetCommitRecord(req.groupId, t.name, p.partitionIndex, offset), producerId: req.producerId, producerEpoch: req.producerEpoch });
        s.pendingTxnOffsets.put(req.producerId, req.groupId, t.name, p.partitionIndex, offset);
        return { partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE };
      }),
    })),
  };
  op.reply(ctx.requestId, response);
}

/**
 * The transaction of `producerId` ended: its marker is in `__consumer_offsets` (live, once
 * appended; or met by replay). COMMIT makes its pending offsets the committed ones, ABORT
 * drops them.
 */
export function completeTransaction(s: CoordinatorState, producerId: bigint, commit: boolean, nowMs: number | null): void {
  const pending = s.pendingTxnOffsets.take(producerId);
  if (pending === undefined || !commit) return;
  for (const [groupId, topics] of pending) {
    for (const [topic, partitions] of topics) {
      for (const [partition, offset] of partitions) applyOffset(s, groupId, topic, partition, offset, nowMs);
    }
  }
}
