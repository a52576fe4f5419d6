/**
 * InitializeShareGroupState, as the group coordinator sends it to the share coordinator
 * when a share group first consumes a partition: the share-partition's state starts at a
 * state epoch and start offset (ShareCoordinatorShard.initializeState). Served by the
 * broker's share coordinator (share-coordinator-service.ts), for a principal with
 * CLUSTER_ACTION on the cluster (KafkaApis: else every partition
 * CLUSTER_AUTHORIZATION_FAILED).
 */
import { Api } from '../../protocol/messages/index.js';
import type { InitializeShareGroupStateRequestData, InitializeShareGroupStateResponseData } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import { initializeGlobalError } from '../../coordinator/share-state/responses.js';
import { defineHandler } from '../handler.js';
import { AclOperation, authorizeCluster, authorizes } from '../authorization.js';

export const initializeShareGroupStateHandler = defineHandler<InitializeShareGroupStateRequestData, InitializeShareGroupStateResponseData>({
  api: Api.InitializeShareGroupState,
  authorization: authorizes({ CLUSTER: ['CLUSTER_ACTION'] }),
  minVersion: 0,
  maxVersion: Api.InitializeShareGroupState.request.highestVersion,
  handle(ctx, request) {
    if (!authorizeCluster(ctx, AclOperation.CLUSTER_ACTION)) return initializeGlobalError(request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    return ctx.broker.shareState.initializeState(request, ctx.signal);
  },
});
