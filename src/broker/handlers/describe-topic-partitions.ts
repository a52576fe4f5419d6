/**
 * DescribeTopicPartitions (KIP-966; what Kafka 4.x's `kafka-topics --describe` and admin
 * client's describeTopics use): topics with their partitions, leaders, ISR and eligible
 * leader replicas, paged by a partition limit and a cursor, as Kafka's
 * DescribeTopicPartitionsRequestHandler and KRaftMetadataCache.describeTopicResponse:
 *  - no topics named: every topic; named ones: those, unknown ones with an error;
 *  - topics at or after the cursor's topic, sorted by name; the cursor's topic starts at the
 *    cursor's partition, the others at 0;
 *  - at most min(response_partition_limit, max.request.partition.size.limit = 2000), and at
 *    least 1, partitions; the next cursor points at the first partition left out (within a
 *    topic, or partition 0 of the next topic once the limit is used up exactly);
 *  - a cursor topic missing from the named topics, or a negative cursor partition, fails the
 *    whole request with INVALID_REQUEST.
 * Brook is the only replica: ELR and last known ELR are empty, as for any fully in-sync partition.
 */
import { Api } from '../../protocol/messages/index.js';
import type {
  DescribeTopicPartitionsRequestData, DescribeTopicPartitionsResponseData, DescribeTopicPartitionsResponsePartition,
  DescribeTopicPartitionsResponseTopic, DescribeTopicPartitionsResponseCursor,
} from '../../protocol/messages/describe-topic-partitions.js';
import { ErrorCode } from '../../protocol/errors.js';
import { ZERO_UUID } from '../../protocol/messages/runtime.js';
import { StorageError } from '../../storage/errors.js';
import { validateTopicName } from '../../storage/catalog.js';
import type { TopicMetadata } from '../../storage/types.js';
import { AclOperation, ResourceType, authorize, authorizedOperations, authorizes } from '../authorization.js';
import { defineHandler } from '../handler.js';
import { INTERNAL_TOPIC_NAMES } from './metadata.js';
import type { OfflinePartitions } from '../test-controls/offline-partitions.js';

/** Kafka's max.request.partition.size.limit default. */
const MAX_REQUEST_PARTITION_SIZE_LIMIT = 2000;
/** The schema's default for topicAuthorizedOperations, left in Kafka's whole-request error answer. */
const OPERATIONS_UNSET = -2147483648;

function partitionsOf(topic: TopicMetadata, nodeId: number, from: number, to: number, offline: OfflinePartitions): DescribeTopicPartitionsResponsePartition[] {
  const out: DescribeTopicPartitionsResponsePartition[] = [];
  for (let p = from; p < to; p++) {
    // An offline partition (a test control) has no leader, its one replica offline (as in Metadata).
    const down = offline.has(topic.name, p);
    out.push({
      errorCode: down ? ErrorCode.LEADER_NOT_AVAILABLE : ErrorCode.NONE, partitionIndex: p, leaderId: down ? -1 : nodeId, leaderEpoch: 0, replicaNodes: [nodeId], isrNodes: [nodeId],
      eligibleLeaderReplicas: [], lastKnownElr: [], offlineReplicas: down ? [nodeId] : [],
    });
  }
  return out;
}

function missingTopic(name: string, operations: number): DescribeTopicPartitionsResponseTopic {
  let errorCode: number = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
  try {
    validateTopicName(name);
  } catch (err) {
    if (!(err instanceof StorageError)) throw err;
    errorCode = ErrorCode.INVALID_TOPIC_EXCEPTION;
  }
  return { errorCode, name, topicId: ZERO_UUID, isInternal: INTERNAL_TOPIC_NAMES.has(name), partitions: [], topicAuthorizedOperations: operations };
}

/** Kafka's answer to a request it refuses as a whole (DescribeTopicPartitionsRequest.getErrorResponse). */
function refused(request: DescribeTopicPartitionsRequestData, errorCode: number): DescribeTopicPartitionsResponseData {
  return {
    throttleTimeMs: 0,
    topics: request.topics.map((t) => ({
      errorCode, name: t.name, topicId: ZERO_UUID, isInternal: false, partitions: [], topicAuthorizedOperations: OPERATIONS_UNSET,
    })),
    nextCursor: null,
  };
}

export const describeTopicPartitionsHandler = defineHandler<DescribeTopicPartitionsRequestData, DescribeTopicPartitionsResponseData>({
  api: Api.DescribeTopicPartitions,
  authorization: authorizes({ TOPIC: ['DESCRIBE'] }),
  minVersion: 0,
  maxVersion: Api.DescribeTopicPartitions.request.highestVersion,
  handle(ctx, request) {
    const { storage, config } = ctx.broker;
    const fetchAll = request.topics.length === 0;
    const cursor = request.cursor;
    const cursorTopic = cursor?.topicName ?? '';
    const names = new Set<string>();
    for (const name of fetchAll ? storage.topics().map((t) => t.name) : request.topics.map((t) => t.name)) {
      if (name >= cursorTopic) names.add(name);
    }
    if (cursor && ((!fetchAll && !names.has(cursor.topicName)) || cursor.partitionIndex < 0)) return refused(request, ErrorCode.INVALID_REQUEST);

    let remaining = Math.max(Math.min(MAX_REQUEST_PARTITION_SIZE_LIMIT, request.responsePartitionLimit), 1);
    const topics: DescribeTopicPartitionsResponseTopic[] = [];
    let nextCursor: DescribeTopicPartitionsResponseCursor | null = null;
    // Sorted as Java's String.compareTo: by UTF-16 code units, as JavaScript compares strings.
    // Kafka does not even look whether a topic the client may not describe exists; those come last.
    const unauthorized: DescribeTopicPartitionsResponseTopic[] = [];
    for (const name of [...names].sort()) {
      if (!authorize(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, name)) {
        if (!fetchAll) unauthorized.push({ errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, name, topicId: ZERO_UUID, isInternal: false, partitions: [], topicAuthorizedOperations: OPERATIONS_UNSET });
        continue;
      }
      if (remaining === 0) {
        nextCursor = { topicName: name, partitionIndex: 0 };
        break;
      }
      const topic = storage.topic(name);
      if (!topic) {
        if (!fetchAll) topics.push(missingTopic(name, authorizedOperations(ctx, ResourceType.TOPIC, name)));
        continue;
      }
      const from = cursor && name === cursorTopic ? cursor.partitionIndex : 0;
      const to = Math.min(topic.partitions, from + remaining);
      const partitions = partitionsOf(topic, config.nodeId, from, to, ctx.broker.controls.offlinePartitions);
      topics.push({
        errorCode: ErrorCode.NONE, name, topicId: topic.topicId, isInternal: topic.isInternal, partitions, topicAuthorizedOperations: authorizedOperations(ctx, ResourceType.TOPIC, name),
      });
      if (to < topic.partitions) {
        nextCursor = { topicName: name, partitionIndex: to };
        break;
      }
      remaining -= partitions.length;
    }
    topics.push(...unauthorized);
    return { throttleTimeMs: 0, topics, nextCursor };
  },
});
