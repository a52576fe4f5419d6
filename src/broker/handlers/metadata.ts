/**
 * Metadata: the one broker (also the controller), and each requested topic with its
 * partitions, all led by this broker. Unknown topics are created when auto-creation is on
 * and the request allows it (v4+; earlier versions always allow it, as in Kafka).
 * Deliberate difference: Kafka (4.x, KRaft) answers the request that triggers an
 * auto-creation with UNKNOWN_TOPIC_OR_PARTITION (retriable), a zero topic id and no
 * partitions, because creation goes through its controller asynchronously (ZooKeeper-era
 * Kafka said LEADER_NOT_AVAILABLE); Brook creates topics synchronously and describes them
 * at once. Clients retry on either error, so they only see the topic sooner.
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
import { CLUSTER_OPERATIONS, OPERATIONS_NOT_REQUESTED, TOPIC_OPERATIONS } from '../authorized-operations.js';

export function describeTopic(broker: BrokerContext, topic: TopicMetadata, includeOperations: boolean): MetadataResponseTopic {
  const nodeId = broker.config.nodeId;
  const partitions = new Array(topic.partitions);
  for (let p = 0; p < topic.partitions; p++) {
    partitions[p] = {
      errorCode: ErrorCode.NONE, partitionIndex: p, leaderId: nodeId, leaderEpoch: 0,
      replicaNodes: [nodeId], isrNodes: [nodeId], offlineReplicas: [],
    };
  }
  return {
    errorCode: ErrorCode.NONE,
    name: topic.name,
    topicId: topic.topicId,
    isInternal: topic.isInternal,
    partitions,
    topicAuthorizedOperations: includeOperations ? TOPIC_OPERATIONS : OPERATIONS_NOT_REQUESTED,
  };
}

/** Kafka's Topic.isInternal: by name, whether or not the topic exists yet. */
export const INTERNAL_TOPIC_NAMES: ReadonlySet<string> = new Set(['__consumer_offsets', '__transaction_state', '__share_group_state']);

function missingTopic(name: string | null, topicId: string, errorCode: number): MetadataResponseTopic {
  const isInternal = name !== null && INTERNAL_TOPIC_NAMES.has(name);
  return { errorCode, name, topicId, isInternal, partitions: [], topicAuthorizedOperations: OPERATIONS_NOT_REQUESTED };
}

export const metadataHandler = defineHandler<MetadataRequestData, MetadataResponseData>({
  api: Api.Metadata,
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
      topics = broker.storage.topics().map((t) => describeTopic(broker, t, includeTopicOps));
    } else {
      topics = request.topics!.map((wanted) => {
        if (wanted.name === null) {
          const byId = wanted.topicId ? broker.storage.topicById(wanted.topicId) : undefined;
          return byId ? describeTopic(broker, byId, includeTopicOps) : missingTopic(null, wanted.topicId ?? ZERO_UUID, ErrorCode.UNKNOWN_TOPIC_ID);
        }
        try {
          const topic = broker.topicForProduceOrMetadata(wanted.name, allowAutoCreate);
          if (topic) return describeTopic(broker, topic, includeTopicOps);
          // As Kafka: a name that could never exist is INVALID_TOPIC_EXCEPTION, auto-creation or not.
          validateTopicName(wanted.name);
          return missingTopic(wanted.name, ZERO_UUID, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
        } catch (err) {
          if (err instanceof StorageError) return missingTopic(wanted.name, ZERO_UUID, err.errorCode);
          throw err;
        }
      });
    }
    return {
      throttleTimeMs: 0,
      brokers: [{ nodeId: broker.config.nodeId, host: broker.advertisedHost, port: broker.advertisedPort, rack: null }],
      clusterId: broker.storage.clusterId,
      controllerId: broker.config.nodeId,
      topics,
      clusterAuthorizedOperations: request.includeClusterAuthorizedOperations ? CLUSTER_OPERATIONS : OPERATIONS_NOT_REQUESTED,
    };
  },
});
