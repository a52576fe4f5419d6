/**
 * Metadata: the one broker (also the controller), and each requested topic with its
 * partitions, all led by this broker. Unknown topics are created when auto-creation is on
 * and the request allows it (v4+; earlier versions always allow it, as in Kafka).
 * Deliberate difference: Kafka (4.x, KRaft) answers the request that triggers an
 * auto-creation with UNKNOWN_TOPIC_OR_PARTITION (retriable), a zero topic id and no
 * partitions, because creation goes through its controller asynchronously (ZooKeeper-era
 * Kafka said LEADER_NOT_AVAILABLE); Brook creates topics synchronously and describes them
 * at once. Clients retry on either error, so they only see the topic sooner.
 *
 * With an authorizer, as Kafka's KafkaApis: a listing of all topics leaves out those the
 * client may not DESCRIBE; a named one it may not DESCRIBE answers TOPIC_AUTHORIZATION_FAILED
 * whether it exists or not; auto-creation needs CREATE on the cluster or on the topic.
 *
 * v13's top-level error code (KIP-1102, REBOOTSTRAP_REQUIRED for clients) is NONE: Kafka
 * 4.4's broker never sets it either.
 */
import { Api } from '../../protocol/messages/index.js';
import type { MetadataRequestData, MetadataResponseData, MetadataResponseTopic } from '../../protocol/messages/metadata.js';
import { ErrorCode } from '../../protocol/errors.js';
import { ZERO_UUID } from '../../protocol/messages/runtime.js';
import type { TopicMetadata } from '../../storage/types.js';
import { StorageError } from '../../storage/errors.js';
import { validateTopicName } from '../../storage/catalog.js';
import { defineHandler } from '../handler.js';
import type { BrokerContext } from '../broker-context.js';
import type { RequestContext } from '../handler.js';
import { AclOperation, CLUSTER_NAME, ResourceType, OPERATIONS_NOT_REQUESTED, authorize, authorizeCluster, authorizedOperations, authorizes } from '../authorization.js';

export function describeTopic(broker: BrokerContext, topic: TopicMetadata): MetadataResponseTopic {
  const nodeId = broker.config.nodeId;
  const offline = broker.controls.offlinePartitions;
  const partitions = new Array(topic.partitions);
  for (let p = 0; p < topic.partitions; p++) {
    // An offline partition (a test control): no leader, its one replica offline, as Kafka describes a partition whose broker is gone.
    partitions[p] = offline.has(topic.name, p)
      ? { errorCode: ErrorCode.LEADER_NOT_AVAILABLE, partitionIndex: p, leaderId: -1, leaderEpoch: 0, replicaNodes: [nodeId], isrNodes: [nodeId], offlineReplicas: [nodeId] }
      : { errorCode: ErrorCode.NONE, partitionIndex: p, leaderId: nodeId, leaderEpoch: 0, replicaNodes: [nodeId], isrNodes: [nodeId], offlineReplicas: [] };
  }
  return {
    errorCode: ErrorCode.NONE,
    name: topic.name,
    topicId: topic.topicId,
    isInternal: topic.isInternal,
    partitions,
    topicAuthorizedOperations: OPERATIONS_NOT_REQUESTED,
  };
}

/** Kafka's Topic.isInternal: by name, whether or not the topic exists yet. */
export const INTERNAL_TOPIC_NAMES: ReadonlySet<string> = new Set(['__consumer_offsets', '__transaction_state', '__share_group_state']);

function missingTopic(name: string | null, topicId: string, errorCode: number): MetadataResponseTopic {
  const isInternal = name !== null && INTERNAL_TOPIC_NAMES.has(name);
  return { errorCode, name, topicId, isInternal, partitions: [], topicAuthorizedOperations: OPERATIONS_NOT_REQUESTED };
}

function unauthorized(name: string | null, topicId: string, isInternal: boolean): MetadataResponseTopic {
  return { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name, topicId, isInternal, partitions: [], topicAuthorizedOperations: OPERATIONS_NOT_REQUESTED };
}

