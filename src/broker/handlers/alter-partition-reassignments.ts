/**
 * AlterPartitionReassignments, as Kafka's controller answers it (ReplicationControlManager)
 * for a cluster of one broker. Every partition has one replica, this broker, and no
 * reassignment is ever in progress: a reassignment to that same replica list changes nothing
 * and succeeds; any other target fails Kafka's check of a manual assignment
 * (INVALID_REPLICA_ASSIGNMENT, Kafka's messages); cancelling (null replicas) finds nothing to
 * cancel (NO_REASSIGNMENT_IN_PROGRESS). It needs ALTER on the cluster.
 */
import { Api } from '../../protocol/messages/index.js';
import type {
  AlterPartitionReassignmentsRequestData, AlterPartitionReassignmentsResponseData, ReassignablePartition, ReassignablePartitionResponse,
} from '../../protocol/messages/alter-partition-reassignments.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { AclOperation, authorizeCluster, authorizes } from '../authorization.js';
import { defineHandler, type RequestContext } from '../handler.js';
import { assignmentProblem } from './create-partitions.js';

function outcome(p: ReassignablePartition, errorCode: number, errorMessage: string | null): ReassignablePartitionResponse {
  return { partitionIndex: p.partitionIndex, errorCode, errorMessage };
}

/** Kafka's alterPartitionReassignment for one partition, on a single broker. */
function alter(ctx: RequestContext, topic: string, p: ReassignablePartition): ReassignablePartitionResponse {
  const info = ctx.broker.storage.topic(topic);
  if (!info) return outcome(p, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Unable to find a topic named ${topic}.`);
  if (p.partitionIndex < 0 || p.partitionIndex >= info.partitions) {
    return outcome(p, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Unable to find partition ${topic}:${p.partitionIndex}.`);
  }
  // Kafka's exception carries the error's own message, which its answer leaves out (null).
  if (p.replicas === null) return outcome(p, ErrorCode.NO_REASSIGNMENT_IN_PROGRESS, null);
  const problem = assignmentProblem(p.replicas, ctx.broker.config.nodeId);
  if (problem !== null) return outcome(p, ErrorCode.INVALID_REPLICA_ASSIGNMENT, problem);
  // The target is the current replica list ([this broker]): nothing to change. (A change of
  // replication factor, refused when allowReplicationFactorChange is false, cannot pass the
  // check above on one broker.)
  return outcome(p, ErrorCode.NONE, null);
}

export const alterPartitionReassignmentsHandler = defineHandler<AlterPartitionReassignmentsRequestData, AlterPartitionReassignmentsResponseData>({
  api: Api.AlterPartitionReassignments,
  authorization: authorizes({ CLUSTER: ['ALTER'] }),
  minVersion: 0,
  maxVersion: Api.AlterPartitionReassignments.request.highestVersion,
  handle(ctx, request) {
    if (!authorizeCluster(ctx, AclOperation.ALTER)) {
      // As Kafka's error response for the request: the error at the top and on every partition.
      const denied = ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
      const message = errorInfo(denied).message;
      return {
        throttleTimeMs: 0, allowReplicationFactorChange: request.allowReplicationFactorChange ?? true, errorCode: denied, errorMessage: message,
        responses: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => outcome(p, denied, message)) })),
      };
    }
    return {
      throttleTimeMs: 0,
      allowReplicationFactorChange: request.allowReplicationFactorChange ?? true,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      responses: request.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => alter(ctx, t.name, p)) })),
    };
  },
});
