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

export const consumerGroupHeartbeatHandler = defineHandler<ConsumerGroupHeartbeatRequestData, ConsumerGroupHeartbeatResponseData>({
  api: Api.ConsumerGroupHeartbeat,
  minVersion: 0,
  maxVersion: Api.ConsumerGroupHeartbeat.request.highestVersion,
  handle(ctx, request) {
    if (!ctx.broker.config.groupCoordinatorRebalanceProtocols.includes('consumer')) return consumerGroupHeartbeatError(ErrorCode.UNSUPPORTED_VERSION);
    return ctx.broker.groups.submit(ctx, (c, cctx) => c.consumerGroupHeartbeat(cctx, request), (errorCode) => consumerGroupHeartbeatError(errorCode));
  },
});
