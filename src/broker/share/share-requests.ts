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
  /** IsRenewAck: the request may carry RENEW; without it a RENEW is an invalid type. */
  readonly renew: boolean;
}

/** Applies each partition's acknowledgements; the outcome by `topicId:partition`, for partitions that had any. */
export async function acknowledgeAll(ctx: RequestContext, groupId: string, memberId: string, partitions: readonly PartitionAcknowledgements[]): Promise<Map<string, AcknowledgeOutcome>> {
  const { storage, shares } = ctx.broker;
  const outcomes = new Map<string, AcknowledgeOutcome>();
  await Promise.all(partitions.map(async (p) => {
    if (p.batches.length === 0) return;
    const key = sharePartitionRefKey(p);
    const topic = storage.topicById(p.topicId)?.name;
    if (topic !== undefined && ctx.broker.acls !== null && !authorize(ctx, AclOperation.READ, ResourceType.TOPIC, topic)) {
      outcomes.set(key, { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: null });
      return;
    }
    if (!p.renew && p.batches.some((b) => b.acknowledgeTypes.includes(AcknowledgeType.RENEW))) {
      outcomes.set(key, { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: 'Renew acknowledgement requires IsRenewAck to be set' });
      return;
    }
    const batches = p.batches.map((b) => ({ firstOffset: Number(b.firstOffset), lastOffset: Number(b.lastOffset), acknowledgeTypes: b.acknowledgeTypes }));
    outcomes.set(key, await shares.acknowledge(groupId, memberId, p.topicId, topic, p.partition, batches));
  }));
  return outcomes;
}
