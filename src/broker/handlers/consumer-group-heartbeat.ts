/**
 * ConsumerGroupHeartbeat (KIP-848): join, heartbeat and leave of a consumer group using the
 * consumer protocol. As Kafka's KafkaApis, UNSUPPORTED_VERSION when
 * group.coordinator.rebalance.protocols does not include `consumer`.
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { ConsumerGroupHeartbeatRequestData, ConsumerGroupHeartbeatResponseData } from '../../protocol/messages/consumer-group-heartbeat.js';
import { consumerGroupHeartbeatError } from '../../coordinator/index.js';
import { defineHandler } from '../handler.js';
import { AclOperation, ResourceType, authorize, filterAuthorized, authorizes } from '../authorization.js';

export const consumerGroupHeartbeatHandler = defineHandler<ConsumerGroupHeartbeatRequestData, ConsumerGroupHeartbeatResponseData>({
  api: Api.ConsumerGroupHeartbeat,
  authorization: authorizes({ GROUP: ['READ'], TOPIC: ['DESCRIBE'] }),
  minVersion: 0,
  maxVersion: Api.ConsumerGroupHeartbeat.request.highestVersion,
  handle(ctx, request) {
    if (!ctx.broker.config.groupCoordinatorRebalanceProtocols.includes('consumer')) return consumerGroupHeartbeatError(ErrorCode.UNSUPPORTED_VERSION);
    if (!authorize(ctx, AclOperation.READ, ResourceType.GROUP, request.groupId)) return consumerGroupHeartbeatError(ErrorCode.GROUP_AUTHORIZATION_FAILED);
    // Kafka 4: a member may subscribe only to topics it may DESCRIBE.
    const subscribed = request.subscribedTopicNames ?? [];
    if (subscribed.length > 0 && filterAuthorized(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, subscribed).size < new Set(subscribed).size) {
      return consumerGroupHeartbeatError(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    }
    return ctx.broker.groups.submit(ctx, (c, cctx) => c.consumerGroupHeartbeat(cctx, request), (errorCode) => consumerGroupHeartbeatError(errorCode));
  },
});
