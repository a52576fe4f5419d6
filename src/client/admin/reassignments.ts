/**
 * Partition reassignments (Java's Admin.alterPartitionReassignments and
 * listPartitionReassignments): AlterPartitionReassignments and ListPartitionReassignments,
 * sent to any broker (Kafka's brokers forward them to the controller).
 */
import { Api } from '../../protocol/messages/index.js';
import type { TopicPartition } from '../../assignors/types.js';
import { errorInfo } from '../../protocol/errors.js';
import { check, groupByTopic, type AdminContext } from './requests.js';

/** A partition's new replica list, or null to cancel its reassignment in progress. */
export interface PartitionReassignment extends TopicPartition {
  readonly replicas: readonly number[] | null;
}

/** What the controller did with one partition's reassignment: null, or Kafka's error name and message. */
export interface PartitionReassignmentResult extends TopicPartition {
  readonly error: string | null;
  readonly errorMessage: string | null;
}

/** A reassignment in progress: the replicas now, those being added and those being removed. */
export interface OngoingPartitionReassignment extends TopicPartition {
  readonly replicas: number[];
  readonly addingReplicas: number[];
  readonly removingReplicas: number[];
}

export async function alterPartitionReassignments(
  ctx: AdminContext, reassignments: readonly PartitionReassignment[], allowReplicationFactorChange: boolean,
): Promise<PartitionReassignmentResult[]> {
  const connection = await ctx.cluster.anyConnection(ctx.signal);
  const response = await connection.request(Api.AlterPartitionReassignments, {
    timeoutMs: ctx.apiTimeoutMs,
    allowReplicationFactorChange,
    topics: [...groupByTopic(reassignments)].map(([name, ps]) => ({ name, partitions: ps.map((p) => ({ partitionIndex: p.partition, replicas: p.replicas === null ? null : [...p.replicas] })) })),
  }, { signal: ctx.signal });
  check(response.errorCode, response.errorMessage);
  return response.responses.flatMap((t) => t.partitions.map((p) => ({
    topic: t.name, partition: p.partitionIndex, error: p.errorCode === 0 ? null : errorInfo(p.errorCode).name, errorMessage: p.errorMessage,
  })));
}

/** Reassignments in progress, of these partitions or (none given) of every partition. */
export async function listPartitionReassignments(ctx: AdminContext, partitions: readonly TopicPartition[] | null): Promise<OngoingPartitionReassignment[]> {
  const connection = await ctx.cluster.anyConnection(ctx.signal);
  const response = await connection.request(Api.ListPartitionReassignments, {
    timeoutMs: ctx.apiTimeoutMs,
    topics: partitions === null ? null : [...groupByTopic(partitions)].map(([name, ps]) => ({ name, partitionIndexes: ps.map((p) => p.partition) })),
  }, { signal: ctx.signal });
  check(response.errorCode, response.errorMessage);
  return response.topics.flatMap((t) => t.partitions.map((p) => ({
    topic: t.name, partition: p.partitionIndex, replicas: p.replicas, addingReplicas: p.addingReplicas, removingReplicas: p.removingReplicas,
  })));
}
