/**
 * DeleteRecords (kafka-delete-records, Admin.deleteRecords): each partition's log start
 * offset moves up to the given offset (-1: the high watermark), as Kafka's
 * ReplicaManager.deleteRecords and Partition.deleteRecordsOnLeader. Brook is the only
 * replica, so the low watermark is the new log start offset at once; the answer waits until
 * that is durable (the log-start-offset checkpoint), so a crash cannot bring the deleted
 * records back. Internal topics are refused (INVALID_TOPIC_EXCEPTION), as Kafka refuses them.
 */
import { Api } from '../../protocol/messages/index.js';
import type { DeleteRecordsPartition, DeleteRecordsPartitionResult, DeleteRecordsRequestData, DeleteRecordsResponseData } from '../../protocol/messages/delete-records.js';
import { ErrorCode } from '../../protocol/errors.js';
import { StorageError } from '../../storage/errors.js';
import type { BrokerContext } from '../broker-context.js';
import { AclOperation, ResourceType, authorize, authorizes } from '../authorization.js';
import { defineHandler } from '../handler.js';

async function deletePartition(broker: BrokerContext, topic: string, p: DeleteRecordsPartition): Promise<DeleteRecordsPartitionResult> {
  const failed = (errorCode: number): DeleteRecordsPartitionResult => ({ partitionIndex: p.partitionIndex, lowWatermark: -1n, errorCode });
  const metadata = broker.storage.topic(topic);
  const log = broker.storage.partition(topic, p.partitionIndex);
  if (!metadata || !log) return failed(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  if (metadata.isInternal) return failed(ErrorCode.INVALID_TOPIC_EXCEPTION);
  try {
    const result = log.deleteRecords(p.offset);
    await result.durable;
    return { partitionIndex: p.partitionIndex, lowWatermark: result.logStartOffset, errorCode: ErrorCode.NONE };
  } catch (err) {
    if (err instanceof StorageError) return failed(err.errorCode);
    broker.log.error('persisting a log start offset failed', { topic, partition: p.partitionIndex, err });
    return failed(ErrorCode.KAFKA_STORAGE_ERROR);
  }
}

export const deleteRecordsHandler = defineHandler<DeleteRecordsRequestData, DeleteRecordsResponseData>({
  api: Api.DeleteRecords,
  authorization: authorizes({ TOPIC: ['DELETE'] }),
  minVersion: 0,
  maxVersion: Api.DeleteRecords.request.highestVersion,
  async handle(ctx, request) {
    const topics = await Promise.all(request.topics.map(async (t) => ({
      name: t.name,
      // Kafka: DELETE on the topic, before looking for it.
      partitions: authorize(ctx, AclOperation.DELETE, ResourceType.TOPIC, t.name)
        ? await Promise.all(t.partitions.map((p) => deletePartition(ctx.broker, t.name, p)))
        : t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, lowWatermark: -1n, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED })),
    })));
    return { throttleTimeMs: 0, topics };
  },
});
