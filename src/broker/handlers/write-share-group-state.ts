/**
 * WriteShareGroupState, as a share-partition leader sends it to the share coordinator as
 * records are acknowledged: the start offset and the state batches that changed, answered
 * once durable. Served by the broker's share coordinator (share-coordinator-service.ts),
 * for a principal with CLUSTER_ACTION on the cluster (KafkaApis: else every partition
 * CLUSTER_AUTHORIZATION_FAILED).
 */
import { Api } from '../../protocol/messages/index.js';
import type { WriteShareGroupStateRequestData, WriteShareGroupStateResponseData } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import { writeGlobalError } from '../../coordinator/share-state/responses.js';
import { defineHandler } from '../handler.js';
import { AclOperation, authorizeCluster, authorizes } from '../authorization.js';

export const writeShareGroupStateHandler = defineHandler<WriteShareGroupStateRequestData, WriteShareGroupStateResponseData>({
  api: Api.WriteShareGroupState,
  authorization: authorizes({ CLUSTER: ['CLUSTER_ACTION'] }),
  minVersion: 0,
  maxVersion: Api.WriteShareGroupState.request.highestVersion,
  handle(ctx, request) {
    if (!authorizeCluster(ctx, AclOperation.CLUSTER_ACTION)) return writeGlobalError(request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    return ctx.broker.shareState.writeState(request, ctx.signal);
  },
});
