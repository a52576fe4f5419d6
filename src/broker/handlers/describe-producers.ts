/**
 * DescribeProducers (kafka-transactions describe-producers): per partition, the idempotent
 * producers whose state the log keeps (what duplicate detection and sequence checks use),
 * as Kafka's Partition.activeProducerState, with the epoch of the coordinator whose marker
 * ended each one's last transaction and the first offset of its open one (-1 when none).
 */
import { Api } from '../../protocol/messages/index.js';
import type { DescribeProducersRequestData, DescribeProducersResponseData, PartitionResponse } from '../../protocol/messages/describe-producers.js';
import { ErrorCode, errorInfo } from '../../protocol/errors.js';
import { StorageError } from '../../storage/errors.js';
import { validateTopicName } from '../../storage/catalog.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';
import { defineHandler } from '../handler.js';

export const describeProducersHandler = defineHandler<DescribeProducersRequestData, DescribeProducersResponseData>({
  api: Api.DescribeProducers,
  authorization: authorizes({ TOPIC: ['READ'] }),
  minVersion: 0,
  maxVersion: Api.DescribeProducers.request.highestVersion,
  handle(ctx, request) {
    const { storage } = ctx.broker;
    const topics = request.topics.map((t) => {
      // As Kafka: a topic-level error (invalid name, unknown topic) is given to every partition, with a message.
      let topicError: { errorCode: number; errorMessage: string } | null = null;
      try {
        validateTopicName(t.name);
        // Kafka: READ on the topic, before looking for it.
        if (!authorize(ctx, AclOperation.READ, ResourceType.TOPIC, t.name)) topicError = { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage: errorInfo(ErrorCode.TOPIC_AUTHORIZATION_FAILED).message };
        else if (!storage.topic(t.name)) topicError = { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: errorInfo(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION).message };
      } catch (err) {
        if (!(err instanceof StorageError)) throw err;
        topicError = { errorCode: err.errorCode, errorMessage: err.message };
      }
      const partitions = t.partitionIndexes.map((partitionIndex): PartitionResponse => {
        if (topicError) return { partitionIndex, ...topicError, activeProducers: [] };
        const log = storage.partition(t.name, partitionIndex);
        if (!log) return { partitionIndex, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, errorMessage: null, activeProducers: [] };
        try {
          const activeProducers = log.activeProducers().map((p) => ({
            producerId: p.producerId, producerEpoch: p.producerEpoch, lastSequence: p.lastSequence, lastTimestamp: p.lastTimestamp,
            coordinatorEpoch: p.coordinatorEpoch, currentTxnStartOffset: p.currentTxnStartOffset,
          }));
          return { partitionIndex, errorCode: ErrorCode.NONE, errorMessage: null, activeProducers };
        } catch (err) {
          if (!(err instanceof StorageError)) throw err;
          return { partitionIndex, errorCode: err.errorCode, errorMessage: null, activeProducers: [] };
        }
      });
      return { name: t.name, partitions };
    });
    return { throttleTimeMs: 0, topics };
  },
});
