/**
 * ShareAcknowledge (KIP-932): a share group member acknowledges records it acquired (ACCEPT,
 * RELEASE, REJECT, RENEW; GAP for offsets without a record), outside a ShareFetch. It must
 * continue the member's share session (epoch 0 is refused with INVALID_SHARE_SESSION_EPOCH);
 * epoch -1 closes the session after its acknowledgements and releases what the member still
 * holds. Each partition is answered once its new state is durable in the share coordinator.
 * Checks as ShareFetch (share-fetch.ts).
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { ShareAcknowledgeRequestData, ShareAcknowledgeResponseData, ShareAcknowledgeTopicResponse } from '../../protocol/messages/share-acknowledge.js';
import { authorizes } from '../authorization.js';
import { defineHandler } from '../handler.js';
import { FINAL_SHARE_SESSION_EPOCH, INITIAL_SHARE_SESSION_EPOCH, sharePartitionRefKey } from '../share/share-sessions.js';
import { acknowledgeAll, checkShareRequest, leader } from '../share/share-requests.js';

function topLevel(errorCode: number, errorMessage: string | null): ShareAcknowledgeResponseData {
  return { throttleTimeMs: 0, errorCode, errorMessage, acquisitionLockTimeoutMs: 0, responses: [], nodeEndpoints: [] };
}

export const shareAcknowledgeHandler = defineHandler<ShareAcknowledgeRequestData, ShareAcknowledgeResponseData>({
  api: Api.ShareAcknowledge,
  authorization: authorizes({ GROUP: ['READ'], TOPIC: ['READ'] }),
  minVersion: 1,
  maxVersion: Api.ShareAcknowledge.request.highestVersion,
  async handle(ctx, request) {
    const shares = ctx.broker.shares;
    const checked = checkShareRequest(ctx, request.groupId, request.memberId);
    if ('errorCode' in checked) return topLevel(checked.errorCode, null);
    const { groupId, memberId } = checked;
    const epoch = request.shareSessionEpoch;
    if (epoch === INITIAL_SHARE_SESSION_EPOCH) return topLevel(ErrorCode.INVALID_SHARE_SESSION_EPOCH, null);
    const found = shares.sessions.next(groupId, memberId, epoch);
    if ('errorCode' in found) return topLevel(found.errorCode, null);

    const acks = await acknowledgeAll(ctx, groupId, memberId, request.topics.flatMap((t) => t.partitions.map((p) => ({
      topicId: t.topicId, partition: p.partitionIndex, batches: p.acknowledgementBatches,
    }))), { renewVersion: ctx.apiVersion >= 2, isRenewAck: request.isRenewAck ?? false });
    if (epoch === FINAL_SHARE_SESSION_EPOCH) {
      shares.sessions.remove(found.session);
      await shares.releaseMember(groupId, memberId, [...found.session.partitions.values()]);
    }
    const responses: ShareAcknowledgeTopicResponse[] = request.topics.map((t) => ({
      topicId: t.topicId,
      partitions: t.partitions.map((p) => {
        const ack = acks.get(sharePartitionRefKey({ topicId: t.topicId, partition: p.partitionIndex }));
        return {
          partitionIndex: p.partitionIndex, errorCode: ack?.errorCode ?? ErrorCode.NONE, errorMessage: ack?.errorMessage ?? null, currentLeader: leader(),
        };
      }),
    }));
    return { ...topLevel(ErrorCode.NONE, null), acquisitionLockTimeoutMs: shares.settingsOf(groupId).recordLockDurationMs, responses };
  },
});
