/**
 * ConsumerGroupDescribe (KIP-848): epochs, assignor, members and assignments of consumer
 * groups, in request order. UNSUPPORTED_VERSION for every group when the consumer protocol
 * is disabled, as Kafka's KafkaApis.
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { ConsumerGroupDescribeRequestData, ConsumerGroupDescribeResponseData } from '../../protocol/messages/consumer-group-describe.js';
import { OPERATIONS_NOT_REQUESTED } from '../authorization.js';
import { defineHandler } from '../handler.js';

function errorResponse(request: ConsumerGroupDescribeRequestData, errorCode: number): ConsumerGroupDescribeResponseData {
  return {
    throttleTimeMs: 0,
    groups: request.groupIds.map((groupId) => ({
      errorCode, errorMessage: null, groupId, groupState: '', groupEpoch: 0, assignmentEpoch: 0, assignorName: '', members: [], authorizedOperations: OPERATIONS_NOT_REQUESTED,
    })),
  };
}

export const consumerGroupDescribeHandler = defineHandler<ConsumerGroupDescribeRequestData, ConsumerGroupDescribeResponseData>({
  api: Api.ConsumerGroupDescribe,
  minVersion: 0,
  maxVersion: Api.ConsumerGroupDescribe.request.highestVersion,
  handle(ctx, request) {
    if (!ctx.broker.config.groupCoordinatorRebalanceProtocols.includes('consumer')) return errorResponse(request, ErrorCode.UNSUPPORTED_VERSION);
    return ctx.broker.groups.submit(ctx, (c, cctx) => c.consumerGroupDescribe(cctx, request), (errorCode) => errorResponse(request, errorCode));
  },
});
