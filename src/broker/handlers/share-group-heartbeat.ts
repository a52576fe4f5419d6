/**
 * ShareGroupHeartbeat (KIP-932): join, heartbeat and leave of a share group. As Kafka 4.4's
 * KafkaApis: READ on the group (else GROUP_AUTHORIZATION_FAILED), a member id of 1 to 36
 * characters (else INVALID_REQUEST, without a message), and DESCRIBE on every topic the member
 * subscribes to (else TOPIC_AUTHORIZATION_FAILED).
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { ShareGroupHeartbeatRequestData, ShareGroupHeartbeatResponseData } from '../../protocol/messages/share-group-heartbeat.js';
import { shareGroupHeartbeatError } from '../../coordinator/index.js';
import { defineHandler } from '../handler.js';
import { AclOperation, ResourceType, authorize, filterAuthorized, authorizes } from '../authorization.js';

export const shareGroupHeartbeatHandler = defineHandler<ShareGroupHeartbeatRequestData, ShareGroupHeartbeatResponseData>({
  api: Api.ShareGroupHeartbeat,
  authorization: authorizes({ GROUP: ['READ'], TOPIC: ['DESCRIBE'] }),
  minVersion: Api.ShareGroupHeartbeat.request.lowestVersion,
  maxVersion: Api.ShareGroupHeartbeat.request.highestVersion,
  handle(ctx, request) {
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId)) return shareGroupHeartbeatError(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    // KafkaApis.isMemberIdValid: the client's own id (a UUID's text fits).
    if (request.memberId.length === 0 || request.memberId.length > 36) return shareGroupHeartbeatError(ErrorCode.INVALID_REQUEST);
    const subscribed = request.subscribedTopicNames ?? [];
    if (subscribed.length > 0 && filterAuthorized(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, subscribed).size < new Set(subscribed).size) {
      return shareGroupHeartbeatError(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    }
    return ctx.broker.groups.submit(ctx, (c, cctx) => c.shareGroupHeartbeat(cctx, request), (errorCode) => shareGroupHeartbeatError(errorCode));
  },
});
