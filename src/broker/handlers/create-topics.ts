/**
 * CreateTopics: one broker, so the replication factor must be 1 (or -1 for the default)
 * and a manual assignment may only name this broker. `validateOnly` checks without
 * creating. From v5 the result carries the topic id, partition count, replication factor
 * and every config, as Kafka's does.
 *
 * With an authorizer, as Kafka's ControllerApis: CREATE on the cluster or on the topic, else
 * TOPIC_AUTHORIZATION_FAILED (after the others); without DESCRIBE_CONFIGS on the topic a
 * created topic's result carries no configs, partitions or replication factor, and
 * topicConfigErrorCode TOPIC_AUTHORIZATION_FAILED.
 */
import { Api } from '../../protocol/messages/index.js';
import type { CreateTopicsRequestData, CreateTopicsResponseData, CreatableTopicResult, CreatableTopic } from '../../protocol/messages/create-topics.js';
import { ErrorCode } from '../../protocol/errors.js';
import { ZERO_UUID } from '../../protocol/messages/runtime.js';
import { StorageError } from '../../storage/errors.js';
import { defineHandler, type RequestContext } from '../handler.js';
import { topicConfigViews } from '../topic-config-view.js';
import { AclOperation, ResourceType, authorize, authorizeCluster, authorizes } from '../authorization.js';

/** A failed topic, with Kafka's schema defaults (an empty configs list, not null). */
function result(name: string, errorCode: number, errorMessage: string | null): CreatableTopicResult {
  return { name, topicId: ZERO_UUID, errorCode, errorMessage, numPartitions: -1, replicationFactor: -1, configs: [] };
}

function create(ctx: RequestContext, t: CreatableTopic, validateOnly: boolean): CreatableTopicResult {
  const created = createTopic(ctx, t, validateOnly);
  if (created.errorCode !== ErrorCode.NONE || authorize(ctx, AclOperation.DESCRIBE_CONFIGS, ResourceType.TOPIC, t.name)) return created;
  return { ...created, numPartitions: -1, replicationFactor: -1, configs: [], topicConfigErrorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED };
}

/**
 * Creates (or with `validateOnly` checks) one topic, without authorization: the callers
 * authorize first (this handler, and the streams groups' internal topics, which Kafka creates
 * through the same CreateTopics path). The caller tells the group coordinator of new topics.
 */
export function createTopic(ctx: RequestContext, t: CreatableTopic, validateOnly: boolean): CreatableTopicResult {
  const { broker } = ctx;
  const nodeId = broker.config.nodeId;
  if (t.assignments.length > 0) {
    if (t.numPartitions !== -1 || t.replicationFactor !== -1) {
      return result(t.name, ErrorCode.INVALID_REQUEST, 'Both numPartitions or replicationFactor and replicasAssignments were set. Both cannot be used at the same time.');
    }
    const bad = t.assignments.find((a) => a.brokerIds.length !== 1 || a.brokerIds[0] !== nodeId);
    if (bad) return result(t.name, ErrorCode.INVALID_REPLICA_ASSIGNMENT, `Partition ${bad.partitionIndex} may only be assigned to broker ${nodeId}.`);
  }
  const partitions = t.assignments.length > 0 ? t.assignments.length : t.numPartitions === -1 ? broker.config.numPartitions : t.numPartitions;
  if (t.replicationFactor !== -1 && t.replicationFactor !== 1) {
    return result(t.name, ErrorCode.INVALID_REPLICATION_FACTOR, `Unable to replicate the partition ${t.replicationFactor} time(s): The target replication factor of ${t.replicationFactor} cannot be reached because only 1 broker(s) are registered.`);
  }
  if (partitions <= 0) return result(t.name, ErrorCode.INVALID_PARTITIONS, 'Number of partitions must be larger than 0.');
  const configs: Record<string, string> = {};
  for (const c of t.configs) {
    if (c.value !== null) configs[c.name] = c.value;
  }
  if (broker.storage.topic(t.name)) return result(t.name, ErrorCode.TOPIC_ALREADY_EXISTS, `Topic '${t.name}' already exists.`);
  let topicId = ZERO_UUID;
  try {
    if (validateOnly) broker.storage.validateTopic(t.name, partitions, configs);
    else {
      topicId = broker.storage.createTopic(t.name, partitions, configs).topicId;
      broker.log.info('created topic', { topic: t.name, partitions });
    }
  } catch (err) {
    if (err instanceof StorageError) return result(t.name, err.errorCode, err.message);
    throw err;
  }
  return {
    name: t.name, topicId, errorCode: ErrorCode.NONE, errorMessage: null, numPartitions: partitions, replicationFactor: 1,
    configs: topicConfigViews(configs, broker.storage, broker.config.nodeId).map((c) => ({
      name: c.name, value: c.value, readOnly: false, configSource: c.source, isSensitive: false,
    })),
  };
}

export const createTopicsHandler = defineHandler<CreateTopicsRequestData, CreateTopicsResponseData>({
  api: Api.CreateTopics,
  authorization: authorizes({ CLUSTER: ['CREATE'], TOPIC: ['CREATE', 'DESCRIBE_CONFIGS'] }),
  // v0-1 were removed in Kafka 4 (KIP-896).
  minVersion: 2,
  maxVersion: Api.CreateTopics.request.highestVersion,
  handle(ctx, request) {
    const counts = new Map<string, number>();
    for (const t of request.topics) counts.set(t.name, (counts.get(t.name) ?? 0) + 1);
    // As Kafka (ControllerApis.createTopics): the unique names are created, then each name
    // given more than once gets one INVALID_REQUEST result, at the end.
    const mayCreateAny = authorizeCluster(ctx, AclOperation.CREATE);
    const unique = request.topics.filter((t) => counts.get(t.name) === 1);
    const allowed = mayCreateAny ? unique : unique.filter((t) => authorize(ctx, AclOperation.CREATE, ResourceType.TOPIC, t.name));
    const topics = allowed.map((t) => create(ctx, t, request.validateOnly === true));
    if (topics.some((t) => t.errorCode === ErrorCode.NONE) && request.validateOnly !== true) ctx.broker.groups.topicsChanged();
    for (const [name, count] of counts) {
      if (count > 1) topics.push(result(name, ErrorCode.INVALID_REQUEST, 'Duplicate topic name.'));
    }
    for (const t of unique) if (!allowed.includes(t)) topics.push(result(t.name, ErrorCode.TOPIC_AUTHORIZATION_FAILED, 'Authorization failed.'));
    return { throttleTimeMs: 0, topics };
  },
});