/** v8+: Kafka sets the client's operations on every topic it describes (unknown ones too). */
function withOperations(ctx: RequestContext, topic: MetadataResponseTopic, include: boolean): MetadataResponseTopic {
  if (include) topic.topicAuthorizedOperations = authorizedOperations(ctx, ResourceType.TOPIC, topic.name ?? '');
  return topic;
}

export const metadataHandler = defineHandler<MetadataRequestData, MetadataResponseData>({
  api: Api.Metadata,
  authorization: authorizes({ TOPIC: ['DESCRIBE', 'CREATE'], CLUSTER: ['DESCRIBE', 'CREATE'] }),
  minVersion: 0,
  maxVersion: Api.Metadata.request.highestVersion,
  handle(ctx, request) {
    const { broker, apiVersion } = ctx;
    const includeTopicOps = request.includeTopicAuthorizedOperations === true;
    // v0 has no null: an empty list meant "all topics" then.
    const all = request.topics === null || (apiVersion === 0 && request.topics.length === 0);
    const allowAutoCreate = apiVersion < 4 || request.allowAutoTopicCreation !== false;
    let topics: MetadataResponseTopic[];
    if (all) {
      topics = [];
      for (const t of broker.storage.topics()) if (authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, t.name)) topics.push(describeTopic(broker, t));
    } else {
      const autoCreate = allowAutoCreate && broker.config.autoCreateTopics;
      let mayCreateAny: boolean | undefined;
      topics = request.topics!.map((wanted) => {
        if (wanted.name === null) {
          const byId = wanted.topicId ? broker.storage.topicById(wanted.topicId) : undefined;
          if (byId === undefined) return missingTopic(null, wanted.topicId ?? ZERO_UUID, ErrorCode.UNKNOWN_TOPIC_ID);
          // Kafka: topic ids are not secret, so the id comes back with the error (the name does not).
          if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, byId.name)) return unauthorized(null, byId.topicId, false);
          return withOperations(ctx, describeTopic(broker, byId), includeTopicOps);
        }
        // Kafka does not even look whether a topic the client may not describe exists.
        if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, wanted.name)) return unauthorized(wanted.name, ZERO_UUID, false);
        if (autoCreate && broker.storage.topic(wanted.name) === undefined) {
          mayCreateAny ??= authorizeCluster(ctx, AclOperation.CREATE);
          if (!mayCreateAny && !authorize(ctx, AclOperation.CREATE, ResourceType.TOPIC, wanted.name)) {
            return unauthorized(wanted.name, ZERO_UUID, INTERNAL_TOPIC_NAMES.has(wanted.name));
          }
        }
        try {
          const topic = broker.topicForProduceOrMetadata(wanted.name, allowAutoCreate);
          if (topic) return withOperations(ctx, describeTopic(broker, topic), includeTopicOps);
          // As Kafka: a name that could never exist is INVALID_TOPIC_EXCEPTION, auto-creation or not.
          validateTopicName(wanted.name);
          return withOperations(ctx, missingTopic(wanted.name, ZERO_UUID, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION), includeTopicOps);
        } catch (err) {
          if (err instanceof StorageError) return withOperations(ctx, missingTopic(wanted.name, ZERO_UUID, err.errorCode), includeTopicOps);
          throw err;
        }
      });
    }
    if (all && includeTopicOps) for (const t of topics) withOperations(ctx, t, true);
    // v8-v10: the cluster's operations, 0 without DESCRIBE on it.
    let clusterAuthorizedOperations = OPERATIONS_NOT_REQUESTED;
    if (request.includeClusterAuthorizedOperations === true) {
      clusterAuthorizedOperations = authorizeCluster(ctx, AclOperation.DESCRIBE) ? authorizedOperations(ctx, ResourceType.CLUSTER, CLUSTER_NAME) : 0;
    }
    return {
      throttleTimeMs: 0,
      brokers: [{ nodeId: broker.config.nodeId, host: broker.advertisedHost, port: broker.advertisedPort, rack: null }],
      clusterId: broker.storage.clusterId,
      controllerId: broker.config.nodeId,
      topics,
      clusterAuthorizedOperations,
      errorCode: ErrorCode.NONE,
    };
  },
});
