/**
 * What ShareFetch and ShareAcknowledge share: the member id check, the leader they report,
 * and applying a request's acknowledgements to its share-partitions (in parallel, each
 * answered once durable).
 */
import { ErrorCode } from '../../protocol/errors.js';
import { AclOperation, ResourceType, authorize } from '../authorization.js';
import type { RequestContext } from '../handler.js';
import { AcknowledgeType } from './share-partition.js';
import { sharePartitionRefKey } from './share-sessions.js';

/**
 * What KafkaApis checks first in ShareFetch and ShareAcknowledge, in its order: a group id
 * (only a null one is refused here: an empty one fails at its share-partitions), READ on the
 * group, a valid member id. The request's group and member, or the error code to answer
 * with (code only, as Kafka's getErrorResponse).
 */
export function checkShareRequest(ctx: RequestContext, groupId: string | null, memberId: string | null): { readonly groupId: string; readonly memberId: string } | { readonly errorCode: number } {
  if (groupId === null) return { errorCode: ErrorCode.INVALID_REQUEST };
  if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, groupId)) return { errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
  if (!isShareMemberIdValid(memberId)) return { errorCode: ErrorCode.INVALID_REQUEST };
  return { groupId, memberId };
}

/** Kafka's KafkaApis.isMemberIdValid: 1 to 36 characters (the client sends a UUID). */
export function isShareMemberIdValid(memberId: string | null): memberId is string {
  return memberId !== null && memberId.length > 0 && memberId.length <= 36;
}

/**
 * CurrentLeader of a partition answered without a leadership error: Kafka leaves the
 * field at its defaults (it names the new leader only with NOT_LEADER_OR_FOLLOWER).
 */
export function leader(): { leaderId: number; leaderEpoch: number } {
  return { leaderId: 0, leaderEpoch: 0 };
}

export interface AcknowledgeOutcome {
  readonly errorCode: number;
  readonly errorMessage: string | null;
}

export interface PartitionAcknowledgements {
  readonly topicId: string;
  readonly partition: number;
  readonly batches: readonly { firstOffset: bigint; lastOffset: bigint; acknowledgeTypes: number[] }[];
}

export interface RenewOptions {
  /** Version 2 or later: RENEW (4) is a known type. */
  readonly renewVersion: boolean;
  /** IsRenewAck: the request may carry RENEW; without it a RENEW is refused. */
  readonly isRenewAck: boolean;
}

/**
 * Kafka's KafkaApis.validateAcknowledgementBatches: each batch's offsets in order (a batch may
 * start at the previous one's last offset, not before it), at least one type, one type or
 * one per offset, known types only, RENEW only with IsRenewAck. Kafka answers INVALID_REQUEST
 * without a message, before the share-partition is looked at.
 */
export function acknowledgementBatchesValid(batches: PartitionAcknowledgements['batches'], renew: RenewOptions): boolean {
  const maxType = renew.renewVersion ? AcknowledgeType.RENEW : AcknowledgeType.REJECT;
  let previousLast = -1n;
  for (const b of batches) {
    if (b.firstOffset > b.lastOffset || b.firstOffset < previousLast) return false;
    const types = b.acknowledgeTypes;
    if (types.length === 0) return false;
    if (types.length > 1 && b.lastOffset - b.firstOffset !== BigInt(types.length - 1)) return false;
    if (types.some((t) => t < 0 || t > maxType)) return false;
    if (!renew.isRenewAck && types.includes(AcknowledgeType.RENEW)) return false;
    previousLast = b.lastOffset;
  }
  return true;
}

/** Applies each partition's acknowledgements; the outcome by `topicId:partition`, for partitions that had any. */
export async function acknowledgeAll(ctx: RequestContext, groupId: string, memberId: string, partitions: readonly PartitionAcknowledgements[], renew: RenewOptions): Promise<Map<string, AcknowledgeOutcome>> {
  const { storage, shares } = ctx.broker;
  const outcomes = new Map<string, AcknowledgeOutcome>();
  await Promise.all(partitions.map(async (p) => {
    if (p.batches.length === 0) return;
    const key = sharePartitionRefKey(p);
    if (!acknowledgementBatchesValid(p.batches, renew)) {
      outcomes.set(key, { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: null });
      return;
    }
    const topic = storage.topicById(p.topicId)?.name;
    if (topic !== undefined && ctx.broker.acls !== null && !authorize(ctx, AclOperation.READ, ResourceType.TOPIC, topic)) {
      outcomes.set(key, { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: null });
      return;
    }
    const batches = p.batches.map((b) => ({ firstOffset: Number(b.firstOffset), lastOffset: Number(b.lastOffset), acknowledgeTypes: b.acknowledgeTypes }));
    outcomes.set(key, await shares.acknowledge(groupId, memberId, p.topicId, topic, p.partition, batches));
  }));
  return outcomes;
}
