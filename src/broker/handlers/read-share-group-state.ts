/**
 * ReadShareGroupState, as a share-partition leader sends it to the share coordinator when
 * it loads a share-partition: its state (start offset, state epoch, state batches); a new
 * leader epoch is recorded, which fences the writes of older leaders. Served by the
 * broker's share coordinator (share-coordinator-service.ts), for a principal with
 * CLUSTER_ACTION on the cluster (KafkaApis: else every partition
 * CLUSTER_AUTHORIZATION_FAILED).
 */
import { Api } from '../../protocol/messages/index.js';
import type { ReadShareGroupStateRequestData, ReadShareGroupStateResponseData } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import { readGlobalError } from '../../coordinator/share-state/responses.js';
import { defineHandler } from '../handler.js';
import { AclOperation, authorizeCluster, authorizes } from '../authorization.js';

export const readShareGroupStateHandler = defineHandler<ReadShareGroupStateRequestData, ReadShareGroupStateResponseData>({
  api: Api.ReadShareGroupState,
  authorization: authorizes({ CLUSTER: ['CLUSTER_ACTION'] }),
  minVersion: 0,
  maxVersion: Api.ReadShareGroupState.request.highestVersion,
  handle(ctx, request) {
    if (!authorizeCluster(ctx, AclOperation.CLUSTER_ACTION)) return readGlobalError(request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    return ctx.broker.shareState.readState(request, ctx.signal);
  },
});
