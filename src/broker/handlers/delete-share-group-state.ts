/**
 * DeleteShareGroupState, as the group coordinator sends it to the share coordinator when a
 * share group's offsets are deleted: the share-partitions' state goes (a tombstone each).
 * Served by the broker's share coordinator (share-coordinator-service.ts), for a principal
 * with CLUSTER_ACTION on the cluster (KafkaApis: else every partition
 * CLUSTER_AUTHORIZATION_FAILED).
 */
import { Api } from '../../protocol/messages/index.js';
import type { DeleteShareGroupStateRequestData, DeleteShareGroupStateResponseData } from '../../protocol/messages/index.js';
import { ErrorCode } from '../../protocol/errors.js';
import { deleteGlobalError } from '../../coordinator/share-state/responses.js';
import { defineHandler } from '../handler.js';
import { AclOperation, authorizeCluster, authorizes } from '../authorization.js';

export const deleteShareGroupStateHandler = defineHandler<DeleteShareGroupStateRequestData, DeleteShareGroupStateResponseData>({
  api: Api.DeleteShareGroupState,
  authorization: authorizes({ CLUSTER: ['CLUSTER_ACTION'] }),
  minVersion: 0,
  maxVersion: Api.DeleteShareGroupState.request.highestVersion,
  handle(ctx, request) {
    if (!authorizeCluster(ctx, AclOperation.CLUSTER_ACTION)) return deleteGlobalError(request, ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    return ctx.broker.shareState.deleteState(request, ctx.signal);
  },
});
