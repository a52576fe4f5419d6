/**
 * ListPartitionReassignments for a cluster of one broker: no partition is ever being
 * reassigned (see alter-partition-reassignments.ts), so the answer lists none. It needs
 * DESCRIBE on the cluster, as Kafka's.
 */
import { Api } from '../../protocol/messages/index.js';
import type { ListPartitionReassignmentsRequestData, ListPartitionReassignmentsResponseData } from '../../protocol/messages/list-partition-reassignments.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { AclOperation, authorizeCluster, authorizes } from '../authorization.js';
import { defineHandler } from '../handler.js';

export const listPartitionReassignmentsHandler = defineHandler<ListPartitionReassignmentsRequestData, ListPartitionReassignmentsResponseData>({
  api: Api.ListPartitionReassignments,
  authorization: authorizes({ CLUSTER: ['DESCRIBE'] }),
  minVersion: 0,
  maxVersion: Api.ListPartitionReassignments.request.highestVersion,
  handle(ctx) {
    if (!authorizeCluster(ctx, AclOperation.DESCRIBE)) {
      return { throttleTimeMs: 0, errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: errorInfo(ErrorCode.CLUSTER_AUTHORIZATION_FAILED).message, topics: [] };
    }
    // No partition of a single broker is ever being reassigned.
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, topics: [] };
  },
});
