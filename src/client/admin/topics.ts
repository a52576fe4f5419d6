/**
 * Topic operations: CreateTopics, DeleteTopics and Metadata. In a KRaft cluster any broker
 * forwards CreateTopics/DeleteTopics to the controller, so they go to any broker.
 */
import { Api } from '../../protocol/messages/index.js';
import { ErrorCode, KafkaProtocolError } from '../../protocol/errors.js';
import { ZERO_UUID } from '../cluster.js';
import { check, type AdminContext } from './requests.js';
import type { CreatePartitionsOptions, NewTopic, TopicDescription } from './types.js';

export async function createTopic(ctx: AdminContext, topic: NewTopic): Promise<void> {
  const connection = await ctx.cluster.anyConnection(ctx.signal);
  const response = await connection.request(Api.CreateTopics, {
    topics: [{
      name: topic.name,
      numPartitions: topic.partitions ?? -1,
      replicationFactor: topic.replicationFactor ?? -1,
      assignments: [],
      configs: Object.entries(topic.configs ?? {}).map(([name, value]) => ({ name, value })),
    }],
    timeoutMs: ctx.apiTimeoutMs,
    validateOnly: false,
  }, { signal: ctx.signal });
  const result = response.topics[0];
  if (!result) throw new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, 'empty CreateTopics response');
  check(result.errorCode, result.errorMessage);
  ctx.cluster.invalidateTopic(topic.name);
}

/** Raises the topic's partition count to `count` (CreatePartitions, at any broker: it forwards to the controller). */
export async function createPartitions(ctx: AdminContext, topic: string, count: number, options: CreatePartitionsOptions): Promise<void> {
  const connection = await ctx.cluster.anyConnection(ctx.signal);
  const response = await connection.request(Api.CreatePartitions, {
    topics: [{ name: topic, count, assignments: options.assignments ? options.assignments.map((ids) => ({ brokerIds: [...ids] })) : null }],
    timeoutMs: ctx.apiTimeoutMs,
    validateOnly: options.validateOnly ?? false,
  }, { signal: ctx.signal });
  const result = response.results[0];
  if (!result) throw new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, 'empty CreatePartitions response');
  check(result.errorCode, result.errorMessage ?? topic);
  ctx.cluster.invalidateTopic(topic);
}

export async function deleteTopic(ctx: AdminContext, name: string): Promise<void> {
  const connection = await ctx.cluster.anyConnection(ctx.signal);
  // v6+ names topics in `topics` (by name or id); older versions in `topicNames`. The codec
  // writes whichever the negotiated version has.
  const response = await connection.request(Api.DeleteTopics, {
    topicNames: [name], topics: [{ name, topicId: ZERO_UUID }], timeoutMs: ctx.apiTimeoutMs,
  }, { signal: ctx.signal });
  const result = response.responses[0];
  if (!result) throw new KafkaProtocolError(ErrorCode.UNKNOWN_SERVER_ERROR, 'empty DeleteTopics response');
  check(result.errorCode, result.errorMessage ?? name);
  ctx.cluster.invalidateTopic(name);
}

async function metadata(ctx: AdminContext, topics: string[] | null) {
  const connection = await ctx.cluster.anyConnection(ctx.signal);
  return connection.request(Api.Metadata, {
    topics: topics === null ? null : topics.map((name) => ({ name, topicId: ZERO_UUID })),
    allowAutoTopicCreation: false,
    includeClusterAuthorizedOperations: false,
    includeTopicAuthorizedOperations: false,
  }, { signal: ctx.signal });
}

/** Names of all topics, internal ones included, sorted. */
export async function listTopics(ctx: AdminContext): Promise<string[]> {
  const response = await metadata(ctx, null);
  return response.topics.map((t) => t.name ?? '').filter((n) => n !== '').sort();
}

export async function describeTopic(ctx: AdminContext, name: string): Promise<TopicDescription> {
  const response = await metadata(ctx, [name]);
  const topic = response.topics.find((t) => t.name === name);
  if (!topic) throw new KafkaProtocolError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name);
  check(topic.errorCode, name);
  return {
    name,
    topicId: topic.topicId ?? ZERO_UUID,
    internal: topic.isInternal ?? false,
    partitions: topic.partitions
      .map((p) => ({ partition: p.partitionIndex, leader: p.leaderId, replicas: p.replicaNodes, isr: p.isrNodes }))
      .sort((a, b) => a.partition - b.partition),
  };
}
