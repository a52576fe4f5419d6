/**
 * KafkaJS's admin.alterPartitionReassignments and admin.listPartitionReassignments over Brook's
 * admin client: KafkaJS's argument checks (its messages), and its errors: a top-level error
 * as a KafkaJSAlterPartitionReassignmentsError, partitions that failed as a KafkaJSAggregateError
 * of one KafkaJSAlterPartitionReassignmentsError each (with `topic` and `partition`).
 */
import type { Admin } from '../client/admin/index.js';
import { ErrorCode, KafkaProtocolError } from '../protocol/errors.js';
import {
  KafkaJSAggregateError, KafkaJSAlterPartitionReassignmentsError, KafkaJSNonRetriableError, kafkajsCall,
} from './errors.js';

export interface PartitionReassignment {
  topic: string;
  partitionAssignment: { partition: number; replicas: number[] }[];
}

export interface ListPartitionReassignmentsResponse {
  topics: { topic: string; partitions: { partition: number; replicas: number[]; addingReplicas: number[]; removingReplicas: number[] }[] }[];
}

function checkTopicNames(topics: { topic: unknown }[]): void {
  if (topics.some(({ topic }) => typeof topic !== 'string')) throw new KafkaJSNonRetriableError('Invalid topics array, the topic names have to be a valid string');
  if (new Set(topics.map(({ topic }) => topic)).size < topics.length) throw new KafkaJSNonRetriableError('Invalid topics array, it cannot have multiple entries for the same topic');
}

/** KafkaJS's error for a Kafka error code, as its alterPartitionReassignments throws it. */
function reassignmentError(code: number, message: string | null, topic?: string, partition?: number): Error {
  return new KafkaJSAlterPartitionReassignmentsError(code, topic, partition, { cause: new KafkaProtocolError(code, message ?? undefined) });
}

export async function alterPartitionReassignments(admin: Admin, { topics }: { topics: PartitionReassignment[]; timeout?: number }): Promise<void> {
  if (!topics || !Array.isArray(topics)) throw new KafkaJSNonRetriableError(`Invalid topics array ${String(topics)}`);
  checkTopicNames(topics);
  for (const { topic, partitionAssignment } of topics) {
    if (!partitionAssignment || !Array.isArray(partitionAssignment)) throw new KafkaJSNonRetriableError(`Invalid partitions array: ${String(partitionAssignment)} for topic: ${topic}`);
    for (const { partition, replicas } of partitionAssignment) {
      if (partition === null || partition === undefined || typeof partition !== 'number' || partition < 0) {
        throw new KafkaJSNonRetriableError(`Invalid partitions index: ${String(partition)} for topic: ${topic}`);
      }
      if (!replicas || !Array.isArray(replicas)) throw new KafkaJSNonRetriableError(`Invalid replica assignment: ${String(replicas)} for topic: ${topic} on partition: ${partition}`);
      if (replicas.some((r) => typeof r !== 'number' || r < 0)) {
        throw new KafkaJSNonRetriableError(`Invalid replica assignment: ${String(replicas)} for topic: ${topic} on partition: ${partition}. Replicas must be a non negative number`);
      }
    }
  }
  let results;
  try {
    results = await admin.alterPartitionReassignments(topics.flatMap(({ topic, partitionAssignment }) => partitionAssignment.map(({ partition, replicas }) => ({ topic, partition, replicas }))));
  } catch (err) {
    if (err instanceof KafkaProtocolError) throw reassignmentError(err.errorCode, err.detail ?? null);
    return kafkajsCall(() => Promise.reject(err));
  }
  const failed = results.filter((r) => r.error !== null);
  if (failed.length > 0) {
    throw Object.assign(new KafkaJSAggregateError('Errors altering partition reassignments'), {
      errors: failed.map((r) => reassignmentError(codeOf(r.error!), r.errorMessage, r.topic, r.partition)),
    });
  }
}

function codeOf(name: string): number {
  return (ErrorCode as Readonly<Record<string, number>>)[name] ?? -1;
}

export async function listPartitionReassignments(admin: Admin, { topics = null }: { topics?: { topic: string; partitions: number[] }[] | null; timeout?: number } = {}): Promise<ListPartitionReassignmentsResponse> {
  if (topics) {
    if (!Array.isArray(topics)) throw new KafkaJSNonRetriableError(`Invalid topics array ${String(topics)}`);
    checkTopicNames(topics);
    for (const { topic, partitions } of topics) {
      if (!partitions || !Array.isArray(partitions)) throw new KafkaJSNonRetriableError(`Invalid partition array: ${String(partitions)} for topic: ${topic}`);
      if (partitions.some((p) => typeof p !== 'number' || p < 0)) {
        throw new KafkaJSNonRetriableError(`Invalid partition array: ${String(partitions)} for topic: ${topic}. The partition indices have to be a valid number greater than 0.`);
      }
    }
  }
  const ongoing = await kafkajsCall(() => admin.listPartitionReassignments(topics ? topics.flatMap(({ topic, partitions }) => partitions.map((partition) => ({ topic, partition }))) : null));
  const byTopic = new Map<string, ListPartitionReassignmentsResponse['topics'][number]['partitions']>();
  for (const o of ongoing) {
    let list = byTopic.get(o.topic);
    if (!list) byTopic.set(o.topic, list = []);
    list.push({ partition: o.partition, replicas: o.replicas, addingReplicas: o.addingReplicas, removingReplicas: o.removingReplicas });
  }
  return { topics: [...byTopic].map(([topic, partitions]) => ({ topic, partitions })) };
}
